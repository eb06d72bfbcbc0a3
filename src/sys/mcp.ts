/**
 * The Deno implementation of McpProcessOps: a stdio MCP server runs in its own process group
 * (`detached: true`), gets exactly the environment it is given (`clearEnv`) and none of moat's
 * inherited descriptors above 2, and is killed group-wide with SIGKILL.
 */
import { procChildren } from "./_proc_stat.ts";
import { isAbsolute, join, resolve } from "node:path";
import type { McpProcessExit, McpProcessOps, McpSpawnResult } from "../mcp/ops.ts";
import { CLOSE_INHERITED_FDS } from "./host_process.ts";

/** Creates Deno-backed process operations for stdio MCP servers. */
export function createDenoMcpProcessOps(): McpProcessOps {
  return {
    spawn(command): McpSpawnResult {
      let child: Deno.ChildProcess;
      const program = findExecutable(command.command, command.env["PATH"], command.cwd);
      if (program === undefined) {
        return { ok: false, message: `no executable "${command.command}" found` };
      }
      try {
        // Through the same trampoline as the tool host: descriptors moat inherited without
        // close-on-exec (`moat 9<secret`) must not reach the server, confined or not.
        child = new Deno.Command("bash", {
          // `env -i`: bash adds PWD, SHLVL and _ to what it execs; the server gets only its own.
          args: [
            "-c",
            CLOSE_INHERITED_FDS,
            "moat-mcp",
            "/usr/bin/env",
            "-i",
            ...Object.entries(command.env).map(([k, v]) => `${k}=${v}`),
            program,
            ...command.args,
          ],
          env: { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin" },
          clearEnv: true,
          ...(command.cwd === undefined ? {} : { cwd: command.cwd }),
          // A new session: the server leads its own process group, so the group can be killed.
          detached: true,
          stdin: "piped",
          stdout: "piped",
          stderr: "piped",
        }).spawn();
      } catch (e) {
        if (e instanceof Error) return { ok: false, message: e.message };
        throw e;
      }
      const pid = child.pid;
      let exited = false;
      const status: Promise<McpProcessExit> = child.status.then(
        (s) => {
          exited = true;
          return { code: s.signal === null ? s.code : null, signal: s.signal };
        },
        () => {
          exited = true;
          return { code: null, signal: null };
        },
      );
      return {
        ok: true,
        child: {
          pid,
          stdin: child.stdin,
          stdout: child.stdout,
          stderr: child.stderr,
          status,
          kill() {
            // A child in a session of its own is not in the group: bubblewrap's sandbox
            // (--new-session). Killed first, directly, its pid namespace goes with it even when
            // --die-with-parent does not fire (seen once on a loaded machine).
            if (!exited) {
              for (const c of procChildren(pid)) {
                try {
                  Deno.kill(c, "SIGKILL");
                } catch { /* gone meanwhile */ }
              }
            }
            try {
              Deno.kill(-pid, "SIGKILL");
            } catch (e) {
              // NotFound: the group is gone. Otherwise (no permission to signal a group) at
              // least the leader is killed through its handle.
              if (!(e instanceof Deno.errors.NotFound) && !exited) {
                try {
                  child.kill("SIGKILL");
                } catch { /* exited meanwhile */ }
              }
            }
            return status.then(() => undefined);
          },
        },
      };
    },
  };
}

/** The program's path (as given when it has a "/", else the first PATH entry that has it). */
function findExecutable(
  name: string,
  path: string | undefined,
  cwd: string | undefined,
): string | undefined {
  const isFile = (p: string) => {
    try {
      return Deno.statSync(p).isFile;
    } catch {
      return false;
    }
  };
  if (name.includes("/")) {
    const full = isAbsolute(name) || cwd === undefined ? name : resolve(cwd, name);
    return isFile(full) ? full : undefined;
  }
  for (const dir of (path ?? "").split(":").filter((d) => isAbsolute(d))) {
    if (isFile(join(dir, name))) return join(dir, name);
  }
  return undefined;
}
