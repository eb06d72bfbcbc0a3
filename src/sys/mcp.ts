/**
 * The Deno implementation of McpProcessOps: a stdio MCP server runs in its own process group
 * (`detached: true`), gets exactly the environment it is given (`clearEnv`), and is killed
 * group-wide with SIGKILL.
 */
import type { McpProcessExit, McpProcessOps, McpSpawnResult } from "../mcp/ops.ts";

/** Creates Deno-backed process operations for stdio MCP servers. */
export function createDenoMcpProcessOps(): McpProcessOps {
  return {
    spawn(command): McpSpawnResult {
      let child: Deno.ChildProcess;
      try {
        child = new Deno.Command(command.command, {
          args: command.args,
          env: command.env,
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
