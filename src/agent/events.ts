/**
 * What a run reports: the events it emits (for UIs, JSONL output and sessions; a union tagged by
 * `type`) and the result it ends with.
 */
import type { AssistantMessage, Message, ToolResult, Usage } from "../model/types.ts";
import type { ToolUpdate } from "./tool.ts";

/** Which health signal fired. */
export type HealthSignalKind = "repeated_calls" | "failing_edits";

/** How a run ended. */
export type AgentStopReason = "completed" | "aborted" | "maxIterations";

/** The outcome of `runAgentLoop`. */
export interface AgentRunResult {
  stopReason: AgentStopReason;
  /** Assistant replies received in this run. */
  turns: number;
  /** The final reply ended on the output token limit. */
  truncated?: boolean;
  /** An afterToolCall hook asked to end the run. */
  terminated?: boolean;
  /** Sum of the usage of every reply in this run. */
  usage: Usage;
}

/** Everything `runAgentLoop` reports through `onEvent`. */
export type AgentEvent =
  /** A model request is about to be sent (1-based). */
  | { type: "turn_start"; turn: number }
  /** The model started a reply. */
  | { type: "message_start" }
  /** Streamed reply text. */
  | { type: "text_delta"; delta: string }
  /** The complete reply, with usage. */
  | { type: "message_end"; message: AssistantMessage }
  /** A message was pushed to history (in history order). */
  | { type: "message_saved"; message: Message }
  /** A call was registered (it may still wait for its turn). */
  | { type: "tool_start"; toolCallId: string; name: string; args: unknown }
  /** A call's execution actually started. */
  | { type: "tool_running"; toolCallId: string; name: string }
  /** Live progress of a running call. */
  | { type: "tool_update"; toolCallId: string; name: string; update: ToolUpdate }
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
