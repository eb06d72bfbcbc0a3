/**
 * One `session/prompt` of an ACP session: `/compact`, or an agent turn (print mode's loop) whose
 * events are streamed as `session/update`s; an image for a model without vision is refused
 * before anything is sent.
 */
import * as acp from "@agentclientprotocol/sdk";
import type { AgentEvent } from "../agent/events.ts";
import type {
  AssistantMessage,
  ImageBlock,
  Message,
  ModelClient,
  UserMessage,
} from "../model/types.ts";
import type { SessionWriter } from "../session/store.ts";
import { createRunStats, type Reporter } from "../report/mod.ts";
import { type Engine, runOnce } from "../cli/engine.ts";
import { compactNow } from "../cli/context.ts";
import type { RunSetup } from "../cli/setup.ts";
import { knownVision } from "../model/vision.ts";
import type { PendingCall } from "./permission.ts";
import { acpStopReason, toolTitle, updatesOf } from "./updates.ts";
import type { AcpHost } from "./host.ts";

/** Whether the session's model takes images: `compat.vision` if set, else the model table. */
export function acceptsImages(setup: Pick<RunSetup, "settings">): boolean {
  return setup.settings.compat?.vision ?? knownVision(setup.settings.model) ?? false;
}

/** Sends each agent event's updates (and the context's use after each reply); notes calls. */
export function observer(options: {
  host: AcpHost;
  id: string;
  setup: RunSetup;
  calls: Map<string, PendingCall>;
  window: () => number | undefined;
}): (event: AgentEvent) => void {
  const { host, id } = options;
  return (event) => {
    if (event.type === "tool_start") {
      options.calls.set(event.name, {
        toolCallId: event.toolCallId,
        title: toolTitle(event.name, event.args),
      });
    }
    for (const update of updatesOf(event, options.setup.workspace)) {
      host.update({ sessionId: id, update });
    }
    if (event.type === "message_end") {
      const window = options.window();
      const used = event.message.usage.inputTokens + event.message.usage.outputTokens;
      if (window !== undefined && used > 0) {
        host.update({
          sessionId: id,
          update: { sessionUpdate: "usage_update", used, size: window },
        });
      }
    }
  };
}

/** What one prompt turn works with. */
export interface TurnContext {
  host: AcpHost;
  id: string;
  setup: RunSetup;
  engine: Engine;
  model: ModelClient;
  history: Message[];
  writer: SessionWriter | null;
  reporter: Reporter;
  observe(event: AgentEvent): void;
  /** Warnings not shown in the editor yet (shown at the start of the next turn). */
  notes: string[];
}

/** The slash commands moat offers in the editor. */
export const ACP_COMMANDS: acp.AvailableCommand[] = [{
  name: "compact",
  description: "Summarise the conversation so far, to free the context window",
  input: { hint: "what the summary should focus on (optional)" },
}];

/** One `session/prompt`: /compact, or an agent turn; resolves to its stop reason. */
export async function runTurn(
  turn: TurnContext,
  blocks: readonly acp.ContentBlock[],
  signal: AbortSignal,
): Promise<acp.StopReason> {
  const { host, id, setup, writer } = turn;
  const say = (text: string) =>
    host.update({
      sessionId: id,
      update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text } },
    });
  const notes = turn.notes.splice(0);
  if (notes.length > 0) say(notes.map((n) => `moat: ${n}\n`).join("") + "\n");
  if (blocks.some((b) => b.type === "image") && !acceptsImages(setup)) {
    // Refused before anything is sent or written: the prompt is not part of the conversation.
    say(
      `moat: The model "${setup.settings.model}" does not take images, so nothing was sent: ` +
        "remove the image, choose a model with vision (-m MODEL), or, if this model does take " +
        'images, set "compat": {"vision": true} in the config.\n',
    );
    await host.drained();
    return "refusal";
  }
  writer?.begin();
  const prompt = userMessage(blocks);
  const compact = typeof prompt.content === "string"
    ? /^\/compact(?:\s+([\s\S]*))?$/.exec(prompt.content.trim())
    : null;
  if (compact !== null) {
    const said = await compactNow(setup, turn.engine, {
      model: turn.model,
      modelName: setup.settings.model,
      history: turn.history,
      signal,
      reporter: turn.reporter,
      writer,
      focus: compact[1] ?? "",
    });
    say(said === "" ? "Compacted the conversation." : said);
    await writer?.flush();
    await host.drained();
    return signal.aborted ? "cancelled" : "end_turn";
  }
  let lastReply: AssistantMessage | undefined;
  const outcome = await runOnce(setup, turn.engine, {
    model: turn.model,
    history: turn.history,
    prompt,
    signal,
    reporter: turn.reporter,
    stats: createRunStats(),
    writer,
    maxTurns: setup.settings.maxTurns,
    observe(event) {
      if (event.type === "message_end") lastReply = event.message;
      turn.observe(event);
    },
  });
  await writer?.flush();
  await host.drained();
  if (outcome.error !== undefined && !signal.aborted) {
    throw acp.RequestError.internalError(undefined, outcome.error.message);
  }
  return acpStopReason(outcome, signal.aborted, lastReply === undefined ? {} : { lastReply });
}

/** The user message of a prompt: text, embedded resources as context, links by their URI. */
function userMessage(blocks: readonly acp.ContentBlock[]): UserMessage {
  const parts: string[] = [];
  const images: ImageBlock[] = [];
  for (const block of blocks) {
    if (block.type === "text") parts.push(block.text);
    else if (block.type === "image") {
      images.push({ type: "image", data: block.data, mimeType: block.mimeType });
    } else if (block.type === "resource_link") parts.push(`@${block.uri}`);
    else if (block.type === "resource" && "text" in block.resource) {
      parts.push(`<context uri="${block.resource.uri}">\n${block.resource.text}\n</context>`);
    }
  }
  const text = parts.join("\n");
  return images.length === 0
    ? { role: "user", content: text }
    : { role: "user", content: [{ type: "text", text }, ...images] };
}
