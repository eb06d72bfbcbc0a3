/** What the measures that run the real moat share: a workspace, a home, and moat's environment. */
import { join } from "node:path";
import type { RunTask } from "../compile.ts";
import type { BenchEnv } from "./env.ts";
import { writeBundle } from "../_bundle_build.ts";

/** The CLI's bundle, built (when stale) once per bench run, before the first moat run. */
let bundled: Promise<unknown> | undefined;

/**
 * `deno run` arguments for one print-mode moat run under the start task's flags (`extra` Deno
 * flags after them), in `ws` against `baseURL`, without a session.
 */
export function moatRunArgs(
  env: BenchEnv,
  start: RunTask,
  run: { ws: string; baseURL: string; prompt: string; extra?: string[] },
): string[] {
  return [
    "run",
    ...start.flags,
    ...(run.extra ?? []),
    join(env.projectRoot, start.entry),
    "--cwd",
    run.ws,
    "--base-url",
    run.baseURL,
    "--no-session",
    run.prompt,
  ];
}

/**
 * Builds the CLI's bundle when stale (once), makes `<name>-ws` and `<name>-home/{config,state}`
 * under the bench's directory; the child environment is this one with a bench key, those homes,
 * no colour and no inherited base URL.
 */
export async function moatRunSetup(
  env: BenchEnv,
  name: string,
): Promise<{ ws: string; childEnv: Record<string, string> }> {
  // What `deno task start` runs: main.ts with the CLI's bundle while it is fresh.
  await (bundled ??= writeBundle(env.projectRoot));
  const ws = env.path(`${name}-ws`);
  const home = env.path(`${name}-home`);
  await Deno.mkdir(ws, { recursive: true });
  await Deno.mkdir(`${home}/config`, { recursive: true });
  await Deno.mkdir(`${home}/state`, { recursive: true });
  const childEnv: Record<string, string> = {
    ...Deno.env.toObject(),
    OPENAI_API_KEY: "sk-bench",
    XDG_CONFIG_HOME: `${home}/config`,
    XDG_STATE_HOME: `${home}/state`,
    NO_COLOR: "1",
  };
  delete childEnv.OPENAI_BASE_URL;
  return { ws, childEnv };
}
