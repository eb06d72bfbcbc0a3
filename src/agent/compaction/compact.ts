/**
 * One compaction of a history at a given strength: prune old tool results, and when that is not
 * enough, summarise the older part with one tool-less model request. Pure apart from that request.
 */
import {
  addUsage,
  type Message,
  type ModelClient,
  ModelError,
  type ToolCallBlock,
  type ToolResult,
  type Usage,
} from "../../model/types.ts";
import { estimateMessagesTokens, estimateMessageTokens } from "./estimate.ts";
import { pruneToolResults } from "./prune.ts";
import {
  charsForTokens,
  keptUserMessages,
  summaryMessage,
  summaryOverheadTokens,
  summaryRequest,
  tailStart,
  transcriptOf,
} from "./summary.ts";

/**
 * How hard to compact: 0 before a request that would not fit, 1 and 2 after the server still
 * reported an overflow (smaller kept tail, fewer protected results).
 */
export type CompactionLevel = 0 | 1 | 2;

/** Fractions of the message budget each level keeps. */
const LEVELS: Record<
  CompactionLevel,
  { keepResults: number; pruneTarget: number; pruneEnough: number; tail: number; users: number }
> = {
  0: { keepResults: 0.35, pruneTarget: 0.5, pruneEnough: 0.7, tail: 0.3, users: 0.15 },
  1: { keepResults: 0.15, pruneTarget: 0.3, pruneEnough: 0.5, tail: 0.15, users: 0.12 },
  2: { keepResults: 0, pruneTarget: 0.2, pruneEnough: 0.35, tail: 0.05, users: 0.1 },
};

/** What one compaction works with. */
export interface CompactStep {
  history: readonly Message[];
  /** Estimated tokens (raw, uncalibrated) the messages may take in a request. */
  messageBudget: number;
  /** The model's context window, for the summary request's own size. */
  window: number;
  /** Real/estimated token ratio (≥ 1). */
  calibration: number;
  level: CompactionLevel;
  /** Summarise even when pruning would do (/compact). */
  force?: boolean;
  /** What the user asked the summary to focus on (/compact …). */
  focus?: string;
}

/** What one compaction needs from outside. */
export interface CompactDeps {
  model: ModelClient;
  signal: AbortSignal;
  /** The tool's prunedHint for a call, when it has one. Must not throw. */
  hint: (call: ToolCallBlock, result: ToolResult) => string | undefined;
  temperature?: number;
}

/** How one compaction ended. */
export type CompactStepResult =
  | {
    type: "compacted";
    messages: Message[];
    method: "prune" | "summary";
    /** Raw estimated tokens of the new messages. */
    tokens: number;
    summary?: string;
    modelCalls: number;
    usage?: Usage;
  }
  /**
   * Nothing could be removed at this level; `larger` when the summary written would have been
   * bigger than the messages it replaces (raw estimated tokens of both).
   */
  | {
    type: "unchanged";
    modelCalls: number;
    usage?: Usage;
    larger?: { summaryTokens: number; replacedTokens: number };
  }
  | { type: "aborted"; modelCalls: number; usage?: Usage };

/** The summary's output budget for a window. */
export function summaryTokens(window: number): number {
  return Math.max(512, Math.min(4096, Math.floor(window * 0.08)));
}

/**
 * Compacts `step.history` at `step.level`. Rejects with the model's ModelError when the summary
 * request fails for another reason than its own size; `history` is never changed.
 */
export async function compactStep(
  step: CompactStep,
  deps: CompactDeps,
): Promise<CompactStepResult> {
  const level = LEVELS[step.level];
  const budget = Math.max(0, step.messageBudget);
  const before = estimateMessagesTokens(step.history);
  const pruned = pruneToolResults(step.history, {
    keepRecentTokens: Math.floor(budget * level.keepResults),
    targetTokens: Math.floor(budget * level.pruneTarget),
    hint: deps.hint,
  });
  const pruneHelped = pruned.tokens < before;
  if (pruneHelped && !step.force && pruned.tokens <= budget * level.pruneEnough) {
    return {
      type: "compacted",
      messages: pruned.messages,
      method: "prune",
      tokens: pruned.tokens,
      modelCalls: 0,
    };
  }
  const fallback = (calls: number, usage?: Usage): CompactStepResult =>
    pruneHelped
      ? {
        type: "compacted",
        messages: pruned.messages,
        method: "prune",
        tokens: pruned.tokens,
        modelCalls: calls,
        ...(usage === undefined ? {} : { usage }),
      }
      : { type: "unchanged", modelCalls: calls, ...(usage === undefined ? {} : { usage }) };

  // /compact summarises everything but a message still waiting for its answer.
  const cut = tailStart(pruned.messages, step.force ? 0 : Math.floor(budget * level.tail));
  const head = step.history.slice(0, cut);
  const users = keptUserMessages(head, Math.floor(budget * level.users));
  // Nothing but the user's own messages before the tail: a summary would not remove anything.
  if (head.length <= users.length) return fallback(0);

  const outputTokens = summaryTokens(step.window);
  let availableTokens = Math.floor(step.window / step.calibration) - outputTokens -
    summaryOverheadTokens() - Math.floor(step.window * 0.05);
  let calls = 0;
  let usage: Usage | undefined;
  for (let attempt = 0; attempt < 2 && availableTokens > 200; attempt++) {
    const maxChars = charsForTokens(availableTokens);
    const results = head.filter((m) => m.role === "toolResult").length;
    const transcript = transcriptOf(head, {
      maxChars,
      maxResultChars: Math.max(200, Math.min(4000, Math.floor(maxChars / (2 * results + 1)))),
    });
    const options: Parameters<typeof summaryRequest>[1] = { maxOutputTokens: outputTokens };
    if (step.focus !== undefined) options.focus = step.focus;
    if (deps.temperature !== undefined) options.temperature = deps.temperature;
    let reply;
    try {
      calls++;
      reply = await deps.model.stream(summaryRequest(transcript, options), {
        signal: deps.signal,
      });
    } catch (e) {
      // The summary request was itself too long (the estimate ran low): try once with half.
      if (e instanceof ModelError && e.kind === "context_overflow") {
        availableTokens = Math.floor(availableTokens / 2);
        continue;
      }
      throw e;
    }
    if (reply === null) return { type: "aborted", modelCalls: calls, ...(usage ? { usage } : {}) };
    usage = usage === undefined ? reply.usage : addUsage(usage, reply.usage);
    const text = reply.blocks.map((b) => b.type === "text" ? b.text : "").join("").trim();
    if (text === "") return fallback(calls, usage);
    const headTokens = estimateMessagesTokens(head);
    const written = summaryMessage(text, { messages: head.length, tokens: headTokens });
    const messages: Message[] = [...users, written, ...pruned.messages.slice(cut)];
    // A compaction never makes the history larger: a summary longer than what it replaces is
    // dropped (the stubs alone, when they helped, still are a compaction).
    if (estimateMessagesTokens(messages) >= pruned.tokens) {
      const result = fallback(calls, usage);
      if (result.type !== "unchanged") return result;
      const replacedTokens = headTokens - estimateMessagesTokens(users);
      return {
        ...result,
        larger: { summaryTokens: estimateMessageTokens(written), replacedTokens },
      };
    }
    return {
      type: "compacted",
      messages,
      method: "summary",
      tokens: estimateMessagesTokens(messages),
      summary: text,
      modelCalls: calls,
      usage,
    };
  }
  return fallback(calls, usage);
}
