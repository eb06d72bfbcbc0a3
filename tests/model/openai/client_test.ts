/** The client over the SDK: retries, and aborts before, during and between attempts. */
import assert from "node:assert/strict";
import type { AssistantMessage, ModelRetry, ModelStreamEvent } from "../../../src/model/types.ts";
import { fault, reply, startFakeOpenAI } from "../../support/fake_openai.ts";
import { createManualClock } from "../../support/manual_clock.ts";
import { client, modelError, request } from "./_helpers.ts";
import {
  EVENT_ERROR_WITHOUT_ERROR_KEY,
  GROQ_TOOL_USE_FAILED,
  LLAMACPP_ERROR_CHUNK,
  LLAMACPP_OLD_ERROR_FIELD,
  OLLAMA_RUNNER_ERROR_MID_STREAM,
  OPENROUTER_ERROR_CHUNK,
  OPENROUTER_FINISH_ERROR,
  OPENROUTER_PROCESSING_COMMENT,
} from "./_server_streams.ts";

Deno.test("stream() returns one message after a 429 with retry-after is retried", async () => {
  await using server = await startFakeOpenAI();
  server.script(fault.status(429, { retryAfter: 0 }), reply.text("fine now"));
  const message = await client(server).stream(request(), {});
  assert.deepEqual(message?.blocks, [{ type: "text", text: "fine now" }]);
  assert.equal(server.chatRequests.length, 2);
});

Deno.test("stream() returns null without a request when the signal is already aborted", async () => {
  await using server = await startFakeOpenAI();
  const controller = new AbortController();
  controller.abort();
  const result = await client(server).stream(request(), { signal: controller.signal });
  assert.equal(result, null);
  assert.equal(server.requests.length, 0);
});

Deno.test("stream() returns null promptly when aborted mid-stream and closes the connection", async () => {
  await using server = await startFakeOpenAI();
  server.script(fault.stall(reply.text("never finishes this sentence"), { afterChunks: 3 }));
  const controller = new AbortController();
  let abortedAt = 0;
  const result = await client(server).stream(request(), {
    signal: controller.signal,
    onEvent: (e) => {
      if (e.type === "text_delta" && abortedAt === 0) {
        abortedAt = performance.now();
        controller.abort();
      }
    },
  });
  const elapsed = performance.now() - abortedAt;
  assert.equal(result, null);
  // Far below what the server would have made it wait (a stall, 5 s, 30 s), far above any
  // scheduling delay on a loaded machine: the abort is what ended it. Speed is for the bench.
  assert.ok(elapsed < 2500, `abort took ${elapsed.toFixed(1)} ms`);
  await server.waitForStreamsClosed();
  assert.equal(server.openStreams, 0);
});

Deno.test("stream() returns null promptly when aborted while waiting for the first byte", async () => {
  await using server = await startFakeOpenAI();
  server.script(fault.delay(5_000, reply.text("too late")));
  const controller = new AbortController();
  const pending = client(server).stream(request(), { signal: controller.signal });
  await server.waitForRequest(1);
  const abortedAt = performance.now();
  controller.abort();
  const result: AssistantMessage | null = await pending;
  const elapsed = performance.now() - abortedAt;
  assert.equal(result, null);
  // Far below what the server would have made it wait (a stall, 5 s, 30 s), far above any
  // scheduling delay on a loaded machine: the abort is what ended it. Speed is for the bench.
  assert.ok(elapsed < 2500, `abort took ${elapsed.toFixed(1)} ms`);
});

Deno.test("stream() returns null promptly when aborted during a retry-after wait", async () => {
  await using server = await startFakeOpenAI();
  server.script(fault.status(429, { retryAfter: 30 }), reply.text("never requested"));
  const controller = new AbortController();
  const pending = client(server).stream(request(), { signal: controller.signal });
  await server.waitForRequest(1);
  // Let the SDK read the 429 and start waiting the 30 s it asked for.
  await new Promise((resolve) => setTimeout(resolve, 50));
  const abortedAt = performance.now();
  controller.abort();
  const result = await pending;
  const elapsed = performance.now() - abortedAt;
  assert.equal(result, null);
  // Far below what the server would have made it wait (a stall, 5 s, 30 s), far above any
  // scheduling delay on a loaded machine: the abort is what ended it. Speed is for the bench.
  assert.ok(elapsed < 2500, `abort took ${elapsed.toFixed(1)} ms`);
  assert.equal(server.chatRequests.length, 1, "no retry after the abort");
});

Deno.test("stream() retries Ollama's and old llama.cpp's streams that end without a finish reason, never answering with them", async () => {
  await using server = await startFakeOpenAI();
  server.script(
    reply.sse(OLLAMA_RUNNER_ERROR_MID_STREAM),
    reply.sse(LLAMACPP_OLD_ERROR_FIELD),
    reply.text("the whole reply"),
  );
  const retries: ModelRetry[] = [];
  const message = await client(server, { maxRetries: 2 }).stream(request(), {
    onRetry: (r) => retries.push(r),
  });
  assert.deepEqual(message?.blocks, [{ type: "text", text: "the whole reply" }]);
  assert.deepEqual(retries.map((r) => [r.cause, r.midStream]), [
    ["incomplete_stream", true],
    ["incomplete_stream", true],
  ]);
  // The SDK drops both error lines; moat reads them from the raw stream and names them.
  assert.match(
    retries[0]?.message ?? "",
    /"an error was encountered while running the model: unexpected EOF"/,
  );
  assert.match(retries[1]?.message ?? "", /"Compute error\."/);
  server.script(reply.sse(OLLAMA_RUNNER_ERROR_MID_STREAM));
  const error = await modelError(client(server, { maxRetries: 0 }).stream(request(), {}));
  assert.equal(error.kind, "incomplete_stream");
  assert.match(error.message, /unexpected EOF/);
});

Deno.test("stream() retries transient errors inside a 200 stream (OpenRouter, llama.cpp, event: error) and names the provider's message", async () => {
  await using server = await startFakeOpenAI();
  const cases: Array<[string, string[], RegExp]> = [
    ["OpenRouter error chunk", OPENROUTER_ERROR_CHUNK, /Provider disconnected unexpectedly/],
    ["llama.cpp error chunk", LLAMACPP_ERROR_CHUNK, /Compute error\./],
    ["event: error without error", EVENT_ERROR_WITHOUT_ERROR_KEY, /Upstream model is overloaded\./],
    ["OpenRouter finish error", OPENROUTER_FINISH_ERROR, /finish_reason "error"/],
  ];
  const c = client(server, { maxRetries: 1 });
  for (const [name, fixture, wording] of cases) {
    server.script(reply.sse(fixture), reply.text("fine now"));
    const retries: ModelRetry[] = [];
    const message = await c.stream(request(), { onRetry: (r) => retries.push(r) });
    assert.deepEqual(message?.blocks, [{ type: "text", text: "fine now" }], name);
    assert.deepEqual(retries.map((r) => [r.cause, r.midStream]), [["server", true]], name);
    assert.match(retries[0]?.message ?? "", wording, name);
  }
  server.script(reply.sse(OPENROUTER_ERROR_CHUNK));
  const error = await modelError(client(server, { maxRetries: 0 }).stream(request(), {}));
  assert.equal(error.kind, "server");
  assert.match(error.message, /Provider disconnected unexpectedly/);
});

Deno.test("stream() stops at once on Groq's event: error with a permanent code and shows its message", async () => {
  await using server = await startFakeOpenAI();
  server.script(reply.sse(GROQ_TOOL_USE_FAILED), reply.text("never requested"));
  const retries: ModelRetry[] = [];
  const error = await modelError(
    client(server, { maxRetries: 2 }).stream(request(), { onRetry: (r) => retries.push(r) }),
  );
  assert.equal(error.kind, "bad_request");
  assert.match(error.message, /Failed to call a function\. Please adjust your prompt\./);
  assert.deepEqual(retries, []);
  assert.equal(server.chatRequests.length, 1);
});

Deno.test("stream() does not let SSE comments reset the idle timeout (manual clock)", async () => {
  await using server = await startFakeOpenAI();
  const clock = createManualClock();
  const idleMs = 300_000;
  server.script(
    // OpenRouter's keep-alive comments, and never a chunk, until the client gives up.
    fault.stall(reply.sse(`${OPENROUTER_PROCESSING_COMMENT}\n\n`), {
      afterChunks: 1,
      comment: OPENROUTER_PROCESSING_COMMENT,
    }),
    reply.text("after the stall"),
  );
  const controller = new AbortController();
  let opened!: () => void;
  const open = new Promise<void>((resolve) => opened = resolve);
  const retries: ModelRetry[] = [];
  const pending = client(server, { streamIdleTimeoutMs: idleMs, timers: clock }).stream(
    request(),
    {
      signal: controller.signal,
      onEvent: (e: ModelStreamEvent) => e.type === "message_start" && opened(),
      onRetry: (r) => retries.push(r),
    },
  );
  await open;
  if (clock.pending() !== 1) {
    controller.abort();
    await pending;
    assert.fail("the idle timeout must run on the injected timers");
  }
  clock.tick(idleMs - 1);
  // Comments keep coming (real time) while the idle clock stands still.
  const seen = server.commentsSent;
  for (let i = 0; i < 500 && server.commentsSent < seen + 3; i++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  assert.ok(server.commentsSent >= seen + 3, "the server sent comments meanwhile");
  clock.tick(1);
  const fired = clock.pending() === 0;
  if (!fired) controller.abort();
  const message = await pending;
  assert.ok(fired, "the idle timeout fired idleMs after the last chunk, comments or not");
  assert.deepEqual(message?.blocks, [{ type: "text", text: "after the stall" }]);
  assert.equal(retries.length, 1);
  assert.match(retries[0]?.message ?? "", /stalled: no data for 300 s/);
  await server.waitForStreamsClosed();
});
