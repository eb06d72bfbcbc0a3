/**
 * Deno implementation of the sandbox's HostProcessOps: the tool host runs in a new session
 * (`detached: true`), so terminal signals sent to moat's process group (Ctrl-C) do not reach it;
 * moat stops it through its stdin, and bwrap's `--die-with-parent` ends it when moat dies.
 */
import type { HostProcess, HostProcessOps } from "../sandbox/ops.ts";

/**
 * A bash program that closes every descriptor above 2 and then runs its arguments. Descriptors
 * moat inherited without close-on-exec (`moat 9<secret 8>>log`) would otherwise pass through
 * bwrap into the tool host and every bash call: a way out of the filesystem view.
 */
export const CLOSE_INHERITED_FDS = 'for fd in /proc/self/fd/*; do fd="${fd##*/}"; ' +
  'case "$fd" in 0|1|2) ;; *) eval "exec $fd>&-" 2>/dev/null ;; esac; done; exec "$@"';

/** Creates HostProcessOps backed by Deno.Command. */
export function createDenoHostProcessOps(): HostProcessOps {
  return {
    spawn(program, args): HostProcess {
      const child = new Deno.Command("bash", {
        args: ["-c", CLOSE_INHERITED_FDS, "moat-host", program, ...args],
        // bwrap gets nothing of moat's environment (the API key included): in its pid namespace
        // its first process keeps the environment bwrap started with, readable in /proc/1/environ.
        // The host's own environment comes from --clearenv and --setenv; PATH only finds bash.
        clearEnv: true,
        env: { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin" },
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
