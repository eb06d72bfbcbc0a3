/** Worker module serving the fake tools (test substitute for src/sandbox/worker.ts). */
import { serveToolWorker, type WorkerPort } from "../../src/sandbox/_worker_core.ts";
import { fakeTools } from "./_fake_tools.ts";

serveToolWorker(self as unknown as WorkerPort, () => fakeTools());
