/** Measure 7: bash `sleep 300 & sleep 300 & wait` with timeout 1 s: when is every process gone? */
import type { Measure } from "./measure.ts";
import { modeLabel } from "./measure.ts";
import { summarize } from "./stats.ts";
import { difference, type Row } from "./table.ts";
import { epochMs, watchUntilGone } from "./watch.ts";

interface BashCallResult {
  startEpoch: number;
  endEpoch: number;
  mode: string;
  isError: boolean;
  contentTail: string;
  details: { timedOut?: boolean } | null;
}

/** Measure 7. */
export const timeout: Measure = {
  id: 7,
  name: "timeout",
  title: "Timeout precision",
  async run(env) {
    const ws = env.path("timeout-ws");
    await Deno.mkdir(ws, { recursive: true });
    const gone: number[] = [];
    const returned: number[] = [];
    const base: number[] = [];
    let mode = "";
    for (let i = 0; i < env.options.runs; i++) {
      // A unique duration per run tells our sleeps apart from anyone else's `sleep 300`.
      const arg = `300.${String(Deno.pid % 1000).padStart(3, "0")}${i}1`;
      const command = `sleep ${arg} & sleep ${arg} & wait`;
      const watch = watchUntilGone(`sleep ${arg}`, { expect: 2, timeoutMs: 20_000 });
      const { result } = await env.job<BashCallResult>("bashCall", {
        cwd: ws,
        spillDir: env.path("timeout-spill"),
        command,
        timeout: 1,
      });
      const w = await watch;
      if (w.goneAt === null) {
        throw new Error(
          `processes of the timed-out call survived (pids ${w.survivors.join(", ")}; killed now)`,
        );
      }
      if (result.details?.timedOut !== true) {
        throw new Error(`bash did not report a timeout: ${result.contentTail}`);
      }
      mode = result.mode;
      const deadline = result.startEpoch + 1000;
      gone.push(w.goneAt - deadline);
      returned.push(result.endEpoch - deadline);

      const barg = `300.${String(Deno.pid % 1000).padStart(3, "0")}${i}2`;
      const bwatch = watchUntilGone(`sleep ${barg}`, { expect: 2, timeoutMs: 20_000 });
      const t0 = epochMs();
      const child = env.spawn("timeout", {
        args: ["-s", "KILL", "1", "bash", "-c", `sleep ${barg} & sleep ${barg} & wait`],
        stdin: "null",
        stdout: "null",
        stderr: "null",
      });
      const bw = await bwatch;
      await child.status;
      if (bw.goneAt === null) throw new Error("baseline: coreutils timeout left processes behind");
      base.push(bw.goneAt - (t0 + 1000));
    }
    const g = summarize(gone);
    const b = summarize(base);
    const label = modeLabel(mode);
    const rows: Row[] = [
      {
        id: 7,
        measure: `Timeout: every process gone, after deadline ${label}`,
        moat: { stat: g, unit: "ms" },
        baseline: { stat: b, unit: "ms" },
        baselineLabel: "coreutils `timeout -s KILL 1`",
        compare: difference(g.median, b.median, "ms"),
        target: "≤ 200 ms",
        met: g.median <= 200,
        note: "bash tool call with timeout 1 s through the pipeline; the deadline is 1 s after " +
          "the call started; both sleeps are watched by pid in /proc (zombies count as gone). " +
          "The baseline runs the same command under `timeout -s KILL 1` (kills its group).",
      },
      {
        id: 7,
        measure: "Timeout: tool result returned, after deadline",
        moat: { stat: summarize(returned), unit: "ms" },
      },
    ];
    return rows;
  },
};
