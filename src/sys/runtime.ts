/** Deno implementation of the sandbox's RuntimeOps: the running executable, main module, cache. */
import type { RuntimeOps } from "../sandbox/ops.ts";
import { createDenoCommandOps } from "./command.ts";

/** How long `deno info --json` may take before the cache directory counts as unknown. */
const DENO_INFO_TIMEOUT_MS = 10_000;

/** Creates RuntimeOps backed by Deno.execPath, Deno.mainModule and `deno info --json`. */
export function createDenoRuntimeOps(): RuntimeOps {
  return {
    execPath: () => Deno.execPath(),
    mainModule: () => Deno.mainModule,
    standalone: () => Deno.build.standalone,
    async denoDir(executable) {
      const out = await createDenoCommandOps().output(executable, ["info", "--json"], {
        timeoutMs: DENO_INFO_TIMEOUT_MS,
      });
      if (!out.ok || !out.success) return undefined;
      try {
        const info = JSON.parse(out.stdout) as { denoDir?: unknown };
        return typeof info.denoDir === "string" ? Deno.realPathSync(info.denoDir) : undefined;
      } catch {
        return undefined;
      }
    },
  };
}
