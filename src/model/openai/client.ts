/**
 * The ModelClient over the official `openai` SDK, which owns HTTP and SSE parsing: its options,
 * and one streamed reply per request — the request body from `wire.ts`, the chunks assembled by
 * `stream.ts`, failures mapped to ModelErrors by `errors.ts` and retried by `retry.ts`'s rules —
 * and the server's context window from its metadata (`metadata.ts`).
 */
import OpenAI from "openai";
import {
  type AssistantMessage,
  type ModelClient,
  ModelError,
  type ModelRequest,
  type ModelStreamEvent,
  type ModelStreamOptions,
} from "../types.ts";
import { rawErrorFetch } from "./_raw_errors.ts";
import { type StrayError, tapEventStreams } from "./_sse_tap.ts";
import { toModelError } from "./errors.ts";
import { isRetryable, retryWaitMs, sleep } from "./retry.ts";
import { fetchServerInfo, METADATA_TIMEOUT_MS, type ServerInfo } from "./metadata.ts";
import { hashText, isTransientStreamError, ReplyAssembler } from "./stream.ts";
import { toChatParams } from "./wire.ts";
import { replyFinisher } from "./_reply_finish.ts";
import {
  type CompatOverrides,
  type ProfileName,
  type ProfileReport,
  ProfileState,
  type ServerSignals,
} from "../profiles/mod.ts";
import { learnedWarning, learnFromAttempt, profileChoice } from "./learning.ts";

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
  /**
   * Retries of a failed attempt (default 2): HTTP 408/409/429/5xx (honouring retry-after),
   * connection failures, and streams that broke off, carried a malformed chunk or stalled.
   */
  maxRetries?: number;
  /**
   * A stream that sends no chunk for this long is cut off and retried (default 5 minutes). SSE
   * comments and keep-alives (`: OPENROUTER PROCESSING`) are not chunks: they do not reset it.
   */
  streamIdleTimeoutMs?: number;
  /** The timers of the idle timeout (default the global ones; tests inject a manual clock). */
  timers?: StreamTimers;
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
  /**
   * Whether the model accepts images (default true); false replaces them with text at request
   * time. A text-only model's rejection of images turns it off for the rest of the run.
   */
  vision?: boolean;
  /**
   * Send `reasoning_content` back on tool-call turns to the server that sent it (DeepSeek's
   * thinking mode requires it; default: only when the base URL is on deepseek.com).
   */
  echoReasoningContent?: boolean;
  /** Told to the user on HTTP 401/403, e.g. "set OPENAI_API_KEY or pass --api-key-env". */
  apiKeyHint?: string;
  /** `OpenAI-Organization` header value (never read from the environment here). */
  organization?: string;
  /** `OpenAI-Project` header value (never read from the environment here). */
  project?: string;
  /** The server family named by `--provider` or config `provider`; else it is detected. */
  provider?: ProfileName;
  /** Which of the two named `provider` (default "config"). */
  providerSource?: "flag" | "config";
  /** The config's `compat` switches, over the profile's (and over the three options above). */
  compat?: CompatOverrides;
  /** Told a switch learned from a rejected request, and the config that makes it permanent. */
  onWarning?: (message: string) => void;
}

/** Schedules and cancels the stream's idle timeout. */
export interface StreamTimers {
  /** Calls `fn` once after `ms`; returns a handle for `clearTimeout`. */
  setTimeout(fn: () => void, ms: number): unknown;
  /** Cancels a timer from `setTimeout`. */
  clearTimeout(handle: unknown): void;
}

const GLOBAL_TIMERS: StreamTimers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as number),
};

/** Retries of a failed attempt unless the options say otherwise. */
const DEFAULT_MAX_RETRIES = 2;
/** How long a stream may send nothing before it counts as stalled. */
const DEFAULT_STREAM_IDLE_MS = 300_000;

/** Creates a ModelClient that streams Chat Completions from an OpenAI-compatible server. */
export function createOpenAiClient(options: OpenAiClientOptions): ModelClient {
  // What each reply stream carried outside SSE framing (an error the SDK would drop).
  const strays = new WeakMap<Response, StrayError>();
  const sdk = createSdk(options, strays);
  const profile = new ProfileState(profileChoice(options));
  const finish = replyFinisher(options.baseURL);
  const parts: ClientParts = { sdk, options: { ...options, profile }, strays };
  return {
    stream: (request, streamOptions) =>
      finish(request, streamOptions, (o) => streamReply(parts, request, o)),
    contextWindow: async ({ signal }) => {
      const info = await fetchServerInfo(sdk, options.model, {
        baseURL: options.baseURL,
        identify: profile.undecided,
        ...(signal === undefined ? {} : { signal }),
      });
      // The metadata the window comes from also names the server when its URL did not.
      profile.detectFromServer(signals(info));
      // A budget that cannot fit this window is capped before the server rejects it.
      if (info.window !== undefined) parts.window = info.window;
      return info.window;
    },
  };
}

function signals(info: ServerInfo): ServerSignals {
  return {
    entry: info.entry,
    props: info.props !== undefined,
    ...(info.ollamaVersion === undefined ? {} : { ollamaVersion: info.ollamaVersion }),
  };
}

/** What `moat doctor` shows: the profile, and what the server said (or why it said nothing). */
export interface ServerInspection extends ProfileReport {
  /** The context window the server states. */
  window?: number;
  /** The version Ollama's `/api/version` stated (asked only when nothing else named the server). */
  ollamaVersion?: string;
  /** Why `/v1/models` gave no answer: unreachable, the key rejected, not found. */
  failure?: ModelError;
}

/**
 * The profile a client of `options` uses, as `moat doctor` shows it, and whether the server
 * answers: its `/v1/models` is asked (the request a run makes for the window), and when the URL
 * and the choice decide nothing, what it says names the profile.
 */
export async function inspectServer(
  options: OpenAiClientOptions,
  signal?: AbortSignal,
): Promise<ServerInspection> {
  const profile = new ProfileState(profileChoice(options));
  const info = await fetchServerInfo(createSdk(options, new WeakMap()), options.model, {
    baseURL: options.baseURL,
    identify: profile.undecided,
    ...(signal === undefined ? {} : { signal }),
  });
  profile.detectFromServer(signals(info));
  return {
    ...profile.report(),
    ...(info.window === undefined ? {} : { window: info.window }),
    ...(info.ollamaVersion === undefined ? {} : { ollamaVersion: info.ollamaVersion }),
    ...(info.failure === undefined ? {} : {
      failure: toModelError(info.failure, {
        ...options,
        timeoutMs: METADATA_TIMEOUT_MS,
        midStream: false,
      }),
    }),
  };
}

function createSdk(
  options: OpenAiClientOptions,
  strays: WeakMap<Response, StrayError>,
): OpenAI {
  return new OpenAI({
    baseURL: options.baseURL,
    apiKey: options.apiKey === "" ? "no-key" : options.apiKey,
    adminAPIKey: null,
    organization: options.organization ?? null,
    project: options.project ?? null,
    webhookSecret: null,
    // moat retries itself (retry.ts), so that every retry is visible and broken streams count.
    maxRetries: 0,
    ...(options.timeoutMs === undefined ? {} : { timeout: options.timeoutMs }),
    ...(options.headers === undefined ? {} : { defaultHeaders: options.headers }),
    // The SDK would otherwise log to the console (e.g. on malformed chunks); failures reach
    // callers as ModelErrors instead.
    logLevel: "off",
    // Keeps error bodies the SDK would reduce to "(no body)" (errors.ts reads them), and reads
    // the error lines the SDK drops from event streams (_sse_tap.ts).
    fetch: tapEventStreams(rawErrorFetch(), strays),
  });
}

/** How one attempt ended: a reply (null when aborted) or a failure to judge for a retry. */
type Attempt =
  | { type: "reply"; message: AssistantMessage | null }
  | { type: "failed"; error: unknown; mapped: ModelError; midStream: boolean };

/** What every attempt of a client needs. */
interface ClientParts {
  sdk: OpenAI;
  options: OpenAiClientOptions & { profile: ProfileState };
  strays: WeakMap<Response, StrayError>;
  /** The context window the server stated (see `contextWindow`), once known. */
  window?: number;
}

async function streamReply(
  parts: ClientParts,
  request: ModelRequest,
  streamOptions: ModelStreamOptions,
): Promise<AssistantMessage | null> {
  const { options } = parts;
  const { signal } = streamOptions;
  const maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
  const build = () =>
    toChatParams(request, {
      model: options.model,
      switches: options.profile.switches(),
      baseURL: options.baseURL,
      ...(parts.window === undefined ? {} : { window: parts.window }),
      ...(options.echoReasoningContent === undefined
        ? {}
        : { echoReasoningContent: options.echoReasoningContent }),
    });
  let params = build();
  for (let retry = 0;; retry++) {
    if (signal?.aborted) return null;
    const attempt = await attemptReply(parts, params, streamOptions);
    if (attempt.type === "reply") return attempt.message;
    const { error, mapped } = attempt;
    // A field, role or budget the server rejected: the same request again without it, once per
    // cause (not counted as a retry).
    const learned = attempt.midStream
      ? undefined
      : learnFromAttempt(options.profile, error, mapped, params);
    if (learned !== undefined) {
      options.onWarning?.(learnedWarning(learned, mapped.status));
      params = build();
      retry--;
      continue;
    }
    if (retry >= maxRetries || !isRetryable(error, mapped)) throw mapped;
    const waitMs = retryWaitMs(error, retry + 1, { nowMs: Date.now(), random: Math.random() });
    if (waitMs === undefined) throw mapped;
    try {
      streamOptions.onRetry?.({
        attempt: retry + 1,
        maxRetries,
        cause: mapped.kind,
        message: mapped.message,
        ...(mapped.status === undefined ? {} : { status: mapped.status }),
        waitMs,
        midStream: attempt.midStream,
      });
    } catch {
      // A failing sink must not change whether the request is retried.
    }
    if (!(await sleep(waitMs, signal))) return null;
  }
}

/** One attempt: the request, then its stream assembled; a stalled stream is cut off. */
async function attemptReply(
  { sdk, options, strays }: ClientParts,
  params: ReturnType<typeof toChatParams>,
  { signal, onEvent }: ModelStreamOptions,
): Promise<Attempt> {
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
  const idleMs = options.streamIdleTimeoutMs ?? DEFAULT_STREAM_IDLE_MS;
  const cut = new AbortController();
  const requestSignal = signal === undefined ? cut.signal : AbortSignal.any([signal, cut.signal]);
  let stalled = false;
  const timers = options.timers ?? GLOBAL_TIMERS;
  let timer: unknown;
  const disarm = () => {
    if (timer !== undefined) timers.clearTimeout(timer);
    timer = undefined;
  };
  // Fed by chunks only: the SDK drops SSE comments, so keep-alives never count as data.
  const arm = () => {
    disarm();
    timer = timers.setTimeout(() => {
      stalled = true;
      cut.abort();
    }, idleMs);
  };
  const stallError = () =>
    new ModelError(
      "incomplete_stream",
      `The model's reply stream stalled: no data for ${
        idleMs / 1000
      } s. The partial reply was discarded.`,
    );
  const failed = (error: unknown, midStream: boolean): Attempt => ({
    type: "failed",
    error,
    mapped: inStream(error, toModelError(error, { ...options, midStream })),
    midStream,
  });
  let opened = false;
  let stray: StrayError | undefined;
  try {
    const { data: stream, response } = await sdk.chat.completions
      .create(params, { signal: requestSignal }).withResponse();
    stray = strays.get(response);
    opened = true;
    emit({ type: "message_start" });
    arm();
    for await (const chunk of stream) {
      if (signal?.aborted) break;
      arm();
      assembler.add(chunk);
    }
  } catch (error) {
    if (signal?.aborted) return { type: "reply", message: null };
    return failed(stalled ? stallError() : error, opened);
  } finally {
    disarm();
  }
  // The SDK ends iteration quietly when its request was aborted.
  if (signal?.aborted) return { type: "reply", message: null };
  if (stalled) return failed(stallError(), true);
  try {
    return { type: "reply", message: assembler.finish() };
  } catch (error) {
    if (error instanceof ModelError) return failed(withStray(error, stray), true);
    throw error;
  }
}

/**
 * An error the server reported inside a 200 stream (the SDK throws those as an APIError without
 * a status) is retried only when its body says it is transient; otherwise it is the provider's
 * message, once.
 */
function inStream(error: unknown, mapped: ModelError): ModelError {
  if (!(error instanceof OpenAI.APIError) || error.status !== undefined) return mapped;
  if (mapped.kind !== "server" || isTransientStreamError(error.error)) return mapped;
  return new ModelError("bad_request", mapped.message, { cause: error });
}

/** A stream that ended without a finish reason, with the error the server wrote outside SSE. */
function withStray(error: ModelError, stray: StrayError | undefined): ModelError {
  if (error.kind !== "incomplete_stream" || stray?.message === undefined) return error;
  return new ModelError(
    "incomplete_stream",
    "The model's reply stream ended without a finish reason; the server wrote, outside the " +
      `event stream: "${stray.message}". The partial reply was discarded; try again.`,
    { cause: error },
  );
}
