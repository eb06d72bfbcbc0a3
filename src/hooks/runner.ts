/** One hook command as configured, with where it came from. */
export interface HookCommandSpec {
  /** The shell command line (run with `bash -c`). */
  command: string;
  /** Seconds before it is killed (default 60). */
  timeoutSec: number;
  /** "user": the user's own config; "project": .moat/config.json (runs only in a trusted project). */
  source: "user" | "project";
  /** False only when the user's own config says `"sandbox": false`. */
  sandbox: boolean;
}

/** How one hook command ended. */
export interface HookRunResult {
  /** The exit code, or null when it was killed (timeout, abort) or could not start. */
  exitCode: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  /** Why it could not start (e.g. no sandbox could be built), when it did not. */
  error?: string;
  durationMs: number;
}

/** Runs hook commands (confined unless the spec says otherwise). */
export interface HookCommandRunner {
  run(
    spec: HookCommandSpec,
    stdin: string,
    options: { cwd: string; signal?: AbortSignal },
  ): Promise<HookRunResult>;
}
