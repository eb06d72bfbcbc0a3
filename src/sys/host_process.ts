/**
 * Deno implementation of the sandbox's HostProcessOps: the tool host runs in a new session
 * (`detached: true`), so terminal signals sent to moat's process group (Ctrl-C) do not reach it;
 * moat stops it through its stdin, and bwrap's `--die-with-parent` ends it when moat dies.
 */
import type { HostProcess, HostProcessOps } from "../sandbox/ops.ts";

/** Creates HostProcessOps backed by Deno.Command. */
export function createDenoHostProcessOps(): HostProcessOps {
  return {
    spawn(program, args): HostProcess {
      const child = new Deno.Command(program, {
        args,
        detached: true,
        stdin: "piped",
        stdout: "piped",
        stderr: "piped",
      }).spawn();
      return {
        pid: child.pid,
        stdin: child.stdin,
        stdout: child.stdout,
        stderr: child.stderr,
        status: child.status.then((s) => ({ code: s.code, signal: s.signal })),
        kill() {
          try {
            child.kill("SIGKILL");
          } catch { /* exited meanwhile */ }
        },
      };
    },
  };
}
