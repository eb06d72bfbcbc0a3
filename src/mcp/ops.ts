/**
 * The effects the MCP client needs, as small interfaces: spawning a stdio server. The Deno
 * implementation is src/sys/mcp.ts; callers wrap the program (e.g. in bubblewrap) through
 * `McpClientOptions.stdioCommand`.
 */

/** The program line of a stdio server exactly as it is spawned. */
export interface McpStdioCommand {
  command: string;
  args: string[];
  /** The whole environment of the process: nothing is inherited. */
  env: Record<string, string>;
  cwd?: string;
  /** The program as configured, for messages when `command` wraps it (bubblewrap). */
  program?: string;
}

/** How a process ended: a code, or the signal that killed it. */
export interface McpProcessExit {
  code: number | null;
  signal: string | null;
}

/** A running stdio server process. */
export interface McpChildProcess {
  pid: number;
  stdin: WritableStream<Uint8Array>;
  stdout: ReadableStream<Uint8Array>;
  stderr: ReadableStream<Uint8Array>;
  /** Settles when the process has exited; never rejects. */
  status: Promise<McpProcessExit>;
  /** SIGKILLs the process and every process of its group; must not throw or reject. */
  kill(): Promise<void>;
}

/** The outcome of a spawn: the process, or why it could not start. */
export type McpSpawnResult =
  | { ok: true; child: McpChildProcess }
  | { ok: false; message: string };

/** Spawns stdio servers; each leads its own process group so `kill()` reaches grandchildren. */
export interface McpProcessOps {
  /** Starts `command` with exactly its environment; failures are data. Must not throw. */
  spawn(command: McpStdioCommand): McpSpawnResult;
}
