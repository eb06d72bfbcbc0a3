/**
 * A cheap token estimate that errs on the high side, so a request judged to fit does fit: no
 * tokenizer, just characters. Real tokenizers give about 4 characters per token for English and
 * 3–3.5 for code and JSON; counting 3 keeps the estimate above them, and non-ASCII characters
 * (often one token or more each) count as 1.5.
 */
import type { ContentBlock, Message, ToolSpec } from "../../model/types.ts";

/** What an image counts for (a high-detail image is at most about this many tokens). */
export const IMAGE_TOKENS = 1600;
/** Role markers and separators around every message. */
const MESSAGE_OVERHEAD = 6;
/** Per tool call (id, type, name wrapper) and per tool result (id wrapper). */
const CALL_OVERHEAD = 12;

/** Tokens of `text`, estimated high. */
export function estimateTextTokens(text: string): number {
  let ascii = 0;
  let other = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) ascii++;
    // A surrogate pair is one character: count its high half only.
    else if (code < 0xdc00 || code > 0xdfff) other++;
  }
  return Math.ceil(ascii / 3 + other * 1.5);
}

function contentTokens(content: ContentBlock[] | string): number {
  if (typeof content === "string") return estimateTextTokens(content);
  let total = 0;
  for (const block of content) {
    total += block.type === "text" ? estimateTextTokens(block.text) : IMAGE_TOKENS;
  }
  return total;
}

// Messages are immutable once in history, so each one is counted once.
const cache = new WeakMap<Message, number>();

/** Tokens of one message as sent, estimated high. */
export function estimateMessageTokens(message: Message): number {
  const known = cache.get(message);
  if (known !== undefined) return known;
  let total = MESSAGE_OVERHEAD;
  switch (message.role) {
    case "user":
      total += contentTokens(message.content);
      break;
    case "assistant":
      for (const block of message.blocks) {
        if (block.type === "text") total += estimateTextTokens(block.text);
        else {
          const args = typeof block.arguments === "string"
            ? block.arguments
            : JSON.stringify(block.arguments) ?? "";
          total += CALL_OVERHEAD + estimateTextTokens(block.name) + estimateTextTokens(args);
        }
      }
      break;
    case "toolResult":
      for (const result of message.results) {
        total += MESSAGE_OVERHEAD + CALL_OVERHEAD + contentTokens(result.content);
      }
      break;
    default: {
      const never: never = message;
      return never;
    }
  }
  cache.set(message, total);
  return total;
}

/** Tokens of a list of messages, estimated high. */
export function estimateMessagesTokens(messages: readonly Message[]): number {
  let total = 0;
  for (const message of messages) total += estimateMessageTokens(message);
  return total;
}

/** Tokens of the system prompt and the tool definitions, which every request repeats. */
export function estimateFixedTokens(system: string, tools: readonly ToolSpec[]): number {
  let total = MESSAGE_OVERHEAD + estimateTextTokens(system);
  for (const tool of tools) {
    total += CALL_OVERHEAD + estimateTextTokens(tool.name) +
      estimateTextTokens(tool.description) + estimateTextTokens(JSON.stringify(tool.parameters));
  }
  return total;
}
