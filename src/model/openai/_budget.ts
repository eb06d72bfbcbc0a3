/**
 * The output budget sent: the user's `maxOutputTokens`, under the cap learned from a "too large"
 * rejection (learn.ts), and under the server's stated window when it could never fit in it.
 */
import type OpenAI from "openai";

type WireMessage = OpenAI.Chat.ChatCompletionMessageParam;

/** Characters per token of the rough prompt estimate (as the agent's estimate uses). */
const CHARS_PER_TOKEN = 4;
/** What each message adds besides its text (role, separators of the chat template). */
const TOKENS_PER_MESSAGE = 8;

/** A rough count of the prompt's tokens: its text and tool definitions; images not counted. */
export function promptEstimate(messages: readonly WireMessage[], tools: unknown): number {
  let chars = tools === undefined ? 0 : JSON.stringify(tools).length;
  for (const message of messages) {
    const content = message.content;
    if (typeof content === "string") chars += content.length;
    else if (Array.isArray(content)) {
      for (const part of content) {
        if (part.type === "text") chars += part.text.length;
      }
    }
    if (message.role === "assistant") {
      for (const call of message.tool_calls ?? []) {
        if (call.type === "function") {
          chars += call.function.name.length + call.function.arguments.length;
        }
      }
    }
  }
  return Math.ceil(chars / CHARS_PER_TOKEN) + TOKENS_PER_MESSAGE * messages.length;
}

/**
 * The budget to send for `requested`: at most `learnedCap` (0 = none), and when `window` is
 * known and the budget is at least the whole window (no prompt leaves room for it; vLLM rejects
 * it with "'max_tokens' or 'max_completion_tokens' is too large"), what remains of the window
 * after `prompt` tokens and a margin for the estimate's error (the chat template's own tokens),
 * never less than an eighth of the window. A budget below the window is
 * the server's to judge: the rejection of one that does not fit is learned.
 */
export function outputBudget(
  requested: number,
  options: { learnedCap: number; window?: number; prompt: number },
): number {
  const budget = options.learnedCap > 0 ? Math.min(requested, options.learnedCap) : requested;
  const { window } = options;
  if (window === undefined || budget < window) return budget;
  const margin = Math.max(64, Math.floor(window * 0.02));
  return Math.max(window - options.prompt - margin, Math.floor(window / 8));
}
