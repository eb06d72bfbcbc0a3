/** Measure 4: read page 1 and a middle page of a generated 1 GB text file: time and RSS growth. */
import { dirname } from "node:path";
import type { Measure } from "./measure.ts";
import { timeCommand } from "./run_cmd.ts";
import { summarize } from "./stats.ts";
import { ratio, type Row } from "./table.ts";

interface BigReadResult {
  ms: number;
  resetOk: boolean;
  rssBeforeKb: number;
  hwmAfterKb: number;
  isError: boolean;
  firstLine: string;
  outputBytes: number;
}

const MIDDLE = 250_000;

/** Measure 4. */
export const bigRead: Measure = {
  id: 4,
  name: "big-read",
  title: "Big read",
  async run(env, data) {
    const file = await data.bigFile();
    const sizeLabel = file.bytes >= 1024 ** 3
      ? `${(file.bytes / 1024 ** 3).toFixed(0)} GB`
      : `${(file.bytes / 1024 ** 2).toFixed(0)} MB`;
    const cwd = dirname(file.path);
    const pages = [
      { label: "page 1", offset: undefined, expect: "000000001 ", target: 100 },
      { label: `offset ${MIDDLE.toLocaleString("en")}`, offset: MIDDLE, expect: "000250000 " },
    ];
    const rows: Row[] = [];
    for (const page of pages) {
      const times: number[] = [];
      const growth: number[] = [];
      const base: number[] = [];
      let resetOk = true;
      let outBytes = 0;
      for (let i = 0; i < env.options.runs; i++) {
        const { result } = await env.job<BigReadResult>("bigRead", {
          cwd,
          path: file.path,
          ...(page.offset === undefined ? {} : { offset: page.offset }),
        });
        if (result.isError || !result.firstLine.startsWith(page.expect)) {
          throw new Error(`read ${page.label} returned the wrong page: ${result.firstLine}`);
        }
        times.push(result.ms);
        growth.push(Math.max(0, result.hwmAfterKb - result.rssBeforeKb) / 1024);
        resetOk &&= result.resetOk;
        outBytes = result.outputBytes;
        const cmd = page.offset === undefined
          ? `head -c 51200 '${file.path}'`
          : `tail -n +${page.offset} '${file.path}' | head -c 51200`;
        const b = await timeCommand(env, "bash", ["-c", cmd]);
        if (b.code !== 0) throw new Error(`baseline failed: ${cmd}: ${b.stderr}`);
        base.push(b.ms);
      }
      const t = summarize(times);
      const b = summarize(base);
      const g = summarize(growth);
      const baselineCmd = page.offset === undefined
        ? "head -c 51200"
        : `tail -n +${MIDDLE} | head -c 51200`;
      rows.push({
        id: 4,
        measure: `Big read: ${page.label} of ${sizeLabel} file, time`,
        moat: { stat: t, unit: "ms" },
        baseline: { stat: b, unit: "ms" },
        baselineLabel: baselineCmd,
        compare: ratio(t.median, b.median),
        ...(page.target === undefined
          ? {}
          : { target: `≤ ${page.target} ms`, met: t.median <= page.target }),
        ...(page.offset === undefined
          ? {
            note:
              `The read tool's first call in a fresh process (page of ${
                (outBytes / 1024).toFixed(1)
              } KB); baselines are shell pipelines timed from spawn (their process start included). ` +
              `Data: ${file.lines.toLocaleString("en")} numbered lines, each page checked.`,
          }
          : {}),
      });
      rows.push({
        id: 4,
        measure: `Big read: ${page.label}, RSS growth`,
        moat: { stat: g, unit: "MB" },
        target: "≤ 64 MB",
        met: g.median <= 64,
        ...(page.offset === undefined
          ? {
            note: `Peak RSS (VmHWM) during the call minus RSS just before it, in a fresh child ` +
              `process per run; the peak is reset first via /proc/self/clear_refs${
                resetOk ? "" : " (reset FAILED on this kernel: figure includes start-up)"
              }.`,
          }
          : {}),
      });
    }
    return rows;
  },
};
