/**
 * The OpenAI Chat Completions adapter: the only module that knows the wire format. It talks to any
 * OpenAI-compatible server (OpenAI, Ollama, vLLM, llama.cpp, LM Studio, OpenRouter, …) through the
 * official `openai` SDK, which owns HTTP, SSE parsing and retries.
 */
import OpenAI from "openai";
import {
  type AssistantMessage,
  type ContentBlock,
  emptyUsage,
  type Message,
  type ModelClient,
  ModelError,
  type ModelRequest,
  type ModelStreamEvent,
  type ModelStreamOptions,
  type StopReason,
  type TextBlock,
  type ToolCallBlock,
  type ToolResult,
  type ToolSpec,
  type Usage,
} from "./types.ts";

type WireMessage = OpenAI.Chat.ChatCompletionMessageParam;
type WireUserPart = OpenAI.Chat.ChatCompletionContentPart;
type WireTool = OpenAI.Chat.ChatCompletionFunctionTool;
type WireParams = OpenAI.Chat.ChatCompletionCreateParamsStreaming;

/** Options of `createOpenAiClient`. */
export interface OpenAiClientOptions {
  /** API base URL including the version path, e.g. `http://localhost:11434/v1`. */
  baseURL: string;
  /** The API key; an empty key is sent as `no-key` (local servers ignore it). */
  apiKey: string;
  /** The model id sent with every request. */
  model: string;
  /** Extra HTTP headers sent with every request. */
  headers?: Record<string, string>;
  /** SDK retries for 408/409/429/5xx and connection errors, honouring retry-after (default 2). */
  maxRetries?: number;
  /** Time allowed until response headers arrive, per attempt, in ms (SDK default: 10 minutes). */
  timeoutMs?: number;
  /** Send `stream_options: {include_usage: true}` (default true; some servers reject it). */
  streamOptions?: boolean;
  /**
   * Field for `maxOutputTokens` (default `max_completion_tokens`, which OpenAI's reasoning models
   * require; servers that don't know it ignore it, so set `max_tokens` for older local servers).
   */
  maxTokensField?: "max_completion_tokens" | "max_tokens";
  /** Sent as `parallel_tool_calls` when defined and tools are present; omitted when undefined. */
  parallelToolCalls?: boolean;
  /** Whether the model accepts images (default true); false replaces them with text at request time. */
  vision?: boolean;
  /** Told to the user on HTTP 401/403, e.g. "set OPENAI_API_KEY or pass --api-key-env". */
  apiKeyHint?: string;
  /** `OpenAI-Organization` header value (never read from the environment here). */
  organization?: string;
  /** `OpenAI-Project` header value (never read from the environment here). */
  project?: string;
}

const DEFAULT_KEY_HINT = "set OPENAI_API_KEY to a valid key for this server";

/** Creates a ModelClient that streams Chat Completions from an OpenAI-compatible server. */
export function createOpenAiClient(options: OpenAiClientOptions): ModelClient {
  const sdk = new OpenAI({
    baseURL: options.baseURL,
    apiKey: options.apiKey === "" ? "no-key" : options.apiKey,
    adminAPIKey: null,
    organization: options.organization ?? null,
    project: options.project ?? null,
    webhookSecret: null,
    maxRetries: options.maxRetries ?? 2,
    ...(options.timeoutMs === undefined ? {} : { timeout: options.timeoutMs }),
    ...(options.headers === undefined ? {} : { defaultHeaders: options.headers }),
    // The SDK would otherwise log to the console (e.g. on malformed chunks); failures reach
    // callers as ModelErrors instead.
    logLevel: "off",
  });
  return {
    stream: (request, streamOptions) => streamReply(sdk, options, request, streamOptions),
  };
}

async function streamReply(
  sdk: OpenAI,
  options: OpenAiClientOptions,
  request: ModelRequest,
  { signal, onEvent }: ModelStreamOptions,
): Promise<AssistantMessage | null> {
  if (signal?.aborted) return null;
  const messages = toWireMessages(request, options.vision ?? true);
  const params = buildParams(options, request, messages);
  const emit = (event: ModelStreamEvent) => {
    try {
      onEvent?.(event);
    } catch {
      // A failing event sink must not break the stream; the loop reports its own sink errors.
    }
  };
  // Hashing the whole request is only needed for calls sent without an id, which is rare.
  let turnHash: string | undefined;
  const assembler = new ReplyAssembler(
    () => (turnHash ??= hashText(JSON.stringify(messages))),
    emit,
  );
  let opened = false;
  try {
    const stream = await sdk.chat.completions.create(
      params,
      signal === undefined ? {} : { signal },
    );
    opened = true;
    emit({ type: "message_start" });
    for await (const chunk of stream) {
      if (signal?.aborted) break;
      assembler.add(chunk);
    }
  } catch (error) {
    if (signal?.aborted) return null;
    throw toModelError(error, options, opened);
  }
  // The SDK ends iteration quietly when its request was aborted.
  if (signal?.aborted) return null;
  return assembler.finish();
}

function buildParams(
  options: OpenAiClientOptions,
  request: ModelRequest,
  messages: WireMessage[],
): WireParams {
  const params: WireParams = { model: options.model, messages, stream: true };
  if (options.streamOptions ?? true) params.stream_options = { include_usage: true };
  if (request.tools.length > 0) {
    params.tools = request.tools.map(toWireTool);
    if (options.parallelToolCalls !== undefined) {
      params.parallel_tool_calls = options.parallelToolCalls;
    }
  }
  if (request.maxOutputTokens !== undefined) {
    if ((options.maxTokensField ?? "max_completion_tokens") === "max_tokens") {
      params.max_tokens = request.maxOutputTokens;
    } else {
      params.max_completion_tokens = request.maxOutputTokens;
    }
  }
  if (request.temperature !== undefined) params.temperature = request.temperature;
  return params;
}

function toWireTool(tool: ToolSpec): WireTool {
  // JSON round trip drops TypeBox's symbol keys (Kind, Optional, …) and keeps descriptions.
  const parameters = JSON.parse(JSON.stringify(tool.parameters)) as Record<string, unknown>;
  return {
    type: "function",
    function: { name: tool.name, description: tool.description, parameters },
  };
}

// ---------------------------------------------------------------------------------------------
// Request conversion

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
): OpenAI.Chat.ChatCompletionAssistantMessageParam {
  const text = message.blocks.filter((b): b is TextBlock => b.type === "text").map((b) => b.text)
    .join("");
  if (calls.length === 0) return { role: "assistant", content: text };
  return {
    role: "assistant",
    content: text === "" ? null : text,
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
function toWireMessages(request: ModelRequest, vision: boolean): WireMessage[] {
  const out: WireMessage[] = [];
  if (request.system !== "") out.push({ role: "system", content: request.system });
  const messages = request.messages;
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i]!;
    switch (message.role) {
      case "user":
        out.push({ role: "user", content: userContent(message.content, vision) });
        break;
      case "assistant": {
        const calls = message.blocks.filter((b): b is ToolCallBlock => b.type === "toolCall");
        out.push(assistantWire(message, calls));
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

// ---------------------------------------------------------------------------------------------
// Stream assembly

interface PartialCall {
  index: number;
  id: string | undefined;
  /** The id was made up here because the server had not sent one when the call started. */
  idGenerated: boolean;
  name: string;
  args: string;
  argsObject: unknown;
  started: boolean;
  pendingDeltas: string[];
}

/** FNV-1a, base 36: short stable ids for calls the server sent without one. */
function hashText(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0).toString(36);
}

class ReplyAssembler {
  #text = "";
  #calls: PartialCall[] = [];
  #bySlot = new Map<number, PartialCall>();
  #finish: string | null = null;
  #usage: Usage | undefined;
  #model: string | undefined;

  constructor(readonly turnHash: () => string, readonly emit: (e: ModelStreamEvent) => void) {}

  add(chunk: OpenAI.Chat.ChatCompletionChunk): void {
    if (typeof chunk.model === "string" && chunk.model !== "") this.#model = chunk.model;
    if (chunk.usage) this.#usage = toUsage(chunk.usage);
    const choice = chunk.choices?.[0];
    if (!choice) return;
    const delta = choice.delta ?? {};
    const text = (typeof delta.content === "string" ? delta.content : "") +
      (typeof delta.refusal === "string" ? delta.refusal : "");
    if (text !== "") {
      this.#text += text;
      this.emit({ type: "text_delta", delta: text });
    }
    for (const tc of delta.tool_calls ?? []) this.#addToolDelta(tc);
    if (choice.finish_reason) this.#finish = choice.finish_reason;
  }

  #addToolDelta(tc: OpenAI.Chat.ChatCompletionChunk.Choice.Delta.ToolCall): void {
    const fn = tc.function as { name?: unknown; arguments?: unknown } | undefined;
    const id = typeof tc.id === "string" && tc.id !== "" ? tc.id : undefined;
    const slotIndex = typeof tc.index === "number" ? tc.index : undefined;
    let call = slotIndex === undefined ? this.#calls.at(-1) : this.#bySlot.get(slotIndex);
    // A new id at a known index (some servers put every call at index 0) is a new call; a server
    // id arriving after we generated one still belongs to this call.
    if (
      call !== undefined && id !== undefined && call.id !== undefined && !call.idGenerated &&
      call.id !== id
    ) {
      call = undefined;
    }
    if (call === undefined) {
      call = {
        index: this.#calls.length,
        id,
        idGenerated: false,
        name: "",
        args: "",
        argsObject: undefined,
        started: false,
        pendingDeltas: [],
      };
      this.#calls.push(call);
      this.#bySlot.set(slotIndex ?? call.index, call);
    }
    if (call.id === undefined && id !== undefined && !call.started) call.id = id;
    if (typeof fn?.name === "string" && fn.name !== "" && fn.name !== call.name) {
      // Names normally arrive once; a repeated full name is not appended again.
      call.name += fn.name;
    }
    if (!call.started && call.name !== "") {
      call.started = true;
      if (call.id === undefined) {
        call.id = this.#generatedId(call.index);
        call.idGenerated = true;
      }
      this.emit({ type: "toolcall_start", index: call.index, id: call.id, name: call.name });
      for (const piece of call.pendingDeltas.splice(0)) {
        this.emit({ type: "toolcall_delta", index: call.index, delta: piece });
      }
    }
    if (typeof fn?.arguments === "string") {
      if (fn.arguments === "") return;
      call.args += fn.arguments;
      if (call.started) {
        this.emit({ type: "toolcall_delta", index: call.index, delta: fn.arguments });
      } else call.pendingDeltas.push(fn.arguments);
    } else if (fn?.arguments !== undefined && fn.arguments !== null) {
      // Some servers send the arguments as a JSON object instead of a string.
      call.argsObject = fn.arguments;
    }
  }

  #generatedId(index: number): string {
    return `call_${index}_${this.turnHash()}`;
  }

  finish(): AssistantMessage {
    if (this.#finish === null) {
      throw new ModelError(
        "incomplete_stream",
        "The model's reply stream ended without a finish reason: the connection was probably " +
          "cut. The partial reply was discarded; try again.",
      );
    }
    const blocks: AssistantMessage["blocks"] = [];
    if (this.#text !== "") blocks.push({ type: "text", text: this.#text });
    const ids = new Set<string>();
    for (const call of this.#calls) {
      let id = call.id ?? this.#generatedId(call.index);
      if (ids.has(id)) id = `${id}_${call.index}`;
      ids.add(id);
      blocks.push(toolCallBlock(id, call));
    }
    const { stopReason, raw } = mapFinish(this.#finish, this.#calls.length > 0);
    const message: AssistantMessage = {
      role: "assistant",
      blocks,
      stopReason,
      usage: this.#usage ?? emptyUsage(),
    };
    if (raw !== undefined) message.rawStopReason = raw;
    if (this.#model !== undefined) message.model = this.#model;
    return message;
  }
}

function toolCallBlock(id: string, call: PartialCall): ToolCallBlock {
  if (call.argsObject !== undefined && call.args === "") {
    return { type: "toolCall", id, name: call.name, arguments: call.argsObject };
  }
  // A call without arguments is a call with no arguments.
  if (call.args.trim() === "") return { type: "toolCall", id, name: call.name, arguments: {} };
  try {
    return { type: "toolCall", id, name: call.name, arguments: JSON.parse(call.args) };
  } catch (error) {
    return {
      type: "toolCall",
      id,
      name: call.name,
      arguments: call.args,
      invalidJson: error instanceof Error ? error.message : String(error),
    };
  }
}

function mapFinish(
  finish: string,
  hasCalls: boolean,
): { stopReason: StopReason; raw?: string } {
  switch (finish) {
    case "stop":
      // Some servers say "stop" even when the reply is tool calls.
      return { stopReason: hasCalls ? "toolUse" : "stop" };
    case "tool_calls":
    case "function_call":
      return { stopReason: "toolUse" };
    case "length":
      return { stopReason: "maxTokens" };
    default:
      return { stopReason: "error", raw: finish };
  }
}

function toUsage(u: OpenAI.CompletionUsage): Usage {
  const input = u.prompt_tokens ?? 0;
  const output = u.completion_tokens ?? 0;
  // DeepSeek reports cache hits in its own field.
  const deepseekCached = (u as { prompt_cache_hit_tokens?: unknown }).prompt_cache_hit_tokens;
  const cached = u.prompt_tokens_details?.cached_tokens ??
    (typeof deepseekCached === "number" ? deepseekCached : 0);
  return {
    inputTokens: input,
    outputTokens: output,
    cachedTokens: cached,
    totalTokens: u.total_tokens ?? input + output,
  };
}

// ---------------------------------------------------------------------------------------------
// Errors

// OpenAI, OpenRouter, DeepSeek, vLLM, Groq, Mistral, Gemini, LM Studio ("context length",
// "maximum context", "reduce the length"), llama.cpp ("exceeds the available context size"),
// DashScope ("Range of input length should be …").
const CONTEXT_OVERFLOW =
  /context[ _-]?(length|window|size)|maximum context|too many tokens|prompt is too long|input is too long|exceeds? the (model'?s? )?(maximum|max|context)|reduce the length|maximum input length|range of input length|token limit/i;

function serverMessage(error: InstanceType<typeof OpenAI.APIError>): string {
  const body = error.error as { message?: unknown } | undefined;
  if (body && typeof body === "object" && typeof body.message === "string") return body.message;
  return error.message.replace(/^\d{3}\s+/, "");
}

function errorCode(error: InstanceType<typeof OpenAI.APIError>): string | undefined {
  if (typeof error.code === "string") return error.code;
  const body = error.error as { code?: unknown } | undefined;
  return body && typeof body === "object" && typeof body.code === "string" ? body.code : undefined;
}

function toModelError(
  error: unknown,
  options: OpenAiClientOptions,
  midStream: boolean,
): ModelError {
  const where = `"${options.baseURL}"`;
  if (error instanceof ModelError) return error;
  if (error instanceof OpenAI.APIConnectionTimeoutError) {
    return new ModelError(
      "network",
      `The model server at ${where} did not answer in time` +
        (options.timeoutMs === undefined ? "" : ` (${options.timeoutMs} ms)`) +
        ": check that it is running, or raise the timeout.",
      { cause: error },
    );
  }
  if (error instanceof OpenAI.APIConnectionError) {
    const cause = error.cause instanceof Error ? error.cause.message : error.message;
    return new ModelError(
      "network",
      `Could not reach the model server at ${where}: ${cause}. Check the base URL and that the ` +
        "server is running.",
      { cause: error },
    );
  }
  if (error instanceof OpenAI.APIError) {
    const status = error.status;
    const message = serverMessage(error);
    const http = status === undefined ? "in the stream" : `HTTP ${status}`;
    if (status === undefined) {
      // The server reported an error inside an already started stream.
      const kind = CONTEXT_OVERFLOW.test(message) ? "context_overflow" : "server";
      return new ModelError(kind, `The model server reported an error ${http}: ${message}`, {
        cause: error,
      });
    }
    if (status === 401 || status === 403) {
      return new ModelError(
        "auth",
        `The model server at ${where} rejected the API key (${http}): ${sentence(message)} ` +
          `To fix it, ${options.apiKeyHint ?? DEFAULT_KEY_HINT}.`,
        { status, cause: error },
      );
    }
    if (status === 429) {
      return new ModelError(
        "rate_limit",
        `The model server at ${where} is rate limiting requests (${http}) and retries ran out: ` +
          `${message}`,
        { status, cause: error },
      );
    }
    if (status >= 500) {
      return new ModelError(
        "server",
        `The model server at ${where} failed (${http}) after retries: ${message}`,
        { status, cause: error },
      );
    }
    if (
      status === 413 || errorCode(error) === "context_length_exceeded" ||
      (status === 400 && CONTEXT_OVERFLOW.test(message))
    ) {
      return new ModelError(
        "context_overflow",
        `The conversation is too long for the model (${http}): ${message}`,
        { status, cause: error },
      );
    }
    return new ModelError(
      "bad_request",
      `The model server at ${where} rejected the request (${http}): ${message}` +
        missingVersionHint(status, options.baseURL),
      { status, cause: error },
    );
  }
  const detail = error instanceof Error ? error.message : String(error);
  if (midStream || error instanceof SyntaxError || error instanceof TypeError) {
    return new ModelError(
      "incomplete_stream",
      `The model's reply stream broke off: ${detail}. The partial reply was discarded; try again.`,
      { cause: error },
    );
  }
  return new ModelError(
    "network",
    `The request to the model server at ${where} failed: ${detail}`,
    { cause: error },
  );
}

/**
 * A 404 from a base URL without a version path (`http://localhost:11434` instead of
 * `…/v1`) is the usual cause: say which URL to try.
 */
function missingVersionHint(status: number, baseURL: string): string {
  if (status !== 404) return "";
  let path: string;
  try {
    path = new URL(baseURL).pathname;
  } catch {
    return "";
  }
  if (/\/v\d+[a-z0-9]*\/?$/i.test(path)) return "";
  return ` OpenAI-compatible servers usually serve the API under /v1: try --base-url ` +
    `${baseURL.replace(/\/+$/, "")}/v1`;
}

/** Ends `text` with exactly one sentence-ending mark. */
function sentence(text: string): string {
  const trimmed = text.trimEnd();
  return /[.!?]$/.test(trimmed) ? trimmed : `${trimmed}.`;
}
