/**
 * Measure 12: peak RSS (VmHWM) of moat's main process in the README scenario (the tour: reads,
 * an ls, a grep, a bash call, two denials, the answer) against the fake server, and what it is
 * made of: the peak of a process that only imports each layer of moat's start-up graph, in a
 * fresh process each (Deno alone, Node compatibility, the model SDK, the CLI's modules).
 */
import { join } from "node:path";
import { type RecordedRequest, startFakeOpenAI } from "../../tests/support/fake_openai.ts";
import { readStartTask } from "../compile.ts";
import { TOUR_PROMPT, tourSteps } from "../_tour.ts";
import type { BenchEnv } from "./env.ts";
import type { Measure } from "./measure.ts";
import { moatRunSetup } from "./moat_run.ts";
import { statusKb, TreePeakSampler } from "./proc.ts";
import { summarize } from "./stats.ts";
import type { Row } from "./table.ts";

/** The layers, each importing what the one before did and more. */
const LAYERS: Array<{ label: string; modules: string[] }> = [
  { label: "Deno alone", modules: [] },
  { label: "+ Node compatibility (node:path)", modules: ["node:path"] },
  { label: "+ the model SDK (openai)", modules: ["node:path", "openai"] },
  {
    label: "+ the CLI's start-up modules (setup, deps, print mode)",
    modules: [
      "node:path",
      "openai",
      "src/cli/setup.ts",
      "src/cli/deps.ts",
      "src/cli/modes/print.ts",
    ],
  },
];

/** The peak RSS (MB) of a fresh process that imports `modules`, and how long the imports took. */
async function importPeak(
  env: BenchEnv,
  modules: string[],
): Promise<{ mb: number; ms: number; fileMb: number }> {
  const out = await env.spawn(env.deno, {
    args: [
      "run",
      "--allow-all",
      join(env.projectRoot, "scripts/_bench/import_rss.ts"),
      modules.join(","),
    ],
    cwd: env.projectRoot,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!out.success) {
    throw new Error(
      `import of ${modules.join(", ")} failed: ${new TextDecoder().decode(out.stderr)}`,
    );
  }
  const [kb, ms, fileKb] = new TextDecoder().decode(out.stdout).trim().split(" ").map(Number);
  return { mb: (kb ?? 0) / 1024, ms: ms ?? 0, fileMb: (fileKb ?? 0) / 1024 };
}

/** Measure 12. */
export const peakRss: Measure = {
  id: 12,
  name: "peak-rss",
  title: "Peak RSS, README scenario",
  async run(env) {
    const start = await readStartTask(join(env.projectRoot, "deno.json"));
    const { childEnv } = await moatRunSetup(env, "peak-rss");
    await using server = await startFakeOpenAI();
    const entry = join(env.projectRoot, start.entry);
    const once = async (sources = false): Promise<
      { mainMb: number; hostMb: number; atRequests: number[]; fileAtFirst: number }
    > => {
      // The main process's RSS as each model request arrives: memory by phase of the run.
      const atRequests: number[] = [];
      let fileAtFirst = 0;
      let pid = 0;
      server.script(
        ...tourSteps().map((step) => (req: RecordedRequest, n: number) => {
          atRequests.push((statusKb(pid, "VmRSS") ?? 0) / 1024);
          // File-backed pages: the deno executable's code that ran, not moat's data.
          if (atRequests.length === 1) fileAtFirst = (statusKb(pid, "RssFile") ?? 0) / 1024;
          return typeof step === "function" ? step(req, n) : step;
        }),
      );
      const child = env.spawn(env.deno, {
        args: [
          "run",
          ...start.flags,
          entry,
          "--base-url",
          server.baseURL,
          "--model",
          "tour-script",
          "--no-session",
          "--no-context-files",
          TOUR_PROMPT,
        ],
        cwd: env.projectRoot,
        env: sources ? { ...childEnv, MOAT_NO_BUNDLE: "1" } : childEnv,
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
      });
      pid = child.pid;
      const sampler = new TreePeakSampler(child.pid, 5);
      const [stdout, stderr, status] = await Promise.all([
        new Response(child.stdout).text(),
        new Response(child.stderr).text(),
        child.status,
      ]);
      const peaks = sampler.stop();
      if (!status.success) {
        throw new Error(`moat run failed (code ${status.code}):\n${stderr}${stdout}`);
      }
      const main = peaks.find((p) => p.pid === child.pid)?.hwmKb ?? 0;
      // The tool host: the Deno process below bubblewrap (or none without it).
      const host = Math.max(
        0,
        ...peaks.filter((p) => p.pid !== child.pid && p.comm === "deno").map((p) => p.hwmKb),
      );
      return { mainMb: main / 1024, hostMb: host / 1024, atRequests, fileAtFirst };
    };
    await once();
    // The same scenario from the sources instead of the CLI's bundle (bench.ts builds it first).
    const sourcesMb: number[] = [];
    const main: number[] = [];
    const host: number[] = [];
    const first: number[] = [];
    const lastRequest: number[] = [];
    const fileFirst: number[] = [];
    await once(true);
    // Alternating with the bundled runs: the machine's noise falls on both alike.
    for (let i = 0; i < env.options.runs; i++) {
      sourcesMb.push((await once(true)).mainMb);
      const r = await once();
      fileFirst.push(r.fileAtFirst);
      main.push(r.mainMb);
      host.push(r.hostMb);
      first.push(r.atRequests[0] ?? 0);
      lastRequest.push(r.atRequests[r.atRequests.length - 1] ?? 0);
    }
    const layers: Array<{ label: string; mb: number; ms: number; fileMb: number }> = [];
    for (const layer of LAYERS) {
      const samples: Array<{ mb: number; ms: number; fileMb: number }> = [];
      for (let i = 0; i < Math.min(3, env.options.runs); i++) {
        samples.push(await importPeak(env, layer.modules));
      }
      layers.push({
        label: layer.label,
        mb: summarize(samples.map((s) => s.mb)).median,
        ms: summarize(samples.map((s) => s.ms)).median,
        fileMb: summarize(samples.map((s) => s.fileMb)).median,
      });
    }
    const mainStat = summarize(main);
    const last = layers[layers.length - 1]?.mb ?? 0;
    const fileOf = (mb: number | undefined) => `${(mb ?? 0).toFixed(1)} MB of it file-backed`;
    const breakdown = layers.map((l, i) =>
      `${l.label}: ${l.mb.toFixed(1)} MB${
        i === 0 ? "" : ` (+${(l.mb - (layers[i - 1]?.mb ?? 0)).toFixed(1)}; imported in ` +
          `${l.ms.toFixed(0)} ms)`
      }`
    ).join("; ");
    return [
      {
        id: 12,
        measure: "Peak RSS of moat's main process, README scenario",
        moat: { stat: mainStat, unit: "MB" },
        baselineLabel: "importing the start-up graph only (its sources)",
        baseline: { value: last, unit: "MB" },
        target: "≤ 64 MB",
        met: mainStat.median <= 64,
        note:
          "VmHWM of the main process for the README's tour (`deno task record-tour`'s scenario) " +
          `against the fake server, sampled every 5 ms; the tool host's own peak ${
            summarize(host).median.toFixed(1)
          } MB. ` +
          `Peak of a fresh process that only imports, layer by layer: ${breakdown} (` +
          `${fileOf(layers[layers.length - 1]?.fileMb)}: the deno executable's pages that ran; ` +
          `Deno alone ${fileOf(layers[0]?.fileMb)}); the run's RSS at its first model request ${
            summarize(first).median.toFixed(1)
          } MB (${fileOf(summarize(fileFirst).median)}), at its ` +
          `last ${summarize(lastRequest).median.toFixed(1)} MB, peak (at the end) ` +
          `${mainStat.median.toFixed(1)} MB: running the scenario adds ${
            (mainStat.median - last).toFixed(1)
          } MB.`,
      },
      {
        id: 12,
        measure: "Peak RSS of moat's main process, README scenario, from the sources",
        moat: { stat: summarize(sourcesMb), unit: "MB" },
        baselineLabel: "the CLI bundled (the row above)",
        baseline: { value: mainStat.median, unit: "MB" },
        note: "The same scenario with `MOAT_NO_BUNDLE=1`: the CLI from its sources instead of " +
          "its code-split bundle (`deno task bundle`: what runs later stays in chunks loaded " +
          "when used).",
      },
    ] satisfies Row[];
  },
};
