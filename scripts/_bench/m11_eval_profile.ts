/**
 * Measure 11: where start-up's module evaluation goes. One `moat "say ok"` run under
 * `--cpu-prof`, up to the first request; each module's top-level frame is charged its samples
 * (nested module evaluations excluded), summed per npm package or src/ file, top ones first.
 */
import { join } from "node:path";
import { reply, startFakeOpenAI } from "../../tests/support/fake_openai.ts";
import { readStartTask } from "../compile.ts";
import type { Measure } from "./measure.ts";
import type { Row } from "./table.ts";
import { moatRunArgs, moatRunSetup } from "./moat_run.ts";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** An npm package's name, or the path of a module of this checkout. */
function moduleKey(url: string, root: string): string {
  const npm = /registry\.npmjs\.org\/(@[^/]+\/[^/]+|[^/]+)\//.exec(url);
  if (npm !== null) return `npm:${npm[1]}`;
  const local = `file://${root}/`;
  return url.startsWith(local) ? url.slice(local.length) : url;
}

const isModuleEval = (node: ProfileNode) =>
  node.callFrame.functionName === "" && node.callFrame.url.startsWith("file:") &&
  node.callFrame.lineNumber === 0;

/** Milliseconds of evaluation per module key, most first. */
export function evaluationByModule(profile: Profile, root: string): Array<[string, number]> {
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  profile.samples.forEach((id, i) =>
    self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0))
  );
  const own = (id: number): number => {
    const node = nodes.get(id) as ProfileNode;
    let us = self.get(id) ?? 0;
    for (const child of node.children ?? []) {
      if (!isModuleEval(nodes.get(child) as ProfileNode)) us += own(child);
    }
    return us;
  };
  const totals = new Map<string, number>();
  for (const node of profile.nodes) {
    if (!isModuleEval(node)) continue;
    const key = moduleKey(node.callFrame.url, root);
    totals.set(key, (totals.get(key) ?? 0) + own(node.id) / 1000);
  }
  return [...totals].sort((a, b) => b[1] - a[1]);
}

/** Measure 11. */
export const evalProfile: Measure = {
  id: 11,
  name: "eval-profile",
  title: "Start-up: module evaluation",
  async run(env) {
    const start = await readStartTask(join(env.projectRoot, "deno.json"));
    const { ws, childEnv } = await moatRunSetup(env, "profile");
    const dir = env.path("profile-out");
    await Deno.mkdir(dir, { recursive: true });
    await using server = await startFakeOpenAI();
    server.script(reply.text("ok"));
    const args = moatRunArgs(env, start, {
      ws,
      baseURL: server.baseURL,
      prompt: "say ok",
      extra: ["--cpu-prof", `--cpu-prof-dir=${dir}`],
    });
    const out = await env.spawn(env.deno, {
      args,
      cwd: env.projectRoot,
      // From the sources: the bundle's chunks name no module (and change name with each build).
      env: { ...childEnv, MOAT_NO_BUNDLE: "1" },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    if (!out.success) throw new Error(`moat run failed: ${new TextDecoder().decode(out.stderr)}`);
    const file = [...Deno.readDirSync(dir)].find((e) => e.name.endsWith(".cpuprofile"));
    if (file === undefined) throw new Error(`no CPU profile in ${dir}`);
    const profile = JSON.parse(await Deno.readTextFile(join(dir, file.name))) as Profile;
    const top = evaluationByModule(profile, env.projectRoot);
    const total = top.reduce((sum, [, ms]) => sum + ms, 0);
    return [{
      id: 11,
      measure: "Start-up: module evaluation, top 5",
      moat: { value: total, unit: "ms" },
      note: `Total module evaluation of one \`moat "say ok"\` run under --cpu-prof, from the ` +
        `sources (\`MOAT_NO_BUNDLE=1\`, so that each module has its name); the most: ` +
        top.slice(0, 5).map(([key, ms]) => `${key} ${ms.toFixed(1)} ms`).join(", ") + ".",
    }] satisfies Row[];
  },
};
