/** session/load: a moat session's messages replayed as `session/update`s. */
import type * as acp from "@agentclientprotocol/sdk";
import type { Message } from "../model/types.ts";
import { resultText } from "../report/mod.ts";
import { toolContent, toolKind, toolLocations, toolTitle } from "./updates.ts";

/** The updates that show `history` in the editor again, in order. */
export function historyUpdates(history: readonly Message[], cwd: string): acp.SessionUpdate[] {
  const updates: acp.SessionUpdate[] = [];
  const calls = new Map<string, { name: string; args: unknown }>();
  for (const message of history) {
    if (message.role === "user") {
      const text = typeof message.content === "string"
        ? message.content
        : resultText(message.content);
      updates.push({ sessionUpdate: "user_message_chunk", content: { type: "text", text } });
    } else if (message.role === "assistant") {
      if (message.thinking !== undefined && message.thinking !== "") {
        updates.push({
          sessionUpdate: "agent_thought_chunk",
          content: { type: "text", text: message.thinking },
        });
      }
      for (const block of message.blocks) {
        if (block.type === "text") {
          if (block.text !== "") {
            updates.push({
              sessionUpdate: "agent_message_chunk",
              content: { type: "text", text: block.text },
            });
          }
          continue;
        }
        calls.set(block.id, { name: block.name, args: block.arguments });
        updates.push({
          sessionUpdate: "tool_call",
          toolCallId: block.id,
          title: toolTitle(block.name, block.arguments),
          kind: toolKind(block.name),
          status: "pending",
          locations: toolLocations(block.name, block.arguments, cwd),
        });
      }
    } else {
      for (const result of message.results) {
        const call = calls.get(result.toolCallId);
        updates.push({
          sessionUpdate: "tool_call_update",
          toolCallId: result.toolCallId,
          status: result.isError ? "failed" : "completed",
          content: toolContent(call?.name ?? result.toolName, call?.args, result, cwd),
        });
      }
    }
  }
  return updates;
}
