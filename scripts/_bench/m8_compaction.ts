/**
 * Measure 8: compaction of a long history — tokens before and after, and the time it takes
 * (moat's own work; the summary request goes to an in-process model that answers at once, so
 * the figure excludes a real model's latency). Baseline: estimating the same history once.
 */
import {
  type AgentEvent,
  type CompactionEndEvent,
  createContextKeeper,
  createContextState,
  estimateMessagesTokens,
} from "../../src/agent/mod.ts";
import type { AssistantMessage, Message, ModelClient } from "../../src/model/types.ts";
import type { Measure } from "./measure.ts";
import { summarize } from "./stats.ts";
import { ratio, type Row } from "./table.ts";

const WINDOW = 128_000;

/** A history of `turns` reads of ~12 KB files, each with its call and result. */
function longHistory(turns: number): Message[] {
  const history: Message[] = [{ role: "user", content: "Read every file and fix the bug." }];
  const page = "const value = compute(input, options); // a line of code\n".repeat(210);
  for (let i = 0; i < turns; i++) {
    const id = `call_${i}`;
    history.push({
      role: "assistant",
      blocks: [{ type: "toolCall", id, name: "read", arguments: { path: `src/f${i}.ts` } }],
      stopReason: "toolUse",
      usage: { inputTokens: 0, outputTokens: 0, cachedTokens: 0, totalTokens: 0 },
    });
    history.push({
      role: "toolResult",
      results: [{ toolCallId: id, toolName: "read", content: page, isError: false }],
    });
  }
  return history;
}

const instantModel: ModelClient = {
  stream(): Promise<AssistantMessage> {
    return Promise.resolve({
      role: "assistant",
      blocks: [{ type: "text", text: '## User requests\n"Read every file and fix the bug."' }],
      stopReason: "stop",
      usage: { inputTokens: 0, outputTokens: 0, cachedTokens: 0, totalTokens: 0 },
    });
  },
};

async function compactOnce(
  history: Message[],
  reason: "threshold" | "manual",
): Promise<{ ms: number; end: CompactionEndEvent }> {
  let end: CompactionEndEvent | undefined;
  const keeper = createContextKeeper({
    state: createContextState({ window: WINDOW, source: "flag" }),
    model: instantModel,
    system: "You are a coding agent.",
    tools: [],
    clock: { now: () => performance.now() },
    emit: (event: AgentEvent) => {
      if (event.type === "compaction_end") end = event;
    },
  });
  const started = performance.now();
  await keeper.fit(history, { reason, signal: new AbortController().signal });
  const ms = performance.now() - started;
  if (end === undefined) throw new Error("the history was not compacted");
  return { ms, end };
}

/** Measure 8. */
export const compaction: Measure = {
  id: 8,
  name: "compaction",
  title: "Compaction of a long history",
  async run(env) {
    const turns = 60;
    const rows: Row[] = [];
    for (const reason of ["threshold", "manual"] as const) {
      const times: number[] = [];
      const estimates: number[] = [];
      let last: CompactionEndEvent | undefined;
      for (let i = 0; i < Math.max(3, env.options.runs); i++) {
        const history = longHistory(turns);
        const t = performance.now();
        // A fresh array: the estimate's per-message cache must not help the compaction.
        estimateMessagesTokens(longHistory(turns));
        estimates.push(performance.now() - t);
        const { ms, end } = await compactOnce(history, reason);
        times.push(ms);
        last = end;
      }
      const m = summarize(times);
      const b = summarize(estimates);
      const method = last?.method ?? "none";
      rows.push({
        id: 8,
        measure: `Compaction: ${
          method === "prune" ? "prune (no model call)" : "summary (instant model)"
        }, ${last?.tokensBefore.toLocaleString("en")} → ${
          last?.tokensAfter.toLocaleString("en")
        } tokens`,
        moat: { stat: m, unit: "ms" },
        baseline: { stat: b, unit: "ms" },
        baselineLabel: "estimate of the history",
        compare: ratio(m.median, b.median),
        target: "≤ 100 ms",
        met: m.median <= 100,
        note: `${turns} reads of 12 KB in a ${
          WINDOW.toLocaleString("en")
        }-token window; "${reason}" compaction (${
          reason === "manual"
            ? "/compact: always summarises"
            : "before a request that would not fit"
        }). Tokens are moat's high-side estimates; ${last?.messagesBefore} → ${last?.messagesAfter} messages.`,
      });
    }
    return rows;
  },
};
