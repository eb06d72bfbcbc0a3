/** Measure 3: bash `seq 1 20000000` through moat: wall, peak RSS, bytes that reach the model. */
import type { Measure } from "./measure.ts";
import { modeLabel } from "./measure.ts";
import type { ProcessPeak } from "./proc.ts";
import { timeCommand } from "./run_cmd.ts";
import { summarize } from "./stats.ts";
import { formatValue, ratio } from "./table.ts";

interface BashCallResult {
  ms: number;
  mode: string;
  isError: boolean;
  modelBytes: number;
  contentTail: string;
  selfHwmKb: number;
  details: { exitCode?: number | null; stdoutBytes?: number; retainedPeakBytes?: number } | null;
}

/** Peak of the moat processes of a job: the job itself and any Deno tool host below it. */
function moatPeakKb(selfHwmKb: number, peaks: ProcessPeak[]): { mainKb: number; hostKb: number } {
  let hostKb = 0;
  for (const p of peaks) {
    if (p.comm === "deno" && p.cmdline.includes("__tool-host")) hostKb = Math.max(hostKb, p.hwmKb);
  }
  return { mainKb: selfHwmKb, hostKb };
}

/** Measure 3. */
export const bigOutput: Measure = {
  id: 3,
  name: "big-output",
  title: "Big output",
  async run(env, data) {
    const n = data.sizes.seqCount;
    const ws = env.path("bigout-ws");
    await Deno.mkdir(ws, { recursive: true });
    const walls: number[] = [];
    const rss: number[] = [];
    const hostRss: number[] = [];
    const bytes: number[] = [];
    const base: number[] = [];
    const idle: number[] = [];
    let mode = "";
    let stdoutBytes = 0;
    for (let i = 0; i < env.options.runs; i++) {
      const { result, peaks } = await env.job<BashCallResult>("bashCall", {
        cwd: ws,
        spillDir: env.path("bigout-spill", String(i)),
        command: `seq 1 ${n}`,
      }, { sampleTree: true, timeoutMs: 240_000 });
      if (
        result.isError || result.details?.exitCode !== 0 || !result.contentTail.includes(`${n}`)
      ) {
        throw new Error(`bash seq failed or lost its tail: ${result.contentTail.slice(-200)}`);
      }
      mode = result.mode;
      stdoutBytes = result.details?.stdoutBytes ?? 0;
      walls.push(result.ms);
      const { mainKb, hostKb } = moatPeakKb(result.selfHwmKb, peaks);
      rss.push(Math.max(mainKb, hostKb) / 1024);
      if (hostKb > 0) hostRss.push(hostKb / 1024);
      bytes.push(result.modelBytes / 1024);
      await Deno.remove(env.path("bigout-spill", String(i)), { recursive: true }).catch(() => {});
      const out = env.path("seq.out");
      const b = await timeCommand(env, "bash", ["-c", `seq 1 ${n} > '${out}'`]);
      if (b.code !== 0) throw new Error(`baseline seq failed: ${b.stderr}`);
      base.push(b.ms);
      await Deno.remove(out);
      const idleJob = await env.job<{ selfHwmKb: number }>("idle", {});
      idle.push(idleJob.result.selfHwmKb / 1024);
    }
    const w = summarize(walls);
    const b = summarize(base);
    const r = summarize(rss);
    const by = summarize(bytes);
    const outMb = (stdoutBytes / 1024 ** 2).toFixed(0);
    const label = modeLabel(mode);
    return [
      {
        id: 3,
        measure: `Big output: bash \`seq 1 ${n}\` wall ${label}`,
        moat: { stat: w, unit: "ms" },
        baseline: { stat: b, unit: "ms" },
        baselineLabel: "seq > file",
        compare: ratio(w.median, b.median),
        target: "≤ 1.5×",
        met: w.median <= 1.5 * b.median,
        note: `${outMb} MB of stdout through the bash tool in the agent pipeline and the sandbox ` +
          `(one warm-up \`true\` call first); baseline \`bash -c "seq 1 ${n} > file"\` timed ` +
          `from spawn.`,
      },
      {
        id: 3,
        measure: "Big output: peak RSS of moat",
        moat: { stat: r, unit: "MB" },
        baseline: { stat: summarize(idle), unit: "MB" },
        baselineLabel: "idle Deno process",
        target: "≤ 100 MB",
        met: r.median <= 100,
        note: `VmHWM of the moat process running the call${
          hostRss.length > 0
            ? ` and of its tool host (sampled from /proc every 10 ms; host median ${
              formatValue(summarize(hostRss).median, "MB")
            }), the larger of the two`
            : ""
        }; bash and seq themselves are not counted.`,
      },
      {
        id: 3,
        measure: "Big output: bytes that reached the model",
        moat: { stat: by, unit: "KB" },
        target: "≤ 50 KB",
        met: by.median <= 50,
        note: "JSON size of the tool result content stored in history (what the model receives).",
      },
    ];
  },
};
