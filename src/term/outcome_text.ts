/**
 * How a run's outcome is told: the stderr line of a compaction or a limit, and moat's own summary
 * of the work when a limit stopped the run before the model could report.
 */
import { type CompactionEndEvent, type LimitName, limitPhrase, LIMITS } from "../agent/mod.ts";
import type { RunStats, RunSummary } from "../report/mod.ts";
import { formatCost } from "../report/usage.ts";

const count = (n: number) => n.toLocaleString("en-US");

/** The one stderr line of a compaction, or null when it changed nothing worth a line. */
export function compactionLine(event: CompactionEndEvent): string | null {
  const seconds = `${(event.durationMs / 1000).toFixed(1)} s`;
  const how = event.method === "summary"
    ? "summarised the older part"
    : "replaced old tool results with stubs";
  switch (event.outcome) {
    case "compacted":
      // /compact was asked for: it says what it did, not why (the window did not ask).
      return event.reason === "manual"
        ? `moat: compacted ${count(event.tokensBefore)} → ${count(event.tokensAfter)} tokens ` +
          `(manual): ${how} (${seconds})`
        : `moat: compacted the conversation to fit the context window: ${how}, ` +
          `${count(event.tokensBefore)} → ${count(event.tokensAfter)} tokens (${seconds})`;
    case "exhausted":
      return event.method === undefined
        ? null
        : `moat: compacted the conversation (${how}), but it still does not fit: ` +
          `${count(event.tokensBefore)} → ${count(event.tokensAfter)} tokens`;
    case "unchanged":
      // /compact says itself why nothing changed.
      return event.reason === "manual"
        ? null
        : "moat: the conversation could not be compacted further";
    case "aborted":
      return "moat: compaction stopped";
    default: {
      const never: never = event.outcome;
      return never;
    }
  }
}

/** The stderr line of a run that a limit stopped. */
export function limitLine(summary: RunSummary): string {
  const limit = summary.limit ?? "max_turns";
  const { name, flag } = LIMITS[limit];
  const answered = summary.finalAnswer === true
    ? "the answer above is the model's report of what it did and what remains"
    : "the model gave no final report; the summary above is moat's";
  return `stopped after ${summary.turns} turn(s): the ${name} was reached (raise it with ${flag}); ${answered}`;
}

/** What the run did, from its events: for a run a limit stopped before the model could report. */
export function workSummary(stats: RunStats, limit: LimitName): string {
  const lines = [
    `moat stopped the run at its ${limitPhrase(limit)} after ${stats.turns} turn(s) and ` +
    `${stats.toolCalls} tool call(s), before the model could report on its work.`,
  ];
  if (stats.changed.length > 0) lines.push(`Files changed: ${stats.changed.join(", ")}.`);
  const commands = stats.commands.slice(-5);
  if (commands.length > 0) {
    lines.push(
      `${stats.commands.length > 5 ? "Last commands run" : "Commands run"}: ${
        commands.map((c) => JSON.stringify(c.length > 120 ? `${c.slice(0, 120)}…` : c)).join(", ")
      }.`,
    );
  }
  if (stats.lastText.trim() !== "") {
    const last = stats.lastText.trim();
    lines.push(`The model's last message: ${last.length > 600 ? `${last.slice(0, 600)}…` : last}`);
  }
  return lines.join("\n");
}

/** The --verbose footer: turns, tool calls, tokens (in, cached, out), requests, retries, cost. */
export function footerLine(summary: RunSummary): string {
  const u = summary.usage;
  const cached = u.cachedTokens > 0 ? ` (${count(u.cachedTokens)} cached)` : "";
  const retries = summary.retries > 0 ? `, ${summary.retries} retried` : "";
  const cost = summary.cost === undefined ? "" : ` · cost ${formatCost(summary.cost)}`;
  return `${summary.turns} turn(s) · ${summary.toolCalls} tool call(s), ${summary.failed} ` +
    `failed, ${summary.denied} denied · tokens: ${count(u.inputTokens)} in${cached}, ` +
    `${count(u.outputTokens)} out · ${summary.requests} model request(s)${retries}${cost}`;
}
