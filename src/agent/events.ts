/**
 * What a run reports: the events it emits (for UIs, JSONL output and sessions; a union tagged by
 * `type`) and the result it ends with.
 */
import type {
  AssistantMessage,
  Message,
  ModelRetry,
  ModelStreamOptions,
  ToolResult,
  Usage,
} from "../model/types.ts";
import type { ToolUpdate } from "./tool.ts";

/** Which limit stopped a run. */
export type LimitName =
  | "max_turns"
  | "max_wall_time"
  | "max_tool_calls"
  | "max_tokens_total"
  | "max_cost";

/** Which health signal fired. */
export type HealthSignalKind = "repeated_calls" | "failing_edits";

/**
 * How a run ended: maxIterations = the turn limit, limitReached = another limit (see `limit`),
 * contextExhausted = even a compacted history did not fit the context window.
 */
export type AgentStopReason =
  | "completed"
  | "aborted"
  | "maxIterations"
  | "limitReached"
  | "contextExhausted";

/** Why a compaction ran: a request would not fit, the server reported an overflow, or /compact. */
export type CompactionReason = "threshold" | "overflow" | "manual";

/** How a compaction ended. */
export type CompactionOutcome = "compacted" | "unchanged" | "aborted" | "exhausted";

/** The `compaction_end` event: what a compaction did (tokens are estimates). */
export interface CompactionEndEvent {
  type: "compaction_end";
  reason: CompactionReason;
  outcome: CompactionOutcome;
  /** What removed the most: stubs for old tool results, or a model-written summary. */
  method?: "prune" | "summary";
  /** Summary requests made (requests, not turns; their usage counts as the run's). */
  modelCalls: number;
  usage: Usage;
  tokensBefore: number;
  tokensAfter: number;
  messagesBefore: number;
  messagesAfter: number;
  durationMs: number;
  /** The model's context window the compaction aimed at, when known. */
  window?: number;
  /** The summary text, when a summary was written. */
  summary?: string;
  /** The new history, when compacted (what a session records). */
  messages?: Message[];
  /**
   * A summary was written but dropped: it was not smaller than the messages it would replace
   * (estimated tokens of both).
   */
  summaryLarger?: { summaryTokens: number; replacedTokens: number };
}

/** The outcome of `runAgentLoop`. */
export interface AgentRunResult {
  stopReason: AgentStopReason;
  /**
   * Turns of this run: model requests with tools that got a reply (what `maxIterations`
   * counts). Compaction summaries and the report request at a limit are not turns.
   */
  turns: number;
  /** The final reply ended on the output token limit. */
  truncated?: boolean;
  /** Why the history did not fit (stopReason contextExhausted): a sentence for the user. */
  exhausted?: string;
  /** The limit that stopped the run (stopReason maxIterations or limitReached). */
  limit?: LimitName;
  /** With a limit: whether the model gave a final answer without tools. */
  finalAnswer?: boolean;
  /** An afterToolCall hook asked to end the run. */
  terminated?: boolean;
  /** Sum of the usage of every reply in this run. */
  usage: Usage;
}

/** Everything `runAgentLoop` reports through `onEvent`. */
export type AgentEvent =
  /** A turn's model request (with tools) is about to be sent (1-based). */
  | { type: "turn_start"; turn: number }
  /** A limit stopped the run: the request for the model's report, without tools, is sent. */
  | { type: "report_start"; limit: LimitName }
  /** The model started a reply. */
  | { type: "message_start" }
  /** A model request failed and is tried again; what its attempt streamed is discarded. */
  | ({ type: "model_retry" } & ModelRetry)
  /** Streamed reply text. */
  | { type: "text_delta"; delta: string }
  /** Streamed reasoning of the model (never part of the answer). */
  | { type: "thinking_delta"; delta: string }
  /** The model client has something to tell the user about the server (e.g. a setting to fix). */
  | { type: "model_warning"; message: string }
  /** The complete reply, with usage; `report` marks the reply to the report request. */
  | { type: "message_end"; message: AssistantMessage; report?: true }
  /** A message was pushed to history (in history order). */
  | { type: "message_saved"; message: Message }
  /** A call was registered (it may still wait for its turn). */
  | { type: "tool_start"; toolCallId: string; name: string; args: unknown }
  /** A call's execution actually started. */
  | { type: "tool_running"; toolCallId: string; name: string }
  /**
   * Live progress of a running call (between its `tool_running` and `tool_settled`, never after):
   * the tool's latest update, and the time since the call started running.
   */
  | {
    type: "tool_update";
    toolCallId: string;
    name: string;
    update: ToolUpdate;
    /** Milliseconds since `tool_running` of this call (the run's clock). */
    elapsedMs: number;
  }
  /** A call finished (completion order); durationMs excludes queue time. */
  | {
    type: "tool_settled";
    toolCallId: string;
    name: string;
    result: ToolResult;
    durationMs: number;
  }
  /** A call finished, delivered strictly in call order. */
  | {
    type: "tool_end";
    toolCallId: string;
    name: string;
    args: unknown;
    result: ToolResult;
    durationMs: number;
    display?: string;
    blocked?: { source: string; reason: string };
  }
  /** The history is about to be compacted to fit the context window. */
  | {
    type: "compaction_start";
    reason: CompactionReason;
    /** Estimated tokens of the next request before compaction. */
    tokens: number;
    window?: number;
  }
  | CompactionEndEvent
  /** A health signal (informational; the loop does not act on it). */
  | { type: "health"; signal: HealthSignalKind; message: string; count: number }
  /** The run returned (not emitted when it rejects). */
  | { type: "agent_end"; result: AgentRunResult };

/** An event sink that never throws: errors from `onEvent` are swallowed. */
export function safeEmitter(
  onEvent: ((e: AgentEvent) => void) | undefined,
): (e: AgentEvent) => void {
  if (onEvent === undefined) return () => {};
  return (e) => {
    try {
      onEvent(e);
    } catch {
      // A broken sink (e.g. a closed pipe in the UI) must never break the run or its history.
    }
  };
}

/** Stream callbacks that pass a reply's start, its text and every retry on as agent events. */
export function forwardStream(
  emit: (e: AgentEvent) => void,
): Required<Pick<ModelStreamOptions, "onEvent" | "onRetry">> {
  return {
    onEvent(event) {
      if (event.type === "message_start") emit({ type: "message_start" });
      else if (event.type === "text_delta") emit({ type: "text_delta", delta: event.delta });
      else if (event.type === "thinking_delta") {
        emit({ type: "thinking_delta", delta: event.delta });
      } else if (event.type === "warning") emit({ type: "model_warning", message: event.message });
    },
    onRetry: (retry) => emit({ type: "model_retry", ...retry }),
  };
}
