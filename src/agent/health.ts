/**
 * Health signals: heuristics that the model may be stuck. Reported as events only; the loop never
 * acts on them.
 */
import type { AssistantMessage, ToolResult } from "../model/types.ts";
import type { HealthSignalKind } from "./events.ts";
import type { ToolKind } from "./tool.ts";
import type { Clock, HealthOptions } from "./types.ts";

/** Default consecutive identical tool-call turns before `repeated_calls`. */
const DEFAULT_REPEAT_THRESHOLD = 5;
/** Default failed write-kind results in a row before `failing_edits`. */
const DEFAULT_FAILING_EDITS = 3;
/** Default window for those failures (5 minutes). */
const DEFAULT_FAILING_EDITS_WINDOW_MS = 5 * 60_000;

/** One fired signal. */
export interface HealthSignal {
  signal: HealthSignalKind;
  message: string;
  count: number;
}

/** Watches one run. */
export interface HealthMonitor {
  /** Feeds one assistant reply; returns the signals it fired. */
  observeTurn(message: AssistantMessage): HealthSignal[];
  /** Feeds the results of one batch in call order with the kind of tool that produced each. */
  observeResults(
    results: ReadonlyArray<{ kind: ToolKind | undefined; result: ToolResult }>,
  ): HealthSignal[];
}

/** JSON with sorted object keys, so equal arguments compare equal whatever the key order. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** Creates a monitor with the given thresholds. */
export function createHealthMonitor(options: HealthOptions, clock: Clock): HealthMonitor {
  const repeatThreshold = Math.max(1, options.repeatThreshold ?? DEFAULT_REPEAT_THRESHOLD);
  const failingEdits = Math.max(1, options.failingEdits ?? DEFAULT_FAILING_EDITS);
  const windowMs = options.failingEditsWindowMs ?? DEFAULT_FAILING_EDITS_WINDOW_MS;

  let lastSignature: string | undefined;
  let repeats = 0;
  let failures: Array<{ at: number; name: string }> = [];

  return {
    observeTurn(message) {
      const calls = message.blocks.flatMap((b) =>
        b.type === "toolCall" ? [{ name: b.name, args: b.arguments }] : []
      );
      if (calls.length === 0) {
        lastSignature = undefined;
        repeats = 0;
        return [];
      }
      const signature = canonicalJson(calls);
      repeats = signature === lastSignature ? repeats + 1 : 1;
      lastSignature = signature;
      // Fire on reaching the threshold and again at each further multiple, not on every turn.
      if (repeats < repeatThreshold || repeats % repeatThreshold !== 0) return [];
      const names = calls.map((c) => c.name).join(", ");
      return [{
        signal: "repeated_calls",
        count: repeats,
        message: `The model made the same tool calls (${names}) with the same arguments in ` +
          `${repeats} consecutive turns; it may be stuck in a loop.`,
      }];
    },
    observeResults(results) {
      const fired: HealthSignal[] = [];
      for (const { kind, result } of results) {
        if (kind !== "write") continue;
        if (!result.isError) {
          failures = [];
          continue;
        }
        const now = clock.now();
        failures = failures.filter((f) => now - f.at <= windowMs);
        failures.push({ at: now, name: result.toolName });
        if (failures.length >= failingEdits) {
          const minutes = Math.round(windowMs / 6_000) / 10;
          fired.push({
            signal: "failing_edits",
            count: failures.length,
            message: `${failures.length} file changes failed in a row within ${minutes} min ` +
              `(${failures.map((f) => f.name).join(", ")}); the model may be struggling to edit.`,
          });
          failures = [];
        }
      }
      return fired;
    },
  };
}
