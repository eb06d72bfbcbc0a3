/**
 * The tool Worker module. The tool host (or, without bubblewrap, the main process) starts it with
 * `deno: { permissions }` built from the grants, so Deno's engine refuses anything outside them;
 * the tools' file operations add the deny lists and, without bubblewrap, the post-open re-check.
 */
import { createDenoFsOps } from "../sys/fs.ts";
import { createDenoPathOps } from "../sys/paths.ts";
import { createBuiltinTools } from "../tools/registry.ts";
import { guardFsOps } from "./_guarded_fs.ts";
import { serveToolWorker, type WorkerPort } from "./_worker_core.ts";

serveToolWorker(self as unknown as WorkerPort, ({ guard, ...options }) => {
  const paths = createDenoPathOps();
  const fs = guardFsOps(createDenoFsOps(), {
    denyRead: guard?.denyRead ?? [],
    denyWrite: guard?.denyWrite ?? [],
    ...(guard?.recheckOpens
      ? {
        recheck: {
          realPathSync: (p: string) => {
            const real = paths.realPath(p);
            return real.ok ? real.path : undefined;
          },
          identitySync: (p: string) => paths.identity?.(p),
        },
      }
      : {}),
  });
  return createBuiltinTools({ ...options, fs });
});
