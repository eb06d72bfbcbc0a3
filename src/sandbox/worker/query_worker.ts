/**
 * A Worker with no tools that only answers permission queries. The sandbox starts one whose
 * permissions are the deny lists (`--deny-read` …), since Deno's Worker permissions have no deny
 * lists: "granted" there means "denied" for the run.
 */
import { createProcessRegistry } from "../../sys/process.ts";
import { serveToolWorker, type WorkerPort } from "./_worker_core.ts";

serveToolWorker(self as unknown as WorkerPort, {
  createTools: () => [],
  registry: createProcessRegistry(),
});
