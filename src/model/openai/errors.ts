/**
 * SDK and HTTP failures as ModelErrors: the kind the loop acts on (auth, rate_limit, server,
 * context_overflow, bad_request, network, incomplete_stream) and a message that names the server
 * and says what to do next.
 */
import OpenAI from "openai";
import { parseOverflow } from "../context_window.ts";
import { ModelError } from "../types.ts";

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

function serverMessage(error: InstanceType<typeof OpenAI.APIError>): string {
  const body = error.error as { message?: unknown } | string | undefined;
  // A body like `{"error": "…"}` (Ollama's native wording) arrives as the bare string.
  if (typeof body === "string") return body;
  if (body && typeof body === "object" && typeof body.message === "string") return body.message;
  return error.message.replace(/^\d{3}\s+/, "");
}

function errorCode(error: InstanceType<typeof OpenAI.APIError>): string | undefined {
  if (typeof error.code === "string") return error.code;
  const body = error.error as { code?: unknown } | undefined;
  return body && typeof body === "object" && typeof body.code === "string" ? body.code : undefined;
}

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
      const overflow = CONTEXT_OVERFLOW.test(message);
      return new ModelError(
        overflow ? "context_overflow" : "server",
        `The model server reported an error ${http}: ${message}`,
        overflow
          ? { cause: error, overflow: parseOverflow(message, error.error) }
          : { cause: error },
      );
    }
    if (status === 401 || status === 403) {
      return new ModelError(
        "auth",
        `The model server at ${where} rejected the API key (${http}): ${sentence(message)} ` +
          `To fix it, ${context.apiKeyHint ?? DEFAULT_KEY_HINT}.`,
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
        { status, cause: error, overflow: parseOverflow(message, error.error) },
      );
    }
    return new ModelError(
      "bad_request",
      `The model server at ${where} rejected the request (${http}): ${message}` +
        missingVersionHint(status, context.baseURL),
      { status, cause: error },
    );
  }
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
