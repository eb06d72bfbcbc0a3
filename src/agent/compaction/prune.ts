/**
 * Pruning, the first and cheapest step of compaction: old tool results become short stubs that
 * keep the call and say how to get the content again. No model call; every call keeps exactly
 * one result.
 */
import type {
  AssistantMessage,
  Message,
  ToolCallBlock,
  ToolResult,
  ToolResultMessage,
} from "../../model/types.ts";
import { estimateMessagesTokens, estimateMessageTokens } from "./estimate.ts";

/** `details` of a result that pruning replaced; the original details are kept for UIs. */
export interface PrunedDetails {
  pruned: { chars: number; lines: number };
  details?: unknown;
}

/** Options of pruneToolResults. */
export interface PruneOptions {
  /** The newest tool results within this many tokens stay as they are (0: none is protected). */
  keepRecentTokens: number;
  /** Oldest results are pruned first until the messages are estimated at most this many tokens. */
  targetTokens: number;
  /** How to get one result back (the tool's `prunedHint`), or undefined. Must not throw. */
  hint?: (call: ToolCallBlock, result: ToolResult) => string | undefined;
}

/** Results smaller than this stay: their stub would save next to nothing. */
const MIN_PRUNE_CHARS = 600;
/** Tool call arguments longer than this (a write's content) are shortened in pruned turns. */
const MAX_OLD_ARGUMENT_CHARS = 1000;

/** True when compaction already replaced this result with a stub. */
export function isPrunedResult(result: ToolResult): boolean {
  const details = result.details as Partial<PrunedDetails> | undefined;
  return typeof details === "object" && details !== null && details.pruned !== undefined;
}

function contentText(result: ToolResult): { chars: number; lines: number } {
  if (typeof result.content === "string") {
    return { chars: result.content.length, lines: result.content.split("\n").length };
  }
  let chars = 0;
  let lines = 0;
  for (const block of result.content) {
    if (block.type === "text") {
      chars += block.text.length;
      lines += block.text.split("\n").length;
    } else chars += block.data.length;
  }
  return { chars, lines };
}

/** The call's arguments in at most ~300 characters, strings clipped. */
export function argumentsPreview(args: unknown): string {
  const clip = (value: unknown): unknown => {
    if (typeof value === "string") return value.length > 120 ? `${value.slice(0, 120)}…` : value;
    if (Array.isArray(value)) return value.slice(0, 10).map(clip);
    if (typeof value === "object" && value !== null) {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, clip(v)]));
    }
    return value;
  };
  const text = JSON.stringify(clip(args)) ?? "";
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}

function stub(call: ToolCallBlock | undefined, result: ToolResult, hint: string | undefined) {
  const { chars, lines } = contentText(result);
  const name = call?.name ?? result.toolName;
  const args = call === undefined ? "" : argumentsPreview(call.arguments);
  const outcome = result.isError ? "failed with" : "returned";
  const how = hint ?? "Call the tool again if you need its output.";
  const text =
    `[Result removed to keep the conversation within the context window: ${name}(${args}) ` +
    `${outcome} ${lines} line(s), ${chars} characters. ${how}]`;
  const details: PrunedDetails = { pruned: { chars, lines } };
  if (result.details !== undefined) details.details = result.details;
  const out: ToolResult = {
    toolCallId: result.toolCallId,
    toolName: result.toolName,
    content: text,
    isError: result.isError,
    details,
  };
  return out;
}

/** A string value of the arguments cut to a note when it is long (e.g. a written file's content). */
function shortenArguments(args: unknown): unknown {
  if (typeof args !== "object" || args === null || Array.isArray(args)) return args;
  let changed = false;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(args)) {
    if (typeof value === "string" && value.length > MAX_OLD_ARGUMENT_CHARS) {
      changed = true;
      out[key] = `${value.slice(0, 200)}… (${
        value.length - 200
      } more characters removed to keep the conversation within the context window)`;
    } else out[key] = value;
  }
  return changed ? out : args;
}

function shortenCalls(message: AssistantMessage): AssistantMessage {
  let changed = false;
  const blocks = message.blocks.map((block) => {
    if (block.type !== "toolCall" || block.invalidJson !== undefined) return block;
    const args = shortenArguments(block.arguments);
    if (args === block.arguments) return block;
    changed = true;
    return { ...block, arguments: args };
  });
  return changed ? { ...message, blocks } : message;
}

/**
 * Replaces old tool results with stubs, oldest first, until the messages are estimated at most
 * `targetTokens` (or nothing prunable is left). Returns new arrays; `messages` is not changed.
 */
export function pruneToolResults(
  messages: readonly Message[],
  options: PruneOptions,
): { messages: Message[]; pruned: number; tokens: number } {
  const out = [...messages];
  let tokens = estimateMessagesTokens(out);
  // The newest results within keepRecentTokens are protected.
  let protectedFrom = out.length;
  let recent = 0;
  for (let i = out.length - 1; i >= 0 && options.keepRecentTokens > 0; i--) {
    const message = out[i] as Message;
    if (message.role !== "toolResult") continue;
    recent += estimateMessageTokens(message);
    if (recent > options.keepRecentTokens && protectedFrom < out.length) break;
    protectedFrom = i;
  }
  let pruned = 0;
  for (let i = 0; i < protectedFrom && tokens > options.targetTokens; i++) {
    const message = out[i] as Message;
    if (message.role !== "toolResult") continue;
    const owner = out[i - 1];
    const calls = owner?.role === "assistant"
      ? owner.blocks.filter((b): b is ToolCallBlock => b.type === "toolCall")
      : [];
    let changed = false;
    const results = message.results.map((result) => {
      if (isPrunedResult(result) || contentText(result).chars < MIN_PRUNE_CHARS) return result;
      const call = calls.find((c) => c.id === result.toolCallId);
      changed = true;
      pruned++;
      return stub(call, result, call === undefined ? undefined : options.hint?.(call, result));
    });
    if (changed) {
      const replaced: ToolResultMessage = { role: "toolResult", results };
      tokens += estimateMessageTokens(replaced) - estimateMessageTokens(message);
      out[i] = replaced;
    }
    if (owner?.role === "assistant") {
      const shortened = shortenCalls(owner);
      if (shortened !== owner) {
        tokens += estimateMessageTokens(shortened) - estimateMessageTokens(owner);
        out[i - 1] = shortened;
      }
    }
  }
  return { messages: out, pruned, tokens };
}
