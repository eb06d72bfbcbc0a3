/** Measure 6: a batch of 7 concurrency-safe calls, one of 500 ms: wall ≈ slowest, not the sum. */
import type { Measure } from "./measure.ts";
import { summarize } from "./stats.ts";
import { formatValue, ratio } from "./table.ts";

interface ParallelResult {
  wallMs: number;
  perCall: number[];
  slowestMs: number;
  sumMs: number;
}

/** Six 100 ms calls around one 500 ms call (inside the default window of 5). */
const DURATIONS = [100, 100, 100, 500, 100, 100, 100];

/** Measure 6. */
export const parallel: Measure = {
  id: 6,
  name: "parallel",
  title: "Parallel batch",
  async run(env) {
    const walls: number[] = [];
    const slowest: number[] = [];
    const sums: number[] = [];
    for (let i = 0; i < env.options.runs; i++) {
      const { result } = await env.job<ParallelResult>("parallel", { durations: DURATIONS });
      walls.push(result.wallMs);
      slowest.push(result.slowestMs);
      sums.push(result.sumMs);
    }
    const w = summarize(walls);
    const s = summarize(slowest);
    const sum = summarize(sums);
    return [{
      id: 6,
      measure: "Parallel batch: 7 safe calls, one 500 ms",
      moat: { stat: w, unit: "ms" },
      baseline: { stat: s, unit: "ms" },
      baselineLabel: "slowest call alone",
      compare: ratio(w.median, s.median),
      target: "≤ 1.2× slowest",
      met: w.median <= 1.2 * s.median,
      note: `runAgentLoop with a scripted model replying with 7 calls of a concurrency-safe tool ` +
        `(${DURATIONS.join(", ")} ms; default window of 5); wall from the first tool_start to ` +
        `the last tool_end. Sequential execution would take the sum: ${
          formatValue(sum.median, "ms")
        }.`,
    }];
  },
};
