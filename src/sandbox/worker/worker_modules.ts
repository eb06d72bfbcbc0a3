/**
 * Every module the sandbox starts as a Worker, in one place: createSandbox loads them from
 * here and `deno task compile` (scripts/compile.ts) embeds exactly these, so the two cannot drift.
 */

/** Worker entry modules by role, as file names inside src/sandbox/worker/. */
export const WORKER_MODULES = {
  /** Runs the built-in tools under the grants. */
  tools: "worker.ts",
  /** Answers permission queries against the deny lists. */
  query: "query_worker.ts",
  /** Scans files for grep alongside the tools Worker, with its permissions. */
  grep: "grep_worker.ts",
} as const;

/** One Worker role. */
export type WorkerRole = keyof typeof WORKER_MODULES;

/** The module URL of the Worker for `role`. */
export function workerModuleUrl(role: WorkerRole): string {
  return new URL(`./${WORKER_MODULES[role]}`, import.meta.url).href;
}
