/**
 * How moat's agent events read in an editor: each AgentEvent as ACP `session/update`s (message
 * and thought chunks, tool calls with kind, title, locations and content), and a run's outcome as
 * an ACP stop reason. Pure: the caller sends what these return.
 */
import { isAbsolute, resolve } from "node:path";
import type * as acp from "@agentclientprotocol/sdk";
import type { AgentEvent } from "../agent/events.ts";
import type { AssistantMessage, ToolResult } from "../model/types.ts";
import { resultText } from "../report/mod.ts";
import { type RunOutcome, stopReasonOf } from "../cli/engine.ts";

/** Most characters of a tool's output shown in the editor (its tail). */
export const OUTPUT_TAIL_CHARS = 4000;

/** The ACP kind of a moat tool. */
export function toolKind(name: string): acp.ToolKind {
  switch (name) {
    case "read":
    case "ls":
      return "read";
    case "edit":
    case "write":
      return "edit";
    case "bash":
      return "execute";
    case "find":
    case "grep":
      return "search";
    default:
      return name.includes("fetch") ? "fetch" : "other";
  }
}

function field(args: unknown, name: string): unknown {
  return typeof args === "object" && args !== null
    ? (args as Record<string, unknown>)[name]
    : undefined;
}

function text(args: unknown, name: string): string | undefined {
  const value = field(args, name);
  return typeof value === "string" ? value : undefined;
}

function absolute(cwd: string, path: string): string {
  return isAbsolute(path) ? path : resolve(cwd, path);
}

/** A short title for the call, e.g. `read src/a.ts`, `bash: make test`. */
export function toolTitle(name: string, args: unknown): string {
  const path = text(args, "path");
  if (name === "bash") return `bash: ${(text(args, "command") ?? "").split("\n")[0]}`;
  if (name === "grep" || name === "find") {
    const pattern = text(args, "pattern");
    return `${name} ${pattern ?? ""}${path === undefined ? "" : ` in ${path}`}`.trim();
  }
  return path === undefined ? name : `${name} ${path}`;
}

/** The files a call touches, absolute, with the first line when known (the editor follows). */
export function toolLocations(name: string, args: unknown, cwd: string): acp.ToolCallLocation[] {
  const path = text(args, "path");
  if (path === undefined || name === "bash") return [];
  const offset = field(args, "offset");
  return [{ path: absolute(cwd, path), ...(typeof offset === "number" ? { line: offset } : {}) }];
}

/** What a finished call shows: a diff for an edit or a write, else the output's tail. */
export function toolContent(
  name: string,
  args: unknown,
  result: ToolResult,
  cwd: string,
): acp.ToolCallContent[] {
  const path = text(args, "path");
  if (!result.isError && path !== undefined && (name === "edit" || name === "write")) {
    if (name === "write") {
      return [{
        type: "diff",
        path: absolute(cwd, path),
        oldText: null,
        newText: text(args, "content") ?? "",
      }];
    }
    const edits = field(args, "edits");
    if (Array.isArray(edits)) {
      return edits.map((e) => ({
        type: "diff" as const,
        path: absolute(cwd, path),
        oldText: text(e, "oldText") ?? "",
        newText: text(e, "newText") ?? "",
      }));
    }
  }
  return outputContent(resultText(result.content));
}

function outputContent(output: string): acp.ToolCallContent[] {
  if (output === "") return [];
  const tail = output.length > OUTPUT_TAIL_CHARS ? `…${output.slice(-OUTPUT_TAIL_CHARS)}` : output;
  return [{ type: "content", content: { type: "text", text: tail } }];
}

/** The updates one agent event becomes (none for most bookkeeping events). */
export function updatesOf(event: AgentEvent, cwd: string): acp.SessionUpdate[] {
  switch (event.type) {
    case "text_delta":
      return [{
        sessionUpdate: "agent_message_chunk",
        content: { type: "text", text: event.delta },
      }];
    case "thinking_delta":
      return [{
        sessionUpdate: "agent_thought_chunk",
        content: { type: "text", text: event.delta },
      }];
    case "tool_start":
      return [{
        sessionUpdate: "tool_call",
        toolCallId: event.toolCallId,
        title: toolTitle(event.name, event.args),
        kind: toolKind(event.name),
        status: "pending",
        locations: toolLocations(event.name, event.args, cwd),
        rawInput: event.args as Record<string, unknown>,
      }];
    case "tool_running":
      return [{
        sessionUpdate: "tool_call_update",
        toolCallId: event.toolCallId,
        status: "in_progress",
      }];
    case "tool_update":
      return event.name === "bash"
        ? [{
          sessionUpdate: "tool_call_update",
          toolCallId: event.toolCallId,
          content: outputContent(event.update.text),
        }]
        : [];
    case "tool_end":
      return [{
        sessionUpdate: "tool_call_update",
        toolCallId: event.toolCallId,
        status: event.result.isError ? "failed" : "completed",
        content: toolContent(event.name, event.args, event.result, cwd),
      }];
    default:
      return [];
  }
}

/** The finish reasons of a model declining to answer (OpenAI's content_filter, others' words). */
const REFUSAL_FINISH = /content_filter|refusal|safety|moderation|blocked/i;

/** Whether a reply ended because the model (or its server's filter) refused to go on. */
export function isRefusal(reply: AssistantMessage): boolean {
  return reply.stopReason === "error" && REFUSAL_FINISH.test(reply.rawStopReason ?? "");
}

/**
 * The ACP stop reason of a settled run (errors are answered as JSON-RPC errors instead);
 * `lastReply` is the run's last model reply, which tells a refusal from a finished turn.
 */
export function acpStopReason(
  outcome: RunOutcome,
  aborted: boolean,
  options: { lastReply?: AssistantMessage } = {},
): acp.StopReason {
  if (aborted) return "cancelled";
  const result = outcome.result;
  // The CLI's own reading of the outcome (its error left out: the caller has answered it).
  switch (stopReasonOf(result === undefined ? {} : { result }, false)) {
    case "aborted":
      return "cancelled";
    case "maxIterations":
      return "max_turn_requests";
    case "limitReached":
      return result?.limit === "max_tokens_total" ? "max_tokens" : "max_turn_requests";
    default:
      if (options.lastReply !== undefined && isRefusal(options.lastReply)) return "refusal";
      return result?.truncated ? "max_tokens" : "end_turn";
  }
}
