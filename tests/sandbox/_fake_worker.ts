/** Worker module serving the fake tools (test substitute for src/sandbox/worker/worker.ts). */
import { serveToolWorker, type WorkerPort } from "../../src/sandbox/worker/_worker_core.ts";
import { createProcessRegistry } from "../../src/sys/process.ts";
import { fakeTools } from "./_fake_tools.ts";

serveToolWorker(self as unknown as WorkerPort, {
  createTools: () => fakeTools(),
  registry: createProcessRegistry(),
});
