/**
 * SDK and HTTP failures as ModelErrors: the kind the loop acts on (auth, rate_limit, server,
 * context_overflow, bad_request, network, incomplete_stream) and a message that names the server
 * and says what to do next, with the server's own message read from its raw error body of any
 * shape (`_raw_errors.ts`, `_error_body.ts`) and kept in `ModelError.detail`.
 */
import OpenAI from "openai";
import { isRecord, parseOutputBudget, parseOverflow } from "../context_window.ts";
import { ModelError, type ModelErrorDetail } from "../types.ts";
import { readErrorBody } from "./_error_body.ts";
import { rawErrorBody } from "./_raw_errors.ts";

/** What `toModelError` needs to know about the server and the request that failed. */
export interface ErrorContext {
  /** The server's base URL, named in messages. */
  baseURL: string;
  /** The per-attempt timeout in ms, named when the server did not answer in time. */
  timeoutMs?: number;
  /** Told to the user on HTTP 401/403 (default: set OPENAI_API_KEY). */
  apiKeyHint?: string;
  /** The reply stream had started: an unrecognised failure broke it off. */
  midStream: boolean;
}

const DEFAULT_KEY_HINT = "set OPENAI_API_KEY to a valid key for this server";

// OpenAI, OpenRouter, DeepSeek, vLLM, Groq, Mistral, Gemini, LM Studio ("context length",
// "maximum context", "reduce the length", "too large for model with"), vLLM ("longer than the
// maximum model length"), llama.cpp ("exceeds the available context size"), Ollama ("prompt too
// long", "exceeded max context length", "input length exceeds the context length"),
// Anthropic-compatible ("prompt is too long"), DashScope ("Range of input length should be …").
const CONTEXT_OVERFLOW =
  /context[ _-]?(length|window|size)|maximum context|too many tokens|prompt (is )?too long|input is too long|exceeds? the (model'?s? )?(maximum|max|context|available context)|exceeded max context length|longer than the maximum model length|input length exceeds the context length|too large for model with|reduce the length|maximum input length|range of input length|token limit/i;

/** What the server said: its message, its error fields, and the detail kept on the ModelError. */
interface ServerWords {
  message: string;
  /** The inner error object (for `code`, llama.cpp's `n_ctx`), when there was one. */
  error: unknown;
  /** The message is only a summary of a body in no known shape: never taken as an overflow. */
  guessed: boolean;
  detail: ModelErrorDetail;
}

/** The server's words from the raw body moat kept (any shape), else from what the SDK kept. */
function serverWords(error: InstanceType<typeof OpenAI.APIError>): ServerWords {
  const status = error.status;
  const server = error.headers?.get("server") ?? undefined;
  const raw = rawErrorBody(error.headers);
  const base = {
    ...(status === undefined ? {} : { status }),
    ...(server === undefined ? {} : { server }),
  };
  if (raw !== undefined) {
    const reading = readErrorBody(raw.text, raw.contentType);
    return {
      message: reading.message,
      error: reading.error ?? reading.json,
      guessed: reading.guessed === true,
      detail: { ...base, providerMessage: reading.message, body: raw.text },
    };
  }
  const body = error.error as { message?: unknown } | string | undefined;
  const message = sdkMessage(body, error.message);
  return { message, error: body, guessed: false, detail: { ...base, providerMessage: message } };
}

/** The message from what the SDK kept: `error.error` (the body, or its `error`) or its text. */
function sdkMessage(body: unknown, sdkText: string): string {
  // A body like `{"error": "…"}` (Ollama's native wording) arrives as the bare string.
  if (typeof body === "string") return body;
  if (isRecord(body) && typeof body.message === "string") return body.message;
  if (body !== undefined && body !== null) return readErrorBody(JSON.stringify(body)).message;
  // "400 status code (no body)": the SDK's words for an empty body, not the server's.
  if (/status code \(no body\)|no status code or body/.test(sdkText)) return "";
  return readErrorBody(sdkText.replace(/^\d{3}\s+/, "")).message;
}

function errorCode(
  error: InstanceType<typeof OpenAI.APIError>,
  inner: unknown,
): string | undefined {
  if (typeof error.code === "string") return error.code;
  return isRecord(inner) && typeof inner.code === "string" ? inner.code : undefined;
}

/** The server's message for a sentence, or what it sent instead (an empty body, with its server). */
function shown(words: ServerWords): string {
  if (words.message !== "") return words.message;
  const server = words.detail.server === undefined ? "" : ` (server: "${words.detail.server}")`;
  return `the response had an empty body${server}, so the server gave no reason: its own log ` +
    "may say more.";
}

// vLLM started without tool parsing: '"auto" tool choice requires --enable-auto-tool-choice and
// --tool-call-parser to be set' (vllm/entrypoints/openai/serving_chat.py).
const VLLM_TOOL_FLAGS = /--enable-auto-tool-choice|--tool-call-parser/;
const VLLM_TOOL_HINT = " The server (vLLM) was started without tool calling: restart it with " +
  "`--enable-auto-tool-choice --tool-call-parser NAME`, NAME the parser for the model (e.g. " +
  "`hermes` for Qwen and Hermes models, `llama3_json` for Llama 3, `mistral` for Mistral).";

/** Maps anything the SDK or the stream threw to a ModelError (a ModelError passes through). */
export function toModelError(error: unknown, context: ErrorContext): ModelError {
  const where = `"${context.baseURL}"`;
  if (error instanceof ModelError) return error;
  if (error instanceof OpenAI.APIConnectionTimeoutError) {
    return new ModelError(
      "network",
      `The model server at ${where} did not answer in time` +
        (context.timeoutMs === undefined ? "" : ` (${context.timeoutMs} ms)`) +
        ": check that it is running, or raise the timeout.",
      { cause: error },
    );
  }
  if (error instanceof OpenAI.APIConnectionError) {
    const cause = causeText(error);
    return new ModelError(
      "network",
      `Could not reach the model server at ${where}: ${cause}. Check the base URL and that the ` +
        "server is running.",
      { cause: error },
    );
  }
  if (error instanceof OpenAI.APIError) return fromApiError(error, where, context);
  const detail = error instanceof Error ? error.message : String(error);
  if (context.midStream || error instanceof SyntaxError || error instanceof TypeError) {
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

/** An error the server reported: by its status, and by its message where the status is 400. */
function fromApiError(
  error: InstanceType<typeof OpenAI.APIError>,
  where: string,
  context: ErrorContext,
): ModelError {
  const status = error.status;
  const words = serverWords(error);
  const { message, detail } = words;
  const http = status === undefined ? "in the stream" : `HTTP ${status}`;
  if (status === undefined) {
    // The server reported an error inside an already started stream.
    const overflow = message !== "" && !words.guessed && CONTEXT_OVERFLOW.test(message);
    return new ModelError(
      overflow ? "context_overflow" : "server",
      `The model server reported an error ${http}: ${shown(words)}`,
      overflow
        ? { cause: error, detail, overflow: parseOverflow(message, words.error) }
        : { cause: error, detail },
    );
  }
  if (status === 401 || status === 403) {
    return new ModelError(
      "auth",
      `The model server at ${where} rejected the API key (${http}): ${sentence(shown(words))} ` +
        `To fix it, ${context.apiKeyHint ?? DEFAULT_KEY_HINT}.`,
      { status, cause: error, detail },
    );
  }
  if (status === 429) {
    return new ModelError(
      "rate_limit",
      `The model server at ${where} is rate limiting requests (${http}) and retries ran out: ` +
        `${shown(words)}`,
      { status, cause: error, detail },
    );
  }
  if (status >= 500) {
    return new ModelError(
      "server",
      `The model server at ${where} failed (${http}) after retries: ${shown(words)}`,
      { status, cause: error, detail },
    );
  }
  // Only a message that says so is an overflow: an empty or unreadable 400 is not one.
  if (
    status === 413 ||
    (message !== "" && !words.guessed &&
      (errorCode(error, words.error) === "context_length_exceeded" ||
        (status === 400 && CONTEXT_OVERFLOW.test(message))))
  ) {
    const overflow = parseOverflow(message, words.error);
    const budget = parseOutputBudget(message);
    if (budget !== undefined) {
      return new ModelError(
        "context_overflow",
        `The reply's output budget does not fit the model's context window (${http}): ` +
          `${budget.requestedOutputTokens} tokens asked for, but the window of ` +
          `${budget.window} tokens leaves ${budget.availableOutputTokens} after the prompt ` +
          `(${budget.promptTokens} tokens): ${
            sentence(message)
          } Set a smaller maxOutputTokens (at most ` +
          `${budget.availableOutputTokens}), or leave it unset.`,
        { status, cause: error, detail, overflow, budget },
      );
    }
    return new ModelError(
      "context_overflow",
      `The conversation is too long for the model (${http}): ${shown(words)}`,
      { status, cause: error, detail, overflow },
    );
  }
  return new ModelError(
    "bad_request",
    `The model server at ${where} rejected the request (${http}): ` +
      (VLLM_TOOL_FLAGS.test(message) ? sentence(message) + VLLM_TOOL_HINT : shown(words)) +
      missingVersionHint(status, context.baseURL),
    { status, cause: error, detail },
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

/**
 * The causes of a connection error, outermost first: fetch's "fetch failed" says why only in its
 * own cause (connection refused, DNS, TLS); the SDK's own "Connection error." when none.
 */
function causeText(error: Error): string {
  const parts: string[] = [];
  for (let c = error.cause; c instanceof Error && parts.length < 4; c = c.cause) {
    const message = c.message;
    if (message !== "" && !parts.some((p) => p.includes(message))) parts.push(message);
  }
  return parts.length === 0 ? error.message : parts.join(": ");
}

/** Ends `text` with exactly one sentence-ending mark. */
function sentence(text: string): string {
  const trimmed = text.trimEnd();
  return /[.!?]$/.test(trimmed) ? trimmed : `${trimmed}.`;
}
