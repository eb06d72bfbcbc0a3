/**
 * The one shared checker that a history is acceptable to the OpenAI Chat Completions API (and to
 * our session store): every assistant tool call is answered exactly once, in order, by the
 * immediately following toolResult message; no orphan or duplicate results; no unanswered calls
 * at the end; results hold only persistable fields.
 */
import { AssertionError } from "node:assert/strict";
import type { Message, ToolCallBlock } from "../../src/model/types.ts";

const STOP_REASONS = new Set(["stop", "toolUse", "maxTokens", "error"]);
const RESULT_KEYS = new Set(["toolCallId", "toolName", "content", "isError", "details"]);

function contentProblems(where: string, content: unknown): string[] {
  if (typeof content === "string") return [];
  if (!Array.isArray(content)) return [`${where}: content must be a string or an array of blocks`];
  const problems: string[] = [];
  content.forEach((block: Record<string, unknown>, i) => {
    if (block?.type === "text" && typeof block.text === "string") return;
    if (
      block?.type === "image" && typeof block.data === "string" &&
      typeof block.mimeType === "string"
    ) return;
    problems.push(`${where}: block ${i} is neither a text nor an image block`);
  });
  return problems;
}

/** Lists every way `history` would be rejected; empty when it is acceptable. */
export function historyProblems(history: readonly Message[]): string[] {
  const problems: string[] = [];
  let pending: ToolCallBlock[] = [];
  let pendingFrom = -1;

  history.forEach((message, i) => {
    const where = `history[${i}] (${message.role})`;
    if (pending.length > 0 && message.role !== "toolResult") {
      problems.push(
        `history[${pendingFrom}]: tool calls ${pending.map((c) => `"${c.id}"`).join(", ")} are ` +
          `not answered by the next message (${where} follows instead)`,
      );
      pending = [];
    }
    switch (message.role) {
      case "user": {
        problems.push(...contentProblems(where, message.content));
        const empty = typeof message.content === "string"
          ? message.content === ""
          : message.content.length === 0;
        if (empty) problems.push(`${where}: empty user message`);
        break;
      }
      case "assistant": {
        if (!STOP_REASONS.has(message.stopReason)) {
          problems.push(`${where}: unknown stopReason "${message.stopReason}"`);
        }
        const calls = message.blocks.filter((b): b is ToolCallBlock => b.type === "toolCall");
        const ids = new Set<string>();
        for (const call of calls) {
          if (typeof call.id !== "string" || call.id === "") {
            problems.push(`${where}: a tool call has no id`);
          } else if (ids.has(call.id)) problems.push(`${where}: tool call id "${call.id}" repeats`);
          ids.add(call.id);
          if (typeof call.name !== "string" || call.name === "") {
            problems.push(`${where}: tool call "${call.id}" has no name`);
          }
        }
        pending = calls;
        pendingFrom = i;
        break;
      }
      case "toolResult": {
        const previous = history[i - 1];
        if (previous?.role !== "assistant" || pending.length === 0) {
          problems.push(`${where}: orphan results (the previous message made no tool calls)`);
          break;
        }
        if (message.results.length !== pending.length) {
          problems.push(
            `${where}: ${message.results.length} results for ${pending.length} tool calls`,
          );
        }
        message.results.forEach((result, k) => {
          const call = pending[k];
          const at = `${where} result ${k}`;
          if (call === undefined) {
            problems.push(`${at}: orphan result for "${result.toolCallId}"`);
            return;
          }
          if (result.toolCallId !== call.id) {
            problems.push(`${at}: answers "${result.toolCallId}" but call ${k} is "${call.id}"`);
          }
          if (result.toolName !== call.name) {
            problems.push(`${at}: toolName "${result.toolName}" but the call is "${call.name}"`);
          }
          if (typeof result.isError !== "boolean") problems.push(`${at}: isError is not boolean`);
          problems.push(...contentProblems(at, result.content));
          for (const key of Object.keys(result)) {
            if (!RESULT_KEYS.has(key)) problems.push(`${at}: non-persistable field "${key}"`);
          }
        });
        pending = [];
        break;
      }
      default: {
        const never: never = message;
        problems.push(`${where}: unknown role ${JSON.stringify(never)}`);
      }
    }
  });
  if (pending.length > 0) {
    problems.push(
      `history[${pendingFrom}]: tool calls ${pending.map((c) => `"${c.id}"`).join(", ")} ` +
        "are never answered",
    );
  }
  return problems;
}

/** Throws an AssertionError listing every problem when `history` is not acceptable. */
export function assertHistoryAcceptable(history: readonly Message[]): void {
  const problems = historyProblems(history);
  if (problems.length > 0) {
    throw new AssertionError({
      message: `History is not acceptable to the OpenAI API:\n- ${problems.join("\n- ")}`,
    });
  }
}
