/**
 * Progress that says something: the tokens the model has streamed so far on the spinner
 * (`thinking… · 3s · ~120 tokens`), and in interactive mode a dim status line after each answer:
 * model, context used, the run's tokens and its cost when prices are set
 * (`gpt-4.1 · context 12% of 128k · tokens: 3,210 in · 420 out · cost 0.0123`).
 */
import type { AgentEvent } from "../../agent/mod.ts";
import type { Usage } from "../../model/types.ts";
import type { RunSummary } from "../../report/mod.ts";
import { formatCost, formatCount, usageLine } from "../../report/usage.ts";
import { escapeUnsafe } from "../terminal_text.ts";
import type { Screen } from "./_screen.ts";

/** The events the progress and the status line read. */
export type StatusEvent = Extract<
  AgentEvent,
  { type: "turn_start" | "report_start" | "thinking_delta" | "text_delta" | "message_end" }
>;

/** What the status line tells. */
export interface StatusInfo {
  /** The model that answered; left out off a TTY (the line is then the usage alone, as before). */
  model?: string;
  /** The model's context window in tokens, when known. */
  window?: number;
  /** What the conversation holds now: the last reply's input and output tokens. */
  contextTokens: number;
  /** The run's tokens. */
  usage: Usage;
  /** What `usage` cost, when prices are set. */
  cost?: number;
}

/** A window in short: `128k`, `1M`, `1.5M`, `900`. */
export function shortTokens(n: number): string {
  if (n >= 1_000_000) return `${Number((n / 1_000_000).toFixed(1))}M`;
  if (n >= 1000) return `${Math.floor(n / 1000)}k`;
  return String(n);
}

/** The share of the window in use: `12%`, `<1%` (never 0% for a conversation that holds tokens). */
function percent(tokens: number, window: number): string {
  const share = Math.round((tokens / window) * 100);
  return share === 0 && tokens > 0 ? "<1%" : `${share}%`;
}

/** The status line's text, or null when there is nothing to tell. */
export function statusLine(info: StatusInfo): string | null {
  const parts: string[] = [];
  if (info.model !== undefined) {
    parts.push(escapeUnsafe(info.model));
    if (info.contextTokens > 0) {
      parts.push(
        info.window !== undefined && info.window > 0
          ? `context ${percent(info.contextTokens, info.window)} of ${shortTokens(info.window)}`
          : `context ${formatCount(info.contextTokens)} (window unknown)`,
      );
    }
  }
  const used = usageLine(info.usage, undefined);
  if (used !== null) {
    parts.push(info.cost === undefined ? used : `${used} · cost ${formatCost(info.cost)}`);
  }
  return parts.length === 0 ? null : parts.join(" · ");
}

/** The progress on the spinner and the status line of a run. */
export interface StatusView {
  event(event: StatusEvent): void;
  /** The status line after the answer (interactive mode with `statusLine` only). */
  end(summary: RunSummary): void;
}

/** Streamed characters per token, for the spinner's estimate. */
const CHARS_PER_TOKEN = 4;

/** Creates the status part of the renderer (events go here after the answer's part). */
export function createStatusView(screen: Screen): StatusView {
  const { spinner, options } = screen;
  const now = () => options.clock?.now() ?? 0;
  let requestStart = 0;
  let streamed = 0;
  let contextTokens = 0;
  return {
    event(event: StatusEvent) {
      switch (event.type) {
        case "turn_start":
        case "report_start":
          requestStart = now();
          streamed = 0;
          // The answer's part has just shown "thinking…": its time is the request's.
          if (spinner.label !== null) spinner.relabel(spinner.label, requestStart);
          return;
        case "thinking_delta":
        case "text_delta":
          streamed += event.delta.length;
          spinner.progress(Math.round(streamed / CHARS_PER_TOKEN));
          // Text that is not shown as it streams (stdout is not a terminal) is still progress.
          if (event.type === "text_delta" && spinner.label === "thinking…") {
            spinner.relabel("answering…", requestStart);
          }
          return;
        case "message_end": {
          const u = event.message.usage;
          if (u.inputTokens + u.outputTokens > 0) contextTokens = u.inputTokens + u.outputTokens;
          return;
        }
        default: {
          const never: never = event;
          return never;
        }
      }
    },
    end(summary: RunSummary) {
      const held = contextTokens;
      contextTokens = 0;
      if (options.statusLine !== true) return;
      const line = statusLine({
        // Off a terminal the line stays the usage alone, as it always was.
        ...(options.stderrIsTty && summary.model !== undefined ? { model: summary.model } : {}),
        ...(summary.contextWindow === undefined ? {} : { window: summary.contextWindow }),
        contextTokens: held,
        usage: summary.usage,
        ...(summary.cost === undefined ? {} : { cost: summary.cost }),
      });
      if (line !== null) screen.line(screen.c("2", line));
    },
  };
}
