/**
 * The run's temporary directory outlives no run: a bash process in a session of its own holds the
 * read end of a pipe from moat and removes the directory once that pipe ends — when moat closes
 * it, or when the kernel closes it because moat died (SIGKILL included).
 */

/** Removes a run's directory once moat is gone. */
export interface RunDirReaper {
  /** Ends the pipe: the reaper removes the directory (if still there) and exits. Never rejects. */
  close(): Promise<void>;
}

/** Waits for the end of stdin, then removes `$1` and everything in it. */
export const REAPER_SCRIPT = 'while IFS= read -r _; do :; done; rm -rf -- "$1"';

/** Starts the reaper of `dir` (a directory moat made); undefined when bash cannot be started. */
export function startRunDirReaper(dir: string): RunDirReaper | undefined {
  let child: Deno.ChildProcess;
  try {
    child = new Deno.Command("bash", {
      args: ["-c", REAPER_SCRIPT, "moat-run-reaper", dir],
      clearEnv: true,
      env: { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin" },
      // Its own session: a signal to moat's process group leaves it to clean up.
      detached: true,
      stdin: "piped",
      stdout: "null",
      stderr: "null",
    }).spawn();
  } catch {
    return undefined;
  }
  const writer = child.stdin.getWriter();
  let closing: Promise<void> | undefined;
  return {
    close() {
      closing ??= (async () => {
        await writer.close().catch(() => {});
        await child.status.catch(() => {});
      })();
      return closing;
    },
  };
}
