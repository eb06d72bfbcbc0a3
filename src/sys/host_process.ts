/**
 * Deno implementation of the sandbox's HostProcessOps: the tool host runs in a new session
 * (`detached: true`), so terminal signals sent to moat's process group (Ctrl-C) do not reach it;
 * moat stops it through its stdin, and bwrap's `--die-with-parent` ends it when moat dies.
 */
import type { HostProcess, HostProcessOps } from "../sandbox/ops.ts";
import { procStatFields } from "./_proc_stat.ts";

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
    spawn(program, args, options = {}): HostProcess {
      const { statusFd } = options;
      if (statusFd !== undefined && (!Number.isInteger(statusFd) || statusFd < 3)) {
        throw new Error(`The status descriptor "${statusFd}" is not a number above 2`);
      }
      // The status descriptor is a copy of stderr's, made after the others are closed.
      const script = statusFd === undefined
        ? CLOSE_INHERITED_FDS
        : `${CLOSE_INHERITED_FDS} ${statusFd}>&2`;
      const child = new Deno.Command("bash", {
        args: ["-c", script, "moat-host", program, ...args],
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
      let exited = false;
      const status = child.status.then((s) => {
        exited = true;
        return { code: s.code, signal: s.signal };
      });
      return {
        pid: child.pid,
        stdin: child.stdin,
        stdout: child.stdout,
        stderr: child.stderr,
        status,
        kill() {
          try {
            child.kill("SIGKILL");
          } catch { /* exited meanwhile */ }
        },
        killChild(pid) {
          // Only our child: once this process is gone its child may be too, and its number reused.
          if (exited || !Number.isInteger(pid) || pid <= 1 || parentOf(pid) !== child.pid) return;
          try {
            Deno.kill(pid, "SIGKILL");
          } catch { /* exited meanwhile */ }
        },
      };
    },
  };
}

/** The parent of process `pid` (field 4 of /proc/PID/stat); undefined once it is gone. */
function parentOf(pid: number): number | undefined {
  const parent = procStatFields(pid)?.[1];
  return parent === undefined ? undefined : Number(parent);
}
