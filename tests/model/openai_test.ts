import assert from "node:assert/strict";
import { Type } from "@sinclair/typebox";
import { createOpenAiClient, type OpenAiClientOptions } from "../../src/model/openai.ts";
import {
  type AssistantMessage,
  type Message,
  ModelError,
  type ModelRequest,
  type ModelStreamEvent,
  type ToolSpec,
} from "../../src/model/types.ts";
import {
  type FakeOpenAIServer,
  fault,
  openAiRequestProblems,
  reply,
  startFakeOpenAI,
} from "../support/fake_openai.ts";

const PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

function client(server: FakeOpenAIServer, options: Partial<OpenAiClientOptions> = {}) {
  return createOpenAiClient({
    baseURL: server.baseURL,
    apiKey: "sk-test",
    model: "test-model",
    ...options,
  });
}

function request(overrides: Partial<ModelRequest> = {}): ModelRequest {
  return {
    system: "You are a test.",
    messages: [{ role: "user", content: "hello" }],
    tools: [],
    ...overrides,
  };
}

async function modelError(promise: Promise<unknown>): Promise<ModelError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof ModelError, `expected a ModelError, got ${String(error)}`);
    return error;
  }
  assert.fail("expected the stream to throw a ModelError");
}

const readTool: ToolSpec = {
  name: "read",
  description: "Reads a file.",
  parameters: Type.Object({
    path: Type.String({ description: "File path, relative to the workspace." }),
    limit: Type.Optional(Type.Integer({ description: "Maximum lines.", minimum: 1 })),
  }),
};

Deno.test("stream() assembles text and two interleaved tool calls into exact blocks with usage", async () => {
  await using server = await startFakeOpenAI();
  server.script(
    reply.toolCalls([
      { id: "call_a", name: "read", arguments: { path: "src/a.ts", limit: 10 } },
      { id: "call_b", name: "ls", arguments: { path: "." } },
    ], {
      text: "Let me look at both.",
      interleave: true,
      argChunks: 3,
      usage: { prompt_tokens: 120, completion_tokens: 30, cached_tokens: 64 },
    }),
  );
  const events: ModelStreamEvent[] = [];
  const message = await client(server).stream(request({ tools: [readTool] }), {
    onEvent: (e) => events.push(e),
  });
  assert.deepEqual(message, {
    role: "assistant",
    blocks: [
      { type: "text", text: "Let me look at both." },
      { type: "toolCall", id: "call_a", name: "read", arguments: { path: "src/a.ts", limit: 10 } },
      { type: "toolCall", id: "call_b", name: "ls", arguments: { path: "." } },
    ],
    stopReason: "toolUse",
    usage: { inputTokens: 120, outputTokens: 30, cachedTokens: 64, totalTokens: 150 },
    model: "test-model",
  });
  const toolDeltas = events.filter((e) => e.type === "toolcall_delta");
  assert.ok(toolDeltas.length >= 6, `only ${toolDeltas.length} argument deltas`);
  assert.deepEqual(toolDeltas.slice(0, 2).map((e) => e.index), [0, 1], "deltas interleave");
  assert.deepEqual(events[0], { type: "message_start" });
  assert.deepEqual(events.filter((e) => e.type === "toolcall_start"), [
    { type: "toolcall_start", index: 0, id: "call_a", name: "read" },
    { type: "toolcall_start", index: 1, id: "call_b", name: "ls" },
  ]);
  const text = events.flatMap((e) => e.type === "text_delta" ? [e.delta] : []).join("");
  assert.equal(text, "Let me look at both.");
});

Deno.test("stream() maps finish_reason length with a tool call to maxTokens and keeps the call", async () => {
  await using server = await startFakeOpenAI();
  server.script(
    reply.toolCalls([{ id: "c1", name: "write", arguments: '{"path":"a","content":"x"}' }], {
      finishReason: "length",
    }),
  );
  const message = await client(server).stream(request(), {});
  assert.equal(message?.stopReason, "maxTokens");
  assert.deepEqual(message?.blocks, [
    { type: "toolCall", id: "c1", name: "write", arguments: { path: "a", content: "x" } },
  ]);
});

Deno.test("stream() maps stop, content_filter, stop-with-calls and function_call finish reasons", async () => {
  await using server = await startFakeOpenAI();
  server.script(
    reply.text("done"),
    reply.text("filtered", { finishReason: "content_filter" }),
    reply.toolCalls([{ id: "c1", name: "ls", arguments: {} }], { finishReason: "stop" }),
    reply.toolCalls([{ id: "c2", name: "ls", arguments: {} }], { finishReason: "function_call" }),
  );
  const c = client(server);
  assert.equal((await c.stream(request(), {}))?.stopReason, "stop");
  const filtered = await c.stream(request(), {});
  assert.equal(filtered?.stopReason, "error");
  assert.equal(filtered?.rawStopReason, "content_filter");
  assert.equal((await c.stream(request(), {}))?.stopReason, "toolUse");
  const legacy = await c.stream(request(), {});
  assert.equal(legacy?.stopReason, "toolUse");
  assert.equal(legacy?.rawStopReason, undefined);
});

Deno.test("stream() keeps invalid JSON arguments raw and marks the call instead of throwing", async () => {
  await using server = await startFakeOpenAI();
  server.script(reply.toolCalls([{ id: "bad", name: "edit", arguments: '{"path": "a.ts", "old' }]));
  const message = await client(server).stream(request(), {});
  const call = message?.blocks[0];
  assert.equal(call?.type, "toolCall");
  if (call?.type !== "toolCall") return;
  assert.equal(call.arguments, '{"path": "a.ts", "old');
  assert.equal(typeof call.invalidJson, "string");
  assert.ok((call.invalidJson ?? "").length > 0);
});

Deno.test("stream() accepts arguments sent as an object and empty arguments as {}", async () => {
  await using server = await startFakeOpenAI();
  server.script(
    reply.toolCalls([
      { id: "o1", name: "grep", arguments: { pattern: "TODO", path: "src" }, argsAsObject: true },
      { id: "e1", name: "ls", arguments: "" },
    ]),
  );
  const message = await client(server).stream(request(), {});
  assert.deepEqual(message?.blocks, [
    { type: "toolCall", id: "o1", name: "grep", arguments: { pattern: "TODO", path: "src" } },
    { type: "toolCall", id: "e1", name: "ls", arguments: {} },
  ]);
});

Deno.test("stream() generates stable unique ids for calls sent without one", async () => {
  await using server = await startFakeOpenAI();
  const calls = [
    { id: null, name: "read", arguments: { path: "a" } },
    { id: null, name: "read", arguments: { path: "b" } },
  ];
  server.script(reply.toolCalls(calls), reply.toolCalls(calls));
  const started: string[] = [];
  const c = client(server);
  const first = await c.stream(request(), {
    onEvent: (e) => e.type === "toolcall_start" && started.push(e.id),
  });
  const ids = first?.blocks.flatMap((b) => b.type === "toolCall" ? [b.id] : []) ?? [];
  assert.equal(ids.length, 2);
  assert.notEqual(ids[0], ids[1]);
  assert.ok(ids.every((id) => id.startsWith("call_")));
  assert.deepEqual(started, ids, "events announce the same ids as the message");
  const again = await c.stream(request(), {});
  assert.deepEqual(
    again?.blocks.flatMap((b) => b.type === "toolCall" ? [b.id] : []),
    ids,
    "the same request yields the same ids",
  );
  server.script(reply.toolCalls(calls));
  const other = await c.stream(request({ messages: [{ role: "user", content: "other" }] }), {});
  const otherIds = other?.blocks.flatMap((b) => b.type === "toolCall" ? [b.id] : []) ?? [];
  assert.equal(otherIds.length, 2);
  assert.ok(!otherIds.some((id) => ids.includes(id)), "another turn gets other ids");
});

Deno.test("stream() returns one message after a 429 with retry-after is retried", async () => {
  await using server = await startFakeOpenAI();
  server.script(fault.status(429, { retryAfter: 0 }), reply.text("fine now"));
  const message = await client(server).stream(request(), {});
  assert.deepEqual(message?.blocks, [{ type: "text", text: "fine now" }]);
  assert.equal(server.chatRequests.length, 2);
});

Deno.test("stream() throws ModelError server with the status after 500 three times", async () => {
  await using server = await startFakeOpenAI();
  server.script(
    fault.status(500, { retryAfter: 0 }),
    fault.status(500, { retryAfter: 0 }),
    fault.status(500, { retryAfter: 0, message: "Upstream exploded." }),
  );
  const error = await modelError(client(server, { maxRetries: 2 }).stream(request(), {}));
  assert.equal(error.kind, "server");
  assert.equal(error.status, 500);
  assert.match(error.message, /Upstream exploded\./);
  assert.equal(server.chatRequests.length, 3);
});

Deno.test("stream() throws rate_limit when 429s outlast the retries", async () => {
  await using server = await startFakeOpenAI();
  server.script(fault.status(429, { retryAfter: 0 }));
  const error = await modelError(client(server, { maxRetries: 0 }).stream(request(), {}));
  assert.equal(error.kind, "rate_limit");
  assert.equal(error.status, 429);
});

Deno.test("stream() throws incomplete_stream when the stream disconnects mid-message", async () => {
  await using server = await startFakeOpenAI();
  server.script(
    fault.disconnect(reply.text("this will be cut off"), { afterChunks: 3 }),
    fault.disconnect(reply.text("this ends quietly"), { afterChunks: 3, clean: true }),
  );
  const c = client(server);
  const texts: string[] = [];
  const abrupt = await modelError(
    c.stream(request(), { onEvent: (e) => e.type === "text_delta" && texts.push(e.delta) }),
  );
  assert.equal(abrupt.kind, "incomplete_stream");
  assert.ok(texts.length > 0, "part of the reply had streamed");
  const clean = await modelError(c.stream(request(), {}));
  assert.equal(clean.kind, "incomplete_stream");
  assert.equal(server.chatRequests.length, 2, "a started stream is never retried");
});

Deno.test("stream() throws incomplete_stream on a malformed chunk", async () => {
  await using server = await startFakeOpenAI();
  server.script(fault.malformed(reply.text("a b c"), { afterChunks: 2 }));
  const error = await modelError(client(server).stream(request(), {}));
  assert.equal(error.kind, "incomplete_stream");
});

Deno.test("stream() throws auth on 401 naming how to set the key", async () => {
  await using server = await startFakeOpenAI();
  server.script(fault.unauthorized(), fault.unauthorized());
  const byDefault = await modelError(client(server).stream(request(), {}));
  assert.equal(byDefault.kind, "auth");
  assert.equal(byDefault.status, 401);
  assert.match(byDefault.message, /OPENAI_API_KEY/);
  const hinted = await modelError(
    client(server, { apiKeyHint: "set MY_KEY or pass --api-key-env" }).stream(request(), {}),
  );
  assert.match(hinted.message, /set MY_KEY or pass --api-key-env/);
  assert.doesNotMatch(
    hinted.message,
    /\.\./,
    "one full stop between the server's message and ours",
  );
  assert.equal(server.chatRequests.length, 2, "401 is not retried");
});

Deno.test("stream() recognises context overflow on 400 and other 400s as bad_request", async () => {
  await using server = await startFakeOpenAI();
  server.script(
    fault.contextOverflow(),
    fault.status(400, { message: "Input is too long for requested model.", code: null }),
    fault.status(400, { message: "Unknown parameter: 'foo'." }),
  );
  const c = client(server);
  const overflow = await modelError(c.stream(request(), {}));
  assert.equal(overflow.kind, "context_overflow");
  assert.equal(overflow.status, 400);
  assert.match(overflow.message, /maximum context length/);
  assert.equal((await modelError(c.stream(request(), {}))).kind, "context_overflow");
  const bad = await modelError(c.stream(request(), {}));
  assert.equal(bad.kind, "bad_request");
  assert.match(bad.message, /Unknown parameter: 'foo'/);
});

Deno.test("stream() throws network when nothing listens at the base URL", async () => {
  const server = await startFakeOpenAI();
  const baseURL = server.baseURL;
  await server.close();
  const c = createOpenAiClient({ baseURL, apiKey: "k", model: "m", maxRetries: 0 });
  const error = await modelError(c.stream(request(), {}));
  assert.equal(error.kind, "network");
  assert.ok(error.message.includes(baseURL));
});

function roundTripHistory(): Message[] {
  return [
    { role: "user", content: "Compare the two files." },
    {
      role: "assistant",
      blocks: [
        { type: "text", text: "Reading both." },
        { type: "toolCall", id: "call_1", name: "read", arguments: { path: "a.png" } },
        { type: "toolCall", id: "call_2", name: "read", arguments: { path: "b.txt" } },
      ],
      stopReason: "toolUse",
      usage: { inputTokens: 1, outputTokens: 1, cachedTokens: 0, totalTokens: 2 },
    },
    {
      role: "toolResult",
      results: [
        {
          toolCallId: "call_1",
          toolName: "read",
          content: [{ type: "text", text: "Read image a.png" }, {
            type: "image",
            data: PNG,
            mimeType: "image/png",
          }],
          isError: false,
        },
        { toolCallId: "call_2", toolName: "read", content: "hello from b", isError: false },
      ],
    },
    {
      role: "user",
      content: [{ type: "text", text: "And this one?" }, {
        type: "image",
        data: PNG,
        mimeType: "image/png",
      }],
    },
  ];
}

Deno.test("stream() converts a history with tool calls and an image result to a valid request", async () => {
  await using server = await startFakeOpenAI();
  server.script(reply.text("They differ."));
  const history = roundTripHistory();
  const message = await client(server).stream(
    request({ messages: history, tools: [readTool], maxOutputTokens: 500, temperature: 0.2 }),
    {},
  );
  assert.equal(message?.stopReason, "stop");
  const body = (await server.waitForRequest(1)).body;
  assert.ok(body);
  assert.deepEqual(openAiRequestProblems(body), []);
  const m = body.messages;
  assert.deepEqual(m.map((x) => x.role), [
    "system",
    "user",
    "assistant",
    "tool",
    "tool",
    "user",
    "user",
  ]);
  assert.deepEqual(m[0], { role: "system", content: "You are a test." });
  assert.deepEqual(m[2], {
    role: "assistant",
    content: "Reading both.",
    tool_calls: [
      { id: "call_1", type: "function", function: { name: "read", arguments: '{"path":"a.png"}' } },
      { id: "call_2", type: "function", function: { name: "read", arguments: '{"path":"b.txt"}' } },
    ],
  });
  assert.equal(m[3]?.tool_call_id, "call_1");
  assert.equal(typeof m[3]?.content, "string");
  assert.match(String(m[3]?.content), /Read image a\.png/);
  assert.deepEqual(m[4], { role: "tool", tool_call_id: "call_2", content: "hello from b" });
  const imageMessage = m[5]?.content as Array<Record<string, unknown>>;
  assert.equal(imageMessage[0]?.type, "text");
  assert.match(String(imageMessage[0]?.text), /"call_1"/);
  assert.deepEqual(imageMessage[1], {
    type: "image_url",
    image_url: { url: `data:image/png;base64,${PNG}` },
  });
  assert.deepEqual(m[6]?.content, [
    { type: "text", text: "And this one?" },
    { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } },
  ]);
  assert.equal(body.max_completion_tokens, 500);
  assert.equal(body.max_tokens, undefined);
  assert.equal(body.temperature, 0.2);
  assert.equal(body.model, "test-model");
  assert.deepEqual(body.stream_options, { include_usage: true });
  assert.equal("parallel_tool_calls" in body, false);
});

Deno.test("stream() sends TypeBox schemas as plain JSON Schema with descriptions", async () => {
  await using server = await startFakeOpenAI();
  server.script(reply.text("ok"));
  await client(server).stream(request({ tools: [readTool] }), {});
  const req = await server.waitForRequest(1);
  assert.deepEqual(req.body?.tools, [{
    type: "function",
    function: {
      name: "read",
      description: "Reads a file.",
      parameters: {
        type: "object",
        properties: {
          path: { type: "string", description: "File path, relative to the workspace." },
          limit: { type: "integer", description: "Maximum lines.", minimum: 1 },
        },
        required: ["path"],
      },
    },
  }]);
  assert.equal(Object.getOwnPropertySymbols(readTool.parameters).length > 0, true);
});

Deno.test("stream() in non-vision mode sends no image parts and leaves history untouched", async () => {
  await using server = await startFakeOpenAI();
  server.script(reply.text("ok"));
  const history = roundTripHistory();
  const before = structuredClone(history);
  await client(server, { vision: false }).stream(request({ messages: history }), {});
  const req = await server.waitForRequest(1);
  assert.deepEqual(openAiRequestProblems(req.body), []);
  assert.equal(req.rawBody.includes("image_url"), false);
  assert.equal(req.rawBody.includes(PNG), false);
  assert.match(req.rawBody, /image omitted \(image\/png\)/);
  assert.deepEqual(history, before);
});

Deno.test("stream() honours the compatibility switches", async () => {
  await using server = await startFakeOpenAI();
  server.script(reply.text("one"), reply.text("two"));
  const c = client(server, {
    streamOptions: false,
    maxTokensField: "max_tokens",
    parallelToolCalls: false,
    headers: { "x-moat-test": "yes" },
  });
  const withoutUsage = await c.stream(request({ tools: [readTool], maxOutputTokens: 64 }), {});
  assert.deepEqual(withoutUsage?.usage, {
    inputTokens: 0,
    outputTokens: 0,
    cachedTokens: 0,
    totalTokens: 0,
  });
  await c.stream(request(), {});
  const [first, second] = server.chatRequests;
  assert.equal(first?.body?.stream, true);
  assert.equal("stream_options" in (first?.body ?? {}), false);
  assert.equal(first?.body?.max_tokens, 64);
  assert.equal("max_completion_tokens" in (first?.body ?? {}), false);
  assert.equal(first?.body?.parallel_tool_calls, false);
  assert.equal(first?.headers["x-moat-test"], "yes");
  assert.equal("tools" in (second?.body ?? {}), false, "no empty tools array");
  assert.equal("parallel_tool_calls" in (second?.body ?? {}), false);
  assert.equal("max_tokens" in (second?.body ?? {}), false);
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

Deno.test("stream() splits calls that share index 0 but carry different ids", async () => {
  await using server = await startFakeOpenAI();
  server.script(
    reply.deltas([
      { tool_calls: [{ index: 0, id: "g1", type: "function", function: { name: "ls" } }] },
      { tool_calls: [{ index: 0, function: { arguments: '{"path":"a"}' } }] },
      { tool_calls: [{ index: 0, id: "g2", type: "function", function: { name: "ls" } }] },
      { tool_calls: [{ index: 0, function: { arguments: '{"path":"b"}' } }] },
    ], { finishReason: "tool_calls" }),
  );
  const message = await client(server).stream(request(), {});
  assert.deepEqual(message?.blocks, [
    { type: "toolCall", id: "g1", name: "ls", arguments: { path: "a" } },
    { type: "toolCall", id: "g2", name: "ls", arguments: { path: "b" } },
  ]);
});

Deno.test("stream() answers calls without a recorded result and moves stray results to user text", async () => {
  await using server = await startFakeOpenAI();
  server.script(reply.text("ok"));
  const usage = { inputTokens: 0, outputTokens: 0, cachedTokens: 0, totalTokens: 0 };
  const history: Message[] = [
    { role: "user", content: "go" },
    {
      role: "assistant",
      blocks: [
        { type: "toolCall", id: "c1", name: "ls", arguments: {} },
        {
          type: "toolCall",
          id: "c2",
          name: "bash",
          arguments: '{"command": "ls',
          invalidJson: "x",
        },
      ],
      stopReason: "toolUse",
      usage,
    },
    {
      role: "toolResult",
      results: [
        { toolCallId: "zz", toolName: "ls", content: "stray", isError: false },
        { toolCallId: "c2", toolName: "bash", content: "bad args", isError: true },
      ],
    },
  ];
  await client(server).stream(request({ messages: history }), {});
  const body = (await server.waitForRequest(1)).body;
  assert.deepEqual(openAiRequestProblems(body), []);
  const m = body?.messages ?? [];
  assert.deepEqual(m.map((x) => x.role), ["system", "user", "assistant", "tool", "tool", "user"]);
  assert.equal(m[2]?.tool_calls?.[1]?.function.arguments, "{}");
  assert.deepEqual(m.slice(3, 5).map((x) => x.tool_call_id), ["c1", "c2"]);
  assert.match(String(m[3]?.content), /No result was recorded/);
  assert.equal(m[4]?.content, "bad args");
  assert.match(String(m[5]?.content), /"zz".*\nstray/);
});

Deno.test("stream() keeps one call when the server sends its id after the name", async () => {
  await using server = await startFakeOpenAI();
  server.script(
    reply.deltas([
      { tool_calls: [{ index: 0, type: "function", function: { name: "ls" } }] },
      { tool_calls: [{ index: 0, id: "late_1", function: { arguments: '{"path":' } }] },
      { tool_calls: [{ index: 0, id: "late_1", function: { arguments: '"a"}' } }] },
    ], { finishReason: "tool_calls" }),
  );
  const started: string[] = [];
  const message = await client(server).stream(request(), {
    onEvent: (e) => e.type === "toolcall_start" && started.push(e.id),
  });
  assert.equal(message?.blocks.length, 1);
  const call = message?.blocks[0];
  assert.equal(call?.type, "toolCall");
  if (call?.type !== "toolCall") return;
  assert.equal(call.name, "ls");
  assert.deepEqual(call.arguments, { path: "a" });
  assert.deepEqual(started, [call.id], "the announced id is the one in the message");
});

Deno.test("stream() recognises llama.cpp and DashScope context overflow messages", async () => {
  await using server = await startFakeOpenAI();
  server.script(
    fault.status(400, {
      message: "the request exceeds the available context size, try increasing it",
      type: "exceed_context_size_error",
      code: null,
    }),
    fault.status(400, {
      message: "<400> InternalError.Algo.InvalidParameter: Range of input length should be " +
        "[1, 129024]",
      code: null,
    }),
  );
  const c = client(server);
  assert.equal((await modelError(c.stream(request(), {}))).kind, "context_overflow");
  assert.equal((await modelError(c.stream(request(), {}))).kind, "context_overflow");
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

Deno.test("stream() assembles calls sent without an index, as Gemini does", async () => {
  await using server = await startFakeOpenAI();
  server.script(
    reply.deltas([
      { tool_calls: [{ id: "fc-1", type: "function", function: { name: "read" } }] },
      { tool_calls: [{ function: { arguments: '{"path":' } }] },
      { tool_calls: [{ function: { arguments: '"a"}' } }] },
      {
        tool_calls: [{
          id: "fc-2",
          type: "function",
          function: { name: "read", arguments: '{"path":"b"}' },
        }],
      },
    ], { finishReason: "stop" }),
  );
  const message = await client(server).stream(request(), {});
  assert.equal(message?.stopReason, "toolUse");
  assert.deepEqual(message?.blocks, [
    { type: "toolCall", id: "fc-1", name: "read", arguments: { path: "a" } },
    { type: "toolCall", id: "fc-2", name: "read", arguments: { path: "b" } },
  ]);
});

Deno.test("stream() replays invalid or non-object arguments as {} so strict servers accept them", async () => {
  await using server = await startFakeOpenAI();
  server.script(reply.text("ok"));
  const usage = { inputTokens: 0, outputTokens: 0, cachedTokens: 0, totalTokens: 0 };
  const history: Message[] = [
    { role: "user", content: "go" },
    {
      role: "assistant",
      blocks: [
        { type: "toolCall", id: "c1", name: "edit", arguments: '{"path": "a', invalidJson: "x" },
        { type: "toolCall", id: "c2", name: "edit", arguments: ["a.ts"] },
        { type: "toolCall", id: "c3", name: "edit", arguments: { path: "b.ts" } },
      ],
      stopReason: "toolUse",
      usage,
    },
    {
      role: "toolResult",
      results: ["c1", "c2", "c3"].map((id) => ({
        toolCallId: id,
        toolName: "edit",
        content: `result ${id}`,
        isError: id !== "c3",
      })),
    },
  ];
  const before = structuredClone(history);
  await client(server).stream(request({ messages: history }), {});
  const body = (await server.waitForRequest(1)).body;
  assert.deepEqual(openAiRequestProblems(body), []);
  assert.deepEqual(
    body?.messages[2]?.tool_calls?.map((c) => c.function.arguments),
    ["{}", "{}", '{"path":"b.ts"}'],
  );
  assert.deepEqual(history, before, "stored history keeps what the model sent");
});

Deno.test("stream() on a 404 from a base URL without /v1 suggests the /v1 URL", async () => {
  await using server = await startFakeOpenAI();
  const c = createOpenAiClient({ baseURL: server.url, apiKey: "k", model: "m", maxRetries: 0 });
  const error = await modelError(c.stream(request(), {}));
  assert.equal(error.kind, "bad_request");
  assert.equal(error.status, 404);
  assert.ok(error.message.includes(`try --base-url ${server.url}/v1`), error.message);
  // With a version path, a 404 (e.g. an unknown model) gets no such hint.
  server.script(fault.status(404, { message: "The model 'm' does not exist." }));
  const versioned = await modelError(client(server).stream(request(), {}));
  assert.doesNotMatch(versioned.message, /try --base-url/);
});
