/** How text mode tells the user about a compaction: one stderr line. */
import type { CompactionEndEvent } from "../agent/mod.ts";

const count = (n: number) => n.toLocaleString("en-US");

/** The one stderr line of a compaction, or null when it changed nothing worth a line. */
export function compactionLine(event: CompactionEndEvent): string | null {
  const seconds = `${(event.durationMs / 1000).toFixed(1)} s`;
  const how = event.method === "summary"
    ? "summarised the older part"
    : "replaced old tool results with stubs";
  switch (event.outcome) {
    case "compacted":
      return `moat: compacted the conversation to fit the context window: ${how}, ` +
        `${count(event.tokensBefore)} → ${count(event.tokensAfter)} tokens (${seconds})`;
    case "exhausted":
      return event.method === undefined
        ? null
        : `moat: compacted the conversation (${how}), but it still does not fit: ` +
          `${count(event.tokensBefore)} → ${count(event.tokensAfter)} tokens`;
    case "unchanged":
      return "moat: the conversation could not be compacted further";
    case "aborted":
      return "moat: compaction stopped";
    default: {
      const never: never = event.outcome;
      return never;
    }
  }
}
