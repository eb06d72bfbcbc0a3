/** Deno implementation of the policy layer's CommandOps: short commands run to completion. */
import type { CommandOps, CommandOutput } from "../policy/ops.ts";

/** Creates CommandOps backed by Deno.Command (stdin closed, stdout and stderr collected). */
export function createDenoCommandOps(): CommandOps {
  return {
    async output(program, args, options): Promise<CommandOutput> {
      let child: Deno.ChildProcess;
      try {
        child = new Deno.Command(program, {
          args,
          stdin: "null",
          stdout: "piped",
          stderr: "piped",
        }).spawn();
      } catch (e) {
        return { ok: false, message: e instanceof Error ? e.message : String(e) };
      }
      const timer = setTimeout(() => {
        try {
          child.kill("SIGKILL");
        } catch { /* already exited */ }
      }, options.timeoutMs);
      try {
        const [status, stdout, stderr] = await Promise.all([
          child.status,
          new Response(child.stdout).text(),
          new Response(child.stderr).text(),
        ]);
        return {
          ok: true,
          success: status.success,
          code: status.code,
          signal: status.signal,
          stdout,
          stderr,
        };
      } catch (e) {
        return { ok: false, message: e instanceof Error ? e.message : String(e) };
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
