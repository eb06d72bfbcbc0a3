/**
 * Summarising, the second step of compaction: the older part of the history becomes a transcript
 * that one tool-less model request turns into a structured summary; the history then holds the
 * user's messages verbatim, the summary, and the last turns intact.
 */
import type { Message, ModelRequest, UserMessage } from "../../model/types.ts";
import { estimateMessageTokens, estimateTextTokens } from "./estimate.ts";
import { argumentsPreview } from "./prune.ts";

/** What a summary message stands for (set on the user message that holds the summary). */
export interface CompactionMark {
  /** Messages the summary replaced (including an earlier summary). */
  messages: number;
  /** Their estimated tokens. */
  tokens: number;
}

/** A user message that holds a compaction summary. */
export type SummaryMessage = UserMessage & { compaction: CompactionMark };

/** True when the message holds a compaction summary (not something the user typed). */
export function isSummaryMessage(message: Message): message is SummaryMessage {
  return message.role === "user" && (message as Partial<SummaryMessage>).compaction !== undefined;
}

/** The instructions of the summary request. */
export const SUMMARY_INSTRUCTIONS = `You summarise a coding agent's conversation so that the agent
can continue the work from your summary alone: the older messages are removed after this.
Write in the user's language. Be specific: keep exact file paths, function names, commands, error
messages and numbers. Do not invent anything, do not call tools, do not continue the task.
Use exactly these sections (leave a section out only when it has nothing):

## User requests
Every request and constraint of the user, in their own words (quote them).
## Decisions
What was decided and why.
## Files read
Each path, with what matters in it for the task.
## Files changed
Each path, with what was changed.
## Commands run
Each command, with what its output showed (results, failures).
## Done
What is finished.
## Remaining
What is still to do.
## Next step
The one thing to do next.`;

/** The text of a user message's content. */
function userText(message: UserMessage): string {
  return typeof message.content === "string"
    ? message.content
    : message.content.map((b) => b.type === "text" ? b.text : "[image]").join("\n");
}

function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const head = Math.floor(max * 0.7);
  return `${text.slice(0, head)}\n[… ${text.length - max} characters left out …]\n${
    text.slice(text.length - (max - head))
  }`;
}

/**
 * The messages as a plain-text transcript (tool calls and results as text, each result at most
 * `maxResultChars`), at most `maxChars` long: when longer, the middle is left out.
 */
export function transcriptOf(
  messages: readonly Message[],
  limits: { maxResultChars: number; maxChars: number },
): string {
  const parts: string[] = [];
  for (const message of messages) {
    switch (message.role) {
      case "user":
        parts.push(
          isSummaryMessage(message)
            ? `[Summary of the conversation before this point]\n${userText(message)}`
            : `[User]\n${userText(message)}`,
        );
        break;
      case "assistant":
        for (const block of message.blocks) {
          if (block.type === "text") {
            if (block.text.trim() !== "") parts.push(`[Assistant]\n${block.text}`);
          } else {
            parts.push(`[Tool call ${block.name}] ${argumentsPreview(block.arguments)}`);
          }
        }
        break;
      case "toolResult":
        for (const result of message.results) {
          const text = typeof result.content === "string"
            ? result.content
            : result.content.map((b) => b.type === "text" ? b.text : "[image]").join("\n");
          parts.push(
            `[Tool result ${result.toolName}${result.isError ? ", error" : ""}]\n${
              clip(text, limits.maxResultChars)
            }`,
          );
        }
        break;
      default: {
        const never: never = message;
        return never;
      }
    }
  }
  return clip(parts.join("\n\n"), limits.maxChars);
}

/** The tool-less request that asks for the summary of `transcript`. */
export function summaryRequest(
  transcript: string,
  options: { maxOutputTokens: number; focus?: string; temperature?: number },
): ModelRequest {
  const focus = options.focus === undefined || options.focus.trim() === ""
    ? ""
    : `\n\nThe user asked the summary to focus on: ${options.focus.trim()}`;
  const request: ModelRequest = {
    system: SUMMARY_INSTRUCTIONS,
    messages: [{
      role: "user",
      content: `Summarise this conversation with the sections given.${focus}\n\n` +
        `<conversation>\n${transcript}\n</conversation>`,
    }],
    tools: [],
    maxOutputTokens: options.maxOutputTokens,
  };
  if (options.temperature !== undefined) request.temperature = options.temperature;
  return request;
}

/** The user message that stands for the replaced history. */
export function summaryMessage(summary: string, mark: CompactionMark): SummaryMessage {
  return {
    role: "user",
    content: "The earlier conversation was compacted to fit the context window. The user's " +
      "messages before this one are quoted verbatim; this summary stands for everything else " +
      "up to the messages that follow. Continue the task from here.\n\n" + summary.trim(),
    compaction: mark,
  };
}

/**
 * Where the kept tail starts: the earliest turn boundary (a user message or an assistant reply,
 * never a tool result apart from its call) whose messages fit `keepTokens`. A user message at the
 * end (waiting for its answer) is always kept.
 */
export function tailStart(messages: readonly Message[], keepTokens: number): number {
  let start = messages.length;
  let tokens = 0;
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i] as Message;
    tokens += estimateMessageTokens(message);
    // The message waiting for an answer always stays, whatever its size.
    const pending = i === messages.length - 1 && message.role === "user";
    if (tokens > keepTokens && !pending) break;
    if (message.role !== "toolResult" && !isSummaryMessage(message)) start = i;
  }
  return start;
}

/**
 * The user's own messages among `head` (not summaries), chosen to fit `budgetTokens`: the first
 * one (the task) always, then the most recent ones; in their original order.
 */
export function keptUserMessages(head: readonly Message[], budgetTokens: number): UserMessage[] {
  const users = head.filter((m): m is UserMessage => m.role === "user" && !isSummaryMessage(m));
  if (users.length === 0) return [];
  const first = users[0] as UserMessage;
  const chosen = new Set<UserMessage>([first]);
  let tokens = estimateMessageTokens(first);
  for (let i = users.length - 1; i > 0; i--) {
    const user = users[i] as UserMessage;
    const cost = estimateMessageTokens(user);
    if (tokens + cost > budgetTokens) break;
    chosen.add(user);
    tokens += cost;
  }
  return users.filter((u) => chosen.has(u));
}

/** Characters of transcript that fit `tokens` (by the same high estimate). */
export function charsForTokens(tokens: number): number {
  return Math.max(0, Math.floor(tokens * 3));
}

/** Estimated tokens of a summary request's fixed part (its instructions). */
export function summaryOverheadTokens(): number {
  return estimateTextTokens(SUMMARY_INSTRUCTIONS) + 200;
}
