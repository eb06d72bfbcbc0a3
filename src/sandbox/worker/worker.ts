/**
 * The tool Worker module. The tool host (or, without bubblewrap, the main process) starts it with
 * `deno: { permissions }` built from the grants, so Deno's engine refuses anything outside them;
 * the tools' file operations add the deny lists, protected paths and, without bubblewrap, the
 * post-open re-check (tool_fs.ts). grep's helper Workers are started by its parent with the same
 * permissions (../host/helpers.ts).
 */
import { createDenoFsOps } from "../../sys/fs.ts";
import { createDenoProcessOps, createProcessRegistry } from "../../sys/process.ts";
import { createBuiltinTools } from "../../tools/mod.ts";
import { serveToolWorker, type WorkerPort } from "./_worker_core.ts";
import { grepThreads, type ParentPort } from "./grep_threads.ts";
import { toolFsOps } from "./tool_fs.ts";
import { hidingPrefix } from "./_hiding_prefix.ts";

serveToolWorker(self as unknown as WorkerPort, {
  createTools({ guard, bashHidden, ...options }) {
    const fs = toolFsOps(guard, createDenoFsOps);
    return createBuiltinTools({
      ...options,
      ...(bashHidden === undefined || options.bashCommandPrefix === undefined ? {} : {
        bashCommandPrefix: hidingPrefix(
          options.bashCommandPrefix,
          bashHidden,
          fs,
          (path) => Deno.readLink(path),
        ),
      }),
      fs,
      process: createDenoProcessOps(),
      // grep's helper Workers: started by this Worker's parent with its permissions and guard.
      grepThreads: grepThreads(self as unknown as ParentPort),
    });
  },
  registry: createProcessRegistry(),
});
