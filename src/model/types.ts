/**
 * The internal message format: the single source of truth for what the agent loop, the model
 * adapters, sessions and tools exchange. Only adapters know any wire format.
 */
import type { TSchema } from "@sinclair/typebox";
import type { OutputBudgetInfo, OverflowInfo } from "./context_window.ts";

/** Plain text content. */
export interface TextBlock {
  type: "text";
  text: string;
}

/** Base64 image content. */
export interface ImageBlock {
  type: "image";
  /** Base64-encoded bytes, no data: prefix. */
  data: string;
  /** e.g. "image/png". */
  mimeType: string;
}

/** What users and tools can put into history. */
export type ContentBlock = TextBlock | ImageBlock;

/** A tool call made by the model. */
export interface ToolCallBlock {
  type: "toolCall";
  id: string;
  name: string;
  /** Parsed arguments; when the model sent invalid JSON this is the raw string. */
  arguments: unknown;
  /** Set when the arguments were not valid JSON: the parse error, so the pipeline refuses the call. */
  invalidJson?: string;
  /** Fields of the wire tool call the server needs back verbatim (Gemini's `extra_content`). */
  echo?: ProviderEcho;
}

/**
 * Opaque fields a server sent that it needs back on the next request (e.g. DeepSeek's
 * `reasoning_content`, OpenRouter's `reasoning_details`), sent only to the server they came from.
 */
export interface ProviderEcho {
  /** The base URL of the server that sent them. */
  origin: string;
  /** Wire field name → value, as the server sent it. */
  fields: Record<string, unknown>;
}

/** Token accounting for one model reply (or a sum of them). */
export interface Usage {
  inputTokens: number;
  outputTokens: number;
  cachedTokens: number;
  totalTokens: number;
}

/** Why the model stopped. */
export type StopReason = "stop" | "toolUse" | "maxTokens" | "error";

/** A message typed by the user (or queued by the CLI). */
export interface UserMessage {
  role: "user";
  content: ContentBlock[] | string;
}

/** One complete model reply; never a partial one. */
export interface AssistantMessage {
  role: "assistant";
  blocks: Array<TextBlock | ToolCallBlock>;
  stopReason: StopReason;
  /** The server's finish_reason when it was not one we know. */
  rawStopReason?: string;
  usage: Usage;
  /** The model that produced the reply, as reported by the server. */
  model?: string;
  /** The model's reasoning (never part of the answer text; not sent back as text). */
  thinking?: string;
  /** Fields of the wire assistant message the server needs back verbatim on a tool-call turn. */
  echo?: ProviderEcho;
}

/** The result of one tool call as stored in history. */
export interface ToolResult {
  toolCallId: string;
  toolName: string;
  content: ContentBlock[] | string;
  isError: boolean;
  /** Structured, persistable data for UIs and sessions (never sent to the model). */
  details?: unknown;
}

/** All results of one batch of tool calls, in call order. */
export interface ToolResultMessage {
  role: "toolResult";
  results: ToolResult[];
}

/** Anything in the conversation history. */
export type Message = UserMessage | AssistantMessage | ToolResultMessage;

/** What a model needs to know about a tool. */
export interface ToolSpec {
  name: string;
  description: string;
  parameters: TSchema;
}

/** One request to a model. */
export interface ModelRequest {
  system: string;
  messages: readonly Message[];
  tools: readonly ToolSpec[];
  maxOutputTokens?: number;
  temperature?: number;
  /** Ask the server to make the final text JSON valid against this JSON Schema (structured output). */
  responseSchema?: Record<string, unknown>;
}

/** Streaming events a model client emits while a reply arrives. */
export type ModelStreamEvent =
  | { type: "message_start" }
  | { type: "text_delta"; delta: string }
  /** A piece of the model's reasoning (not answer text). */
  | { type: "thinking_delta"; delta: string }
  /** Something the user should know about the server's reply (told once per client). */
  | { type: "warning"; message: string }
  | { type: "toolcall_start"; index: number; id: string; name: string }
  | { type: "toolcall_delta"; index: number; delta: string };

/** A failed attempt of a request that is tried again (told before the wait). */
export interface ModelRetry {
  /** 1 for the first retry. */
  attempt: number;
  /** Retries allowed in all. */
  maxRetries: number;
  /** What went wrong with the attempt. */
  cause: ModelErrorKind;
  /** The failure, as a sentence. */
  message: string;
  /** HTTP status, when there was one. */
  status?: number;
  /** How long moat waits before the next attempt. */
  waitMs: number;
  /** The attempt had started streaming (what it streamed is discarded). */
  midStream: boolean;
}

/** Options for one streamed request. */
export interface ModelStreamOptions {
  signal?: AbortSignal;
  onEvent?: (event: ModelStreamEvent) => void;
  /** Told about every retry before its wait; must not throw. */
  onRetry?: (retry: ModelRetry) => void;
}

/**
 * The loop's only view of a model. `stream` resolves to the complete reply, or `null` when the
 * signal aborted; it throws a ModelError when the request or stream failed (no partial reply).
 */
export interface ModelClient {
  stream(request: ModelRequest, options: ModelStreamOptions): Promise<AssistantMessage | null>;
  /**
   * The server's context window for this client's model from its metadata, or undefined (unknown,
   * unreachable, aborted); must not throw.
   */
  contextWindow?(options: { signal?: AbortSignal }): Promise<number | undefined>;
}

/** Categories of model failures callers can act on. */
export type ModelErrorKind =
  | "auth"
  | "rate_limit"
  | "server"
  | "network"
  | "bad_request"
  | "context_overflow"
  | "incomplete_stream"
  /** A replayed recording (moat --replay) has no reply left for a request. */
  | "replay_exhausted";

/** What the server itself said when it failed a request, as it said it. */
export interface ModelErrorDetail {
  /** HTTP status of the failed response; undefined for an error reported inside a stream. */
  status?: number;
  /** The provider's own message, read from whatever shape its error body had; "" when none. */
  providerMessage: string;
  /** The raw error body as received (its first 64 KiB), when there was one to read. */
  body?: string;
  /** The response's `server` header, when it sent one. */
  server?: string;
}

/** Options of a ModelError beyond its kind and message. */
export interface ModelErrorOptions {
  status?: number;
  cause?: unknown;
  overflow?: OverflowInfo;
  budget?: OutputBudgetInfo;
  detail?: ModelErrorDetail;
}

/** A failed model request or stream, after the SDK's retries. */
export class ModelError extends Error {
  /** What went wrong, for exit codes and recovery. */
  readonly kind: ModelErrorKind;
  /** HTTP status when there was one. */
  readonly status: number | undefined;
  /** What the server's error said about the window and the request (kind "context_overflow" only). */
  declare readonly overflow?: OverflowInfo;
  /**
   * Set when the prompt fits the window but the requested output budget does not (kind
   * "context_overflow"): a request with at most `availableOutputTokens` can succeed as it is.
   */
  declare readonly budget?: OutputBudgetInfo;
  /** The server's own status, message and raw body (errors the server reported only). */
  declare readonly detail?: ModelErrorDetail;

  constructor(kind: ModelErrorKind, message: string, options: ModelErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "ModelError";
    this.kind = kind;
    this.status = options.status;
    // `overflow` is declared, not defined: other errors carry no such own property at all.
    if (kind === "context_overflow" && options.overflow !== undefined) {
      this.overflow = options.overflow;
    }
    if (kind === "context_overflow" && options.budget !== undefined) this.budget = options.budget;
    if (options.detail !== undefined) this.detail = options.detail;
  }
}

/** A zero usage record. */
export function emptyUsage(): Usage {
  return { inputTokens: 0, outputTokens: 0, cachedTokens: 0, totalTokens: 0 };
}

/** Sum of two usage records. */
export function addUsage(a: Usage, b: Usage): Usage {
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    cachedTokens: a.cachedTokens + b.cachedTokens,
    totalTokens: a.totalTokens + b.totalTokens,
  };
}
