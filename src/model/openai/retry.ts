/**
 * Which failed attempts of a model request are tried again, and after how long: HTTP 408, 409,
 * 429 and 5xx (honouring retry-after and x-should-retry like the SDK), connection failures, and
 * streams that broke off, carried a malformed chunk or stalled. Nothing else is retried.
 */
import OpenAI from "openai";
import type { ModelError } from "../types.ts";

/** Backoff of the first retry; each later one doubles, up to MAX_BACKOFF_MS. */
const BASE_BACKOFF_MS = 500;
const MAX_BACKOFF_MS = 8_000;
/** The longest retry-after moat waits for; a longer one fails the request instead. */
const MAX_RETRY_AFTER_MS = 60_000;

/** The header value of a failed HTTP response, when there was one. */
function header(error: unknown, name: string): string | undefined {
  if (!(error instanceof OpenAI.APIError)) return undefined;
  const headers = error.headers as Headers | Record<string, string> | undefined;
  if (headers === undefined) return undefined;
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  return headers[name] ?? undefined;
}

/** What the server asked for in retry-after-ms / retry-after, in ms, when it asked. */
export function retryAfterMs(error: unknown, nowMs: number): number | undefined {
  const afterMs = header(error, "retry-after-ms");
  const ms = Number(afterMs);
  if (afterMs !== undefined && Number.isFinite(ms) && ms >= 0) return ms;
  const after = header(error, "retry-after");
  if (after === undefined) return undefined;
  const seconds = Number(after);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(after);
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMs);
}

/** True when the failure is worth another attempt. `error` is what the SDK or stream threw. */
export function isRetryable(error: unknown, mapped: ModelError): boolean {
  const should = header(error, "x-should-retry");
  if (should === "false") return false;
  if (should === "true") return true;
  switch (mapped.kind) {
    case "rate_limit":
    case "server":
    case "network":
    case "incomplete_stream":
      return true;
    case "bad_request":
      return mapped.status === 408 || mapped.status === 409;
    case "auth":
    case "context_overflow":
    case "replay_exhausted":
      return false;
    default: {
      const never: never = mapped.kind;
      return never;
    }
  }
}

/**
 * How long to wait before retry number `retry` (1-based): the server's retry-after when it gave
 * one (undefined when that is longer than a minute: not worth waiting), else exponential backoff
 * with jitter from `random` (0 ≤ r < 1).
 */
export function retryWaitMs(
  error: unknown,
  retry: number,
  options: { nowMs: number; random: number },
): number | undefined {
  const asked = retryAfterMs(error, options.nowMs);
  if (asked !== undefined) return asked > MAX_RETRY_AFTER_MS ? undefined : asked;
  const backoff = Math.min(MAX_BACKOFF_MS, BASE_BACKOFF_MS * 2 ** (retry - 1));
  return Math.round(backoff * (0.75 + 0.25 * options.random));
}

/** Waits `ms`; resolves false at once when `signal` aborts. */
export function sleep(ms: number, signal: AbortSignal | undefined): Promise<boolean> {
  if (signal?.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const done = (slept: boolean) => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      resolve(slept);
    };
    const onAbort = () => done(false);
    const timer = setTimeout(() => done(true), ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
