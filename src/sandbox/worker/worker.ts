/**
 * The tool Worker module. The tool host (or, without bubblewrap, the main process) starts it with
 * `deno: { permissions }` built from the grants, so Deno's engine refuses anything outside them;
 * the tools' file operations add the deny lists, protected paths and, without bubblewrap, the
 * post-open re-check.
 */
import { createDenoFsOps } from "../../sys/fs.ts";
import { createDenoProcessOps, createProcessRegistry } from "../../sys/process.ts";
import { createBuiltinTools } from "../../tools/mod.ts";
import { guardFsOps } from "./_guarded_fs.ts";
import { serveToolWorker, type WorkerPort } from "./_worker_core.ts";

serveToolWorker(self as unknown as WorkerPort, {
  createTools({ guard, ...options }) {
    const deno = createDenoFsOps(guard?.recheckOpens ? { recheckRealPath: true } : {});
    const fs = guardFsOps(deno, {
      denyRead: guard?.denyRead ?? [],
      denyWrite: guard?.denyWrite ?? [],
      ...(guard?.protection === undefined ? {} : { protection: guard.protection }),
      ...(guard?.deniedIds === undefined ? {} : { deniedIds: guard.deniedIds }),
    });
    return createBuiltinTools({ ...options, fs, process: createDenoProcessOps() });
  },
  registry: createProcessRegistry(),
});
