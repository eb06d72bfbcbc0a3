/** The request body: history, images, tool schemas and the compatibility switches. */
import assert from "node:assert/strict";
import type { Message } from "../../../src/model/types.ts";
import { openAiRequestProblems, reply, startFakeOpenAI } from "../../support/fake_openai.ts";
import { client, readTool, request } from "./_helpers.ts";

const PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

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
