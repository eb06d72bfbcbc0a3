/**
 * The effect the hook runner needs: spawning one command with piped stdio in a process group of
 * its own. The Deno implementation is src/sys/hook_process.ts.
 */

/** A program line exactly as it is spawned. */
export interface HookProcessCommand {
  command: string;
  args: string[];
  /** The whole environment of the process: nothing is inherited. */
  env: Record<string, string>;
  cwd?: string;
}

/** A running hook process. */
export interface HookProcess {
  pid: number;
  stdin: WritableStream<Uint8Array>;
  stdout: ReadableStream<Uint8Array>;
  stderr: ReadableStream<Uint8Array>;
  /** Settles when the process has exited (`code` null when a signal ended it); never rejects. */
  status: Promise<{ code: number | null; signal: string | null }>;
  /** SIGKILLs the process and every process of its group; must not throw or reject. */
  kill(): Promise<void>;
}

/** Spawns hook commands; failures to start are data. */
export interface HookProcessOps {
  /** Starts `command` with exactly its environment, leading its own process group. */
  spawn(command: HookProcessCommand): { ok: true; child: HookProcess } | {
    ok: false;
    message: string;
  };
}
