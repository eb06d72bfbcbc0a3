/** Which failed attempts are retried and after how long (retry.ts), and the client applying it. */
import assert from "node:assert/strict";
import OpenAI from "openai";
import { isRetryable, retryAfterMs, retryWaitMs, sleep } from "../../../src/model/openai/retry.ts";
import { ModelError, type ModelErrorKind, type ModelRetry } from "../../../src/model/types.ts";
import { fault, reply, startFakeOpenAI } from "../../support/fake_openai.ts";
import { client, request } from "./_helpers.ts";

/** An HTTP 429 from the SDK with `headers`. */
function rateLimited(headers: Record<string, string>): InstanceType<typeof OpenAI.APIError> {
  return new OpenAI.RateLimitError(
    429,
    { message: "slow down" },
    "slow down",
    new Headers(headers),
  );
}

function mapped(kind: ModelErrorKind, status?: number): ModelError {
  return new ModelError(kind, "failed", status === undefined ? {} : { status });
}

const NOW = Date.parse("2025-01-01T00:00:00Z");

Deno.test("retryAfterMs() reads retry-after-ms, then retry-after in seconds or as an HTTP date", () => {
  assert.equal(retryAfterMs(rateLimited({ "retry-after-ms": "1500" }), NOW), 1500);
  assert.equal(retryAfterMs(rateLimited({ "retry-after": "2" }), NOW), 2000);
  assert.equal(retryAfterMs(rateLimited({ "retry-after": "0.5" }), NOW), 500);
  assert.equal(
    retryAfterMs(rateLimited({ "retry-after-ms": "250", "retry-after": "9" }), NOW),
    250,
    "retry-after-ms wins",
  );
  assert.equal(
    retryAfterMs(rateLimited({ "retry-after-ms": "soon", "retry-after": "3" }), NOW),
    3000,
    "an unusable retry-after-ms falls back to retry-after",
  );
  assert.equal(
    retryAfterMs(rateLimited({ "retry-after": new Date(NOW + 7_000).toUTCString() }), NOW),
    7000,
  );
  assert.equal(
    retryAfterMs(rateLimited({ "retry-after": new Date(NOW - 7_000).toUTCString() }), NOW),
    0,
    "a date in the past means now",
  );
});

Deno.test("retryAfterMs() is undefined without a usable header or an HTTP response", () => {
  assert.equal(retryAfterMs(rateLimited({}), NOW), undefined);
  assert.equal(retryAfterMs(rateLimited({ "retry-after": "later, maybe" }), NOW), undefined);
  assert.equal(retryAfterMs(new OpenAI.APIConnectionError({ message: "refused" }), NOW), undefined);
  assert.equal(retryAfterMs(new Error("retry-after: 2"), NOW), undefined);
});

Deno.test("isRetryable() retries rate limits, server, network and broken streams but not auth or overflow", () => {
  const plain = new Error("whatever the SDK threw");
  for (const kind of ["rate_limit", "server", "network", "incomplete_stream"] as const) {
    assert.equal(isRetryable(plain, mapped(kind)), true, kind);
  }
  for (const kind of ["auth", "context_overflow", "replay_exhausted"] as const) {
    assert.equal(isRetryable(plain, mapped(kind)), false, kind);
  }
  assert.equal(isRetryable(plain, mapped("bad_request", 408)), true, "408 timeout");
  assert.equal(isRetryable(plain, mapped("bad_request", 409)), true, "409 conflict");
  assert.equal(isRetryable(plain, mapped("bad_request", 400)), false, "400");
  assert.equal(isRetryable(plain, mapped("bad_request", 422)), false, "422");
});

Deno.test("isRetryable() follows the server's x-should-retry header over the kind", () => {
  const server500 = (value: string) =>
    new OpenAI.InternalServerError(
      500,
      { message: "x" },
      "x",
      new Headers({ "x-should-retry": value }),
    );
  assert.equal(isRetryable(server500("false"), mapped("server", 500)), false);
  const bad400 = new OpenAI.BadRequestError(
    400,
    { message: "x" },
    "x",
    new Headers({ "x-should-retry": "true" }),
  );
  assert.equal(isRetryable(bad400, mapped("bad_request", 400)), true);
  assert.equal(isRetryable(server500("maybe"), mapped("server", 500)), true, "other values: kind");
});

Deno.test("retryWaitMs() backs off from 500 ms, doubling up to 8 s, with jitter between 75 and 100 %", () => {
  const error = rateLimited({});
  const wait = (retry: number, random: number) => retryWaitMs(error, retry, { nowMs: NOW, random });
  assert.deepEqual([1, 2, 3, 4, 5, 6, 10].map((n) => wait(n, 0)), [
    375,
    750,
    1500,
    3000,
    6000,
    6000,
    6000,
  ]);
  assert.deepEqual([1, 2, 5, 6].map((n) => wait(n, 0.999999)), [500, 1000, 8000, 8000]);
  assert.equal(wait(1, 0.5), 438);
});

Deno.test("retryWaitMs() waits what retry-after asks, and gives up when it asks for over a minute", () => {
  const wait = (headers: Record<string, string>) =>
    retryWaitMs(rateLimited(headers), 1, { nowMs: NOW, random: 0 });
  assert.equal(wait({ "retry-after": "2" }), 2000, "no jitter on the server's wish");
  assert.equal(wait({ "retry-after": "0" }), 0);
  assert.equal(wait({ "retry-after": "60" }), 60_000);
  assert.equal(wait({ "retry-after": "61" }), undefined);
  assert.equal(wait({ "retry-after-ms": "60001" }), undefined);
});

Deno.test("sleep() resolves true after the wait and false at once when aborted", async () => {
  assert.equal(await sleep(0, undefined), true);
  const aborted = new AbortController();
  aborted.abort();
  assert.equal(await sleep(60_000, aborted.signal), false, "already aborted");
  const controller = new AbortController();
  const pending = sleep(60_000, controller.signal);
  controller.abort();
  // The test's timer sanitizer also proves the 60 s timer was cleared.
  assert.equal(await pending, false);
});

Deno.test("stream() does not retry a 500 that says x-should-retry: false", async () => {
  await using server = await startFakeOpenAI();
  // Nothing scripted: the fake answers 500 "script exhausted" with x-should-retry: false.
  const retries: ModelRetry[] = [];
  await assert.rejects(
    client(server).stream(request(), { onRetry: (r) => retries.push(r) }),
    (e: unknown) => e instanceof ModelError && e.kind === "server" && e.status === 500,
  );
  assert.equal(server.chatRequests.length, 1);
  assert.deepEqual(retries, []);
});

Deno.test("stream() reports one retry of a 429 with its cause and status, then returns the reply", async () => {
  await using server = await startFakeOpenAI();
  server.script(fault.status(429, { retryAfter: 0 }), reply.text("fine now"));
  const retries: ModelRetry[] = [];
  const message = await client(server).stream(request(), { onRetry: (r) => retries.push(r) });
  assert.deepEqual(message?.blocks, [{ type: "text", text: "fine now" }]);
  assert.equal(server.chatRequests.length, 2);
  assert.equal(retries.length, 1);
  assert.deepEqual(
    {
      attempt: retries[0]?.attempt,
      maxRetries: retries[0]?.maxRetries,
      cause: retries[0]?.cause,
      status: retries[0]?.status,
      waitMs: retries[0]?.waitMs,
      midStream: retries[0]?.midStream,
    },
    { attempt: 1, maxRetries: 2, cause: "rate_limit", status: 429, waitMs: 0, midStream: false },
  );
});
