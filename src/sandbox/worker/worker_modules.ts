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

/**
 * The module URL of the Worker for `role`: under `root` (moat's module root, the directory of
 * main.ts as a URL) when given — a bundled CLI's chunks are not beside these files — else next to
 * this module.
 */
export function workerModuleUrl(role: WorkerRole, root?: string): string {
  return root === undefined
    ? new URL(`./${WORKER_MODULES[role]}`, import.meta.url).href
    : new URL(`src/sandbox/worker/${WORKER_MODULES[role]}`, root).href;
}
