/**
 * Operation interfaces of the sandbox: spawning the tool host process and facts about the running
 * moat executable. Deno implementations live in src/sys/host_process.ts and src/sys/runtime.ts.
 */

/** How a process ended. */
export interface HostExit {
  code: number;
  /** The signal that killed it, e.g. "SIGKILL"; null when it exited by itself. */
  signal: string | null;
}

/** A running tool host process with piped standard streams. */
export interface HostProcess {
  readonly pid: number;
  readonly stdin: WritableStream<Uint8Array>;
  readonly stdout: ReadableStream<Uint8Array>;
  readonly stderr: ReadableStream<Uint8Array>;
  /** Settles once the process has exited; never rejects. */
  readonly status: Promise<HostExit>;
  /** Sends SIGKILL; does nothing when the process is already gone. Must not throw. */
  kill(): void;
}

/** Starts tool host processes. */
export interface HostProcessOps {
  /**
   * Starts `program` with `args` and piped stdin/stdout/stderr in a new session (so it leads its
   * own process group and a Ctrl-C on moat's terminal does not reach it). Throws when the program
   * cannot be started.
   */
  spawn(program: string, args: string[]): HostProcess;
}

/** Facts about the running moat executable. */
export interface RuntimeOps {
  /** The executable running moat (the deno binary under `deno run`). */
  execPath(): string;
  /** URL of the main module (the script under `deno run`). */
  mainModule(): string;
  /** True in a `deno compile` binary, which re-executes itself rather than `deno run`. */
  standalone(): boolean;
  /** Deno's cache directory (real path) as `executable info --json` reports it, if known. */
  denoDir(executable: string): Promise<string | undefined>;
}
