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
