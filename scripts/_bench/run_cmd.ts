/** Timing external commands for baselines. */
import type { BenchEnv } from "./env.ts";

/** A finished command. */
export interface TimedCommand {
  ms: number;
  code: number;
  stdout: string;
  stderr: string;
}

/** Spawns `cmd args`, waits for exit and both streams, and returns the wall time from spawn. */
export async function timeCommand(
  env: BenchEnv,
  cmd: string,
  args: string[],
  options: { cwd?: string; env?: Record<string, string>; timeoutMs?: number } = {},
): Promise<TimedCommand> {
  const start = performance.now();
  const child = env.spawn(cmd, {
    args,
    cwd: options.cwd ?? env.root,
    ...(options.env ? { env: options.env } : {}),
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  });
  const timer = setTimeout(() => {
    try {
      child.kill("SIGKILL");
    } catch { /* gone */ }
  }, options.timeoutMs ?? 120_000);
  const [stdout, stderr, status] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.status,
  ]).finally(() => clearTimeout(timer));
  return { ms: performance.now() - start, code: status.code, stdout, stderr };
}

/** The `start` task of deno.json split into Deno's argv (without the leading `deno`). */
export async function startTaskArgs(
  projectRoot: string,
): Promise<{ args: string[]; script: number }> {
  const config = JSON.parse(await Deno.readTextFile(`${projectRoot}/deno.json`));
  const task: unknown = config?.tasks?.start;
  if (typeof task !== "string") throw new Error(`deno.json has no "start" task`);
  const tokens = task.trim().split(/\s+/);
  if (tokens[0] !== "deno") throw new Error(`"start" task does not begin with deno: ${task}`);
  const args = tokens.slice(1);
  const script = args.findIndex((a) => /\.(ts|js|mjs)$/.test(a));
  if (script < 0) throw new Error(`"start" task names no script: ${task}`);
  args[script] = `${projectRoot}/${args[script]}`;
  return { args, script };
}
