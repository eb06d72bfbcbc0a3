/**
 * moat's request as a Chat Completions request body: history to wire messages (tool messages right
 * after their assistant message, images moved where servers accept them), tools to JSON Schema
 * functions, and the compatibility switches that pick optional fields.
 */
import type OpenAI from "openai";
import type {
  AssistantMessage,
  ContentBlock,
  Message,
  ModelRequest,
  TextBlock,
  ToolCallBlock,
  ToolResult,
  ToolSpec,
} from "../types.ts";
import { addReplayFields } from "./_reasoning.ts";
import { outputBudget, promptEstimate } from "./_budget.ts";
import { type CompatSwitches, DEFAULT_SWITCHES } from "../profiles/mod.ts";
import { alternateRoles, normalizeToolCallIds, stripSchemaKeys } from "./wire_shape.ts";

type WireMessage = OpenAI.Chat.ChatCompletionMessageParam;
type WireUserPart = OpenAI.Chat.ChatCompletionContentPart;
type WireTool = OpenAI.Chat.ChatCompletionFunctionTool;

/** The streaming Chat Completions request body the SDK sends. */
export type WireParams = OpenAI.Chat.ChatCompletionCreateParamsStreaming;

/** What shapes the request body besides the request: the model, images, the profile's switches. */
export interface WireSettings {
  /** The model id sent with every request. */
  model: string;
  /** Whether the model accepts images (default: the `vision` switch); false replaces them with text. */
  vision?: boolean;
  /** The server's base URL: echoes (reasoning, signatures) go back only to the server they came from. */
  baseURL?: string;
  /** Send `reasoning_content` back on tool-call turns (default: the base URL is DeepSeek's). */
  echoReasoningContent?: boolean;
  /** The profile's switches (src/model/profiles/); missing ones take the defaults. */
  switches?: Partial<CompatSwitches>;
  /** The context window the server states: a budget that cannot fit in it is capped. */
  window?: number;
}

/** Builds the streaming request body for `request`; never changes `request`. */
export function toChatParams(request: ModelRequest, settings: WireSettings): WireParams {
  const s: CompatSwitches = { ...DEFAULT_SWITCHES, ...settings.switches };
  let messages = toWireMessages(request, settings.vision ?? s.vision, s);
  addReplayFields(messages, request.messages, settings);
  if (s.alternateRoles) messages = alternateRoles(messages);
  if (s.toolCallIds === "alnum9") messages = normalizeToolCallIds(messages);
  const params: WireParams = { model: settings.model, messages, stream: true };
  if (s.streamOptions) params.stream_options = { include_usage: true };
  if (request.tools.length > 0) {
    params.tools = request.tools.map((tool) => toWireTool(tool, s));
    if (s.parallelToolCalls !== "omit") params.parallel_tool_calls = s.parallelToolCalls;
  }
  if (s.store !== "omit") params.store = s.store;
  if (request.maxOutputTokens !== undefined && s.maxTokensField !== "omit") {
    const budget = outputBudget(request.maxOutputTokens, {
      learnedCap: s.maxTokensCap,
      ...(settings.window === undefined ? {} : { window: settings.window }),
      prompt: promptEstimate(messages, params.tools),
    });
    if (s.maxTokensField === "max_tokens") params.max_tokens = budget;
    else params.max_completion_tokens = budget;
  }
  if (request.temperature !== undefined) params.temperature = request.temperature;
  if (request.responseSchema !== undefined) {
    // strict mode would reject most hand-written schemas (it wants every property required).
    params.response_format = {
      type: "json_schema",
      json_schema: {
        name: "answer",
        schema: stripSchemaKeys(request.responseSchema, s.stripSchemaKeys) as Record<
          string,
          unknown
        >,
        strict: false,
      },
    };
  }
  return params;
}

function toWireTool(tool: ToolSpec, s: CompatSwitches): WireTool {
  // JSON round trip drops TypeBox's symbol keys (Kind, Optional, …) and keeps descriptions.
  const parameters = stripSchemaKeys(
    JSON.parse(JSON.stringify(tool.parameters)),
    s.stripSchemaKeys,
  ) as Record<string, unknown>;
  const fn: WireTool["function"] = { name: tool.name, description: tool.description, parameters };
  if (s.strict !== "omit") fn.strict = s.strict;
  return { type: "function", function: fn };
}

function imagePlaceholder(mimeType: string): string {
  return `[image omitted (${mimeType}): the model is not configured for images]`;
}

function dataUrl(block: { data: string; mimeType: string }): string {
  return `data:${block.mimeType};base64,${block.data}`;
}

function userContent(
  content: ContentBlock[] | string,
  vision: boolean,
): string | WireUserPart[] {
  if (typeof content === "string") return content;
  const hasImage = vision && content.some((b) => b.type === "image");
  if (!hasImage) {
    // Text-only content goes as one string: the most widely supported form.
    return content.map((b) => b.type === "text" ? b.text : imagePlaceholder(b.mimeType)).join(
      "\n",
    );
  }
  return content.map((b): WireUserPart =>
    b.type === "text"
      ? { type: "text", text: b.text }
      : { type: "image_url", image_url: { url: dataUrl(b) } }
  );
}

function assistantWire(
  message: AssistantMessage,
  calls: readonly ToolCallBlock[],
  emptyContent: "" | null,
): OpenAI.Chat.ChatCompletionAssistantMessageParam {
  const text = message.blocks.filter((b): b is TextBlock => b.type === "text").map((b) => b.text)
    .join("");
  if (calls.length === 0) return { role: "assistant", content: text };
  return {
    role: "assistant",
    content: text === "" ? emptyContent : text,
    tool_calls: calls.map((c) => ({
      id: c.id,
      type: "function",
      function: { name: c.name, arguments: wireArguments(c) },
    })),
  };
}

/**
 * Arguments as the JSON object text servers expect back. Invalid JSON or a non-object is sent as
 * `{}`: llama.cpp parses replayed arguments and answers HTTP 500 on every later request otherwise,
 * wedging the session. The call's error result already quotes what the model sent.
 */
function wireArguments(call: ToolCallBlock): string {
  const args = call.arguments;
  const isObject = typeof args === "object" && args !== null && !Array.isArray(args);
  return call.invalidJson === undefined && isObject ? JSON.stringify(args) : "{}";
}

/** The tool message text, and the images that must follow in a user message. */
function toolResultParts(
  result: ToolResult,
  vision: boolean,
): { text: string; images: Array<{ data: string; mimeType: string }> } {
  if (typeof result.content === "string") {
    return { text: result.content === "" ? "(empty result)" : result.content, images: [] };
  }
  const texts: string[] = [];
  const images: Array<{ data: string; mimeType: string }> = [];
  for (const block of result.content) {
    if (block.type === "text") texts.push(block.text);
    else if (vision) images.push(block);
    else texts.push(imagePlaceholder(block.mimeType));
  }
  if (images.length > 0) {
    texts.push(
      `[${images.length} image${images.length === 1 ? "" : "s"} attached in the next user message]`,
    );
  }
  const text = texts.join("\n");
  return { text: text === "" ? "(empty result)" : text, images };
}

/**
 * Converts history into wire messages the real API accepts: tool messages directly follow their
 * assistant message in call order, each id once; tool-result images move into a labelled user
 * message after them (servers accept only text in tool messages).
 */
function toWireMessages(
  request: ModelRequest,
  vision: boolean,
  s: CompatSwitches,
): WireMessage[] {
  const out: WireMessage[] = [];
  if (request.system !== "") out.push({ role: s.systemRole, content: request.system });
  const emptyContent = s.emptyToolContent === "empty" ? "" : null;
  const messages = request.messages;
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i]!;
    switch (message.role) {
      case "user":
        out.push({ role: "user", content: userContent(message.content, vision) });
        break;
      case "assistant": {
        const calls = message.blocks.filter((b): b is ToolCallBlock => b.type === "toolCall");
        out.push(assistantWire(message, calls, emptyContent));
        if (calls.length === 0) break;
        const next: Message | undefined = messages[i + 1];
        const results = next?.role === "toolResult" ? next.results : [];
        if (next?.role === "toolResult") i++;
        out.push(...toolMessages(calls, results, vision));
        break;
      }
      case "toolResult":
        // Results not preceded by their assistant message cannot be tool messages.
        out.push(...orphanResults(message.results, vision));
        break;
      default: {
        const never: never = message;
        throw new Error(`Unknown message role: ${JSON.stringify(never)}`);
      }
    }
  }
  return out;
}

function toolMessages(
  calls: readonly ToolCallBlock[],
  results: readonly ToolResult[],
  vision: boolean,
): WireMessage[] {
  const out: WireMessage[] = [];
  const imageParts: WireUserPart[] = [];
  const seen = new Set<string>();
  for (const call of calls) {
    if (seen.has(call.id)) continue;
    seen.add(call.id);
    const result = results.find((r) => r.toolCallId === call.id);
    if (result === undefined) {
      out.push({
        role: "tool",
        tool_call_id: call.id,
        content: "No result was recorded for this call (it did not run).",
      });
      continue;
    }
    const { text, images } = toolResultParts(result, vision);
    out.push({ role: "tool", tool_call_id: call.id, content: text });
    if (images.length > 0) {
      imageParts.push({
        type: "text",
        text: `Image${images.length === 1 ? "" : "s"} from the result of tool call "${call.id}" ` +
          `(${result.toolName}):`,
      });
      for (const image of images) {
        imageParts.push({ type: "image_url", image_url: { url: dataUrl(image) } });
      }
    }
  }
  const unmatched = results.filter((r) => !seen.has(r.toolCallId));
  if (imageParts.length > 0) out.push({ role: "user", content: imageParts });
  out.push(...orphanResults(unmatched, vision));
  return out;
}

function orphanResults(results: readonly ToolResult[], vision: boolean): WireMessage[] {
  return results.map((r) => {
    const blocks: ContentBlock[] = [
      { type: "text", text: `Result of tool call "${r.toolCallId}" (${r.toolName}):` },
      ...(typeof r.content === "string" ? [{ type: "text" as const, text: r.content }] : r.content),
    ];
    return { role: "user", content: userContent(blocks, vision) };
  });
}
