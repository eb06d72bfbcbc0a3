/** Small builders shared by the compaction tests: turns of tool calls and results, sized texts. */
import {
  type AssistantMessage,
  type ContentBlock,
  emptyUsage,
  type Message,
  type ToolResult,
  type ToolResultMessage,
  type UserMessage,
} from "../../../src/model/types.ts";

/** A user message. */
export function user(content: string | ContentBlock[]): UserMessage {
  return { role: "user", content };
}

/** An assistant reply with only text. */
export function says(text: string): AssistantMessage {
  return {
    role: "assistant",
    blocks: [{ type: "text", text }],
    stopReason: "stop",
    usage: emptyUsage(),
  };
}

/** One call of a turn. */
export interface TurnCall {
  id: string;
  name?: string;
  args?: unknown;
  content: string | ContentBlock[];
  isError?: boolean;
  details?: unknown;
}

/** An assistant message calling tools and the message with their results, in call order. */
export function turn(...calls: TurnCall[]): [AssistantMessage, ToolResultMessage] {
  return [
    {
      role: "assistant",
      blocks: calls.map((c) => ({
        type: "toolCall" as const,
        id: c.id,
        name: c.name ?? "read",
        arguments: c.args ?? { path: `${c.id}.txt` },
      })),
      stopReason: "toolUse",
      usage: emptyUsage(),
    },
    {
      role: "toolResult",
      results: calls.map((c) => {
        const result: ToolResult = {
          toolCallId: c.id,
          toolName: c.name ?? "read",
          content: c.content,
          isError: c.isError ?? false,
        };
        if (c.details !== undefined) result.details = c.details;
        return result;
      }),
    },
  ];
}

/** `chars` characters of code-like text in lines (ASCII). */
export function codeText(chars: number, seed = "x"): string {
  const line = `const ${seed} = compute(${seed}, "value"); // step\n`;
  return line.repeat(Math.ceil(chars / line.length)).slice(0, chars);
}

/** A history of a prompt and `n` turns, each reading a file of `chars` characters. */
export function readingHistory(n: number, chars: number): Message[] {
  const history: Message[] = [user("Read every file and tell me what they do.")];
  for (let i = 1; i <= n; i++) {
    history.push(...turn({ id: `c${i}`, content: codeText(chars, `v${i}`) }));
  }
  return history;
}

/** The results of every toolResult message, in order. */
export function resultsOf(messages: readonly Message[]): ToolResult[] {
  return messages.flatMap((m) => m.role === "toolResult" ? m.results : []);
}
