/** Measure 1: start-up of `moat --version` and time to the first model request, vs empty Deno. */
import { join } from "node:path";
import { reply, startFakeOpenAI } from "../../tests/support/fake_openai.ts";
import { readStartTask } from "../compile.ts";
import type { BenchEnv } from "./env.ts";
import type { Measure } from "./measure.ts";
import { timeCommand } from "./run_cmd.ts";
import { summarize } from "./stats.ts";
import { difference, ratio, type Row } from "./table.ts";
import { moatRunSetup } from "./moat_run.ts";

async function firstRequestMs(
  env: BenchEnv,
  args: string[],
  childEnv: Record<string, string>,
  server: Awaited<ReturnType<typeof startFakeOpenAI>>,
): Promise<{ request: number; exit: number }> {
  server.script(reply.text("ok"));
  const n = server.requests.length + 1;
  const start = performance.now();
  const child = env.spawn(env.deno, {
    args,
    cwd: env.projectRoot,
    env: childEnv,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  });
  const out = Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.status,
  ]);
  let ms: number;
  try {
    await Promise.race([
      server.waitForRequest(n, { timeoutMs: 60_000 }),
      out.then(([o, e, s]) => {
        throw new Error(`moat exited (code ${s.code}) before any model request:\n${e}${o}`);
      }),
    ]);
    ms = performance.now() - start;
  } catch (e) {
    try {
      child.kill("SIGKILL");
    } catch { /* gone */ }
    await out.catch(() => {});
    throw e;
  }
  const timer = setTimeout(() => {
    try {
      child.kill("SIGKILL");
    } catch { /* gone */ }
  }, 30_000);
  const [stdout, stderr, status] = await out.finally(() => clearTimeout(timer));
  if (!status.success) {
    throw new Error(`moat run exited with code ${status.code}:\n${stderr}${stdout}`);
  }
  return { request: ms, exit: performance.now() - start };
}

/** Measure 1. */
export const startup: Measure = {
  id: 1,
  name: "startup",
  title: "Start-up",
  async run(env) {
    const runs = env.options.runs;
    const start = await readStartTask(join(env.projectRoot, "deno.json"));
    const args = ["run", ...start.flags, join(env.projectRoot, start.entry)];
    const empty = env.path("empty.ts");
    await Deno.writeTextFile(empty, "// intentionally empty: the start-up baseline\n");
    const baseArgs = ["run", ...start.flags, empty];
    const flags = start.flags.join(" ");

    const version = async () => {
      const r = await timeCommand(env, env.deno, [...args, "--version"], { cwd: env.projectRoot });
      if (r.code !== 0 || !r.stdout.startsWith("moat ")) {
        throw new Error(`moat --version failed (code ${r.code}): ${r.stderr}${r.stdout}`);
      }
      return r.ms;
    };
    const baseline = async () => {
      const r = await timeCommand(env, env.deno, baseArgs, { cwd: env.projectRoot });
      if (r.code !== 0) throw new Error(`empty script failed: ${r.stderr}`);
      return r.ms;
    };
    // What users type: the task runs its dependency (the CLI bundle's freshness check) first.
    const taskVersion = async () => {
      const r = await timeCommand(env, env.deno, ["task", "-q", "start", "--version"], {
        cwd: env.projectRoot,
      });
      if (r.code !== 0 || !r.stdout.startsWith("moat ")) {
        throw new Error(`deno task start --version failed (code ${r.code}): ${r.stderr}`);
      }
      return r.ms;
    };
    // Warm Deno's module cache first (and the bundle, once) so every run measures start-up.
    await version();
    await baseline();
    await taskVersion();
    const versionMs: number[] = [];
    const baselineMs: number[] = [];
    const taskMs: number[] = [];
    for (let i = 0; i < runs; i++) {
      versionMs.push(await version());
      baselineMs.push(await baseline());
      taskMs.push(await taskVersion());
    }

    const { ws, childEnv } = await moatRunSetup(env, "startup");
    await using server = await startFakeOpenAI();
    const runArgs = [
      ...args,
      "--cwd",
      ws,
      "--base-url",
      server.baseURL,
      "--no-session",
      "say ok",
    ];
    await firstRequestMs(env, runArgs, childEnv, server);
    const firstMs: number[] = [];
    const exitMs: number[] = [];

    // A configured MCP server that never answers (it reads nothing and writes nothing).
    const silent = env.path("silent-mcp.json");
    await Deno.writeTextFile(
      silent,
      JSON.stringify({ mcpServers: { silent: { command: "sleep", args: ["1000"] } } }),
    );
    const mcpArgs = [...runArgs.slice(0, -1), "--mcp-config", silent, "say ok"];
    await firstRequestMs(env, mcpArgs, childEnv, server);
    // The same run from the sources instead of the CLI's bundle (what main.ts runs while it is
    // fresh: bench.ts builds it first), alternating.
    const sourcesEnv = { ...childEnv, MOAT_NO_BUNDLE: "1" };
    await firstRequestMs(env, runArgs, sourcesEnv, server);
    const mcpMs: number[] = [];
    const sourcesMs: number[] = [];
    for (let i = 0; i < runs; i++) {
      const plain = await firstRequestMs(env, runArgs, childEnv, server);
      firstMs.push(plain.request);
      exitMs.push(plain.exit);
      mcpMs.push((await firstRequestMs(env, mcpArgs, childEnv, server)).request);
      sourcesMs.push((await firstRequestMs(env, runArgs, sourcesEnv, server)).request);
    }

    const v = summarize(versionMs);
    const t = summarize(taskMs);
    const f = summarize(firstMs);
    const b = summarize(baselineMs);
    const m = summarize(mcpMs);
    const x = summarize(exitMs);
    const u = summarize(sourcesMs);
    const label = "empty script, same flags";
    const rows: Row[] = [
      {
        id: 1,
        measure: "Start-up: `moat --version`",
        moat: { stat: v, unit: "ms" },
        baseline: { stat: b, unit: "ms" },
        baselineLabel: label,
        compare: ratio(v.median, b.median),
        target: "≤ 1.5× empty",
        met: v.median <= 1.5 * b.median,
        note:
          `Wall time from spawn to exit of \`deno run ${flags} ${start.entry} --version\` (the start ` +
          `task's flags, read from deno.json) vs \`deno run ${flags} empty.ts\`; Deno's cache warm.`,
      },
      {
        id: 1,
        measure: "Start-up: `deno task start --version`",
        moat: { stat: t, unit: "ms" },
        baseline: { stat: v, unit: "ms" },
        baselineLabel: "`moat --version` (the row above)",
        compare: difference(t.median, v.median, "ms"),
        note: "`deno task -q start --version` in the checkout: what the start task adds, its " +
          "dependency `deno task bundle` (a Deno process that finds the CLI's bundle fresh) and " +
          "the task runner itself.",
      },
      {
        id: 1,
        measure: "Start-up: to first model request",
        moat: { stat: f, unit: "ms" },
        baseline: { stat: b, unit: "ms" },
        baselineLabel: label,
        compare: ratio(f.median, b.median),
        target: "≤ 6× empty",
        met: f.median <= 6 * b.median,
        note: 'From spawning `moat --no-session "say ok"` (print mode, default grants and ' +
          "sandbox; main.ts runs the CLI's bundle, built fresh by the bench first) to the " +
          "request arriving at the fake OpenAI server on 127.0.0.1.",
      },
      {
        id: 1,
        measure: "Start-up: to first request, from the sources",
        moat: { stat: u, unit: "ms" },
        baseline: { stat: f, unit: "ms" },
        baselineLabel: "the CLI bundled (the row above)",
        compare: ratio(u.median, f.median),
        note: "The same run with `MOAT_NO_BUNDLE=1`: the CLI from its sources instead of its " +
          "code-split bundle (`deno task bundle`, what `deno task start` and the release run: " +
          "one module graph of the start-up's code and npm packages, what runs later in chunks " +
          "loaded when used); alternating with the row above.",
      },
      {
        id: 1,
        measure: "Run without a tool call: spawn to exit",
        moat: { stat: x, unit: "ms" },
        baseline: { stat: f, unit: "ms" },
        baselineLabel: "to first request",
        compare: difference(x.median, f.median, "ms"),
        target: "≤ +50 ms",
        met: x.median - f.median <= 50,
        note:
          'The same `moat "say ok"` run to its exit: an instant reply and no tool call, so the ' +
          "tool host started at the start must not hold the exit back.",
      },
      {
        id: 1,
        measure: "Start-up: to first request, one MCP server that never answers",
        moat: { stat: m, unit: "ms" },
        baseline: { stat: f, unit: "ms" },
        baselineLabel: "no MCP server",
        compare: difference(m.median, f.median, "ms"),
        target: "≤ +50 ms",
        met: m.median - f.median <= 50,
        note: "The same run with `--mcp-config` naming one stdio server (`sleep 1000`) that " +
          "never answers `initialize`: servers start alongside the first request, never before it.",
      },
    ];
    return rows;
  },
};
