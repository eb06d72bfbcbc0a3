/**
 * The tool Worker module. The tool host (or, without bubblewrap, the main process) starts it with
 * `deno: { permissions }` built from the grants, so Deno's engine refuses anything outside them.
 */
import { createBuiltinTools } from "../tools/registry.ts";
import { serveToolWorker, type WorkerPort } from "./_worker_core.ts";

serveToolWorker(self as unknown as WorkerPort, (options) => createBuiltinTools(options));
