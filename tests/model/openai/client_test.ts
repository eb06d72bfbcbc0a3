/** The client over the SDK: retries, and aborts before, during and between attempts. */
import assert from "node:assert/strict";
import type { AssistantMessage } from "../../../src/model/types.ts";
import { fault, reply, startFakeOpenAI } from "../../support/fake_openai.ts";
import { client, request } from "./_helpers.ts";

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
