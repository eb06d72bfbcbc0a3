/**
 * The ModelClient over the official `openai` SDK, which owns HTTP, SSE parsing and retries: its
 * options, and one streamed reply per request — the request body from `wire.ts`, the chunks
 * assembled by `stream.ts`, failures mapped to ModelErrors by `errors.ts` — and the server's
 * context window from its metadata (`metadata.ts`).
 */
import OpenAI from "openai";
import type {
  AssistantMessage,
  ModelClient,
  ModelRequest,
  ModelStreamEvent,
  ModelStreamOptions,
} from "../types.ts";
import { toModelError } from "./errors.ts";
import { fetchContextWindow } from "./metadata.ts";
import { hashText, ReplyAssembler } from "./stream.ts";
import { toChatParams } from "./wire.ts";

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
    contextWindow: ({ signal }) =>
      fetchContextWindow(sdk, options.model, {
        baseURL: options.baseURL,
        ...(signal === undefined ? {} : { signal }),
      }),
  };
}

async function streamReply(
  sdk: OpenAI,
  options: OpenAiClientOptions,
  request: ModelRequest,
  { signal, onEvent }: ModelStreamOptions,
): Promise<AssistantMessage | null> {
  if (signal?.aborted) return null;
  const params = toChatParams(request, options);
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
    () => (turnHash ??= hashText(JSON.stringify(params.messages))),
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
    throw toModelError(error, { ...options, midStream: opened });
  }
  // The SDK ends iteration quietly when its request was aborted.
  if (signal?.aborted) return null;
  return assembler.finish();
}
