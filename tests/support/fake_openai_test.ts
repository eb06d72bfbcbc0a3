import assert from "node:assert/strict";
import OpenAI from "openai";
import {
  fakePromptTokens,
  fault,
  openAiRequestProblems,
  type OverflowStyle,
  repeat,
  reply,
  startFakeOpenAI,
} from "./fake_openai.ts";

function sdk(baseURL: string, maxRetries = 2): OpenAI {
  return new OpenAI({ baseURL, apiKey: "sk-test", maxRetries });
}

const userHi = [{ role: "user" as const, content: "hi" }];

Deno.test("fake server streams a tool call whose arguments arrive in 3+ pieces to the real SDK", async () => {
  await using server = await startFakeOpenAI();
  server.script(
    reply.toolCalls([{
      id: "call_abc",
      name: "read",
      arguments: { path: "src/main.ts", limit: 20 },
    }], {
      argChunks: 4,
    }),
  );
  const stream = await sdk(server.baseURL).chat.completions.create({
    model: "fake-model",
    messages: userHi,
    stream: true,
    stream_options: { include_usage: true },
  });
  const argPieces: string[] = [];
  let id = "";
  let name = "";
  let finish: string | null = null;
  let usage: OpenAI.CompletionUsage | null | undefined;
  for await (const chunk of stream) {
    if (chunk.usage) usage = chunk.usage;
    const choice = chunk.choices[0];
    if (!choice) continue;
    finish = choice.finish_reason ?? finish;
    for (const tc of choice.delta.tool_calls ?? []) {
      assert.equal(tc.index, 0);
      if (tc.id) id += tc.id;
      if (tc.function?.name) name += tc.function.name;
      if (tc.function?.arguments) argPieces.push(tc.function.arguments);
    }
  }
  assert.ok(argPieces.length >= 3, `arguments arrived in ${argPieces.length} piece(s)`);
  assert.equal(id, "call_abc");
  assert.equal(name, "read");
  assert.deepEqual(JSON.parse(argPieces.join("")), { path: "src/main.ts", limit: 20 });
  assert.equal(finish, "tool_calls");
  assert.ok(usage && usage.total_tokens === usage.prompt_tokens + usage.completion_tokens);
  assert.equal(server.requests[0]?.body?.stream, true);
});

Deno.test("fake server interleaves two tool calls by index and streams text deltas first", async () => {
  await using server = await startFakeOpenAI();
  server.script(
    reply.toolCalls([
      { id: "call_1", name: "read", arguments: { path: "a" } },
      { id: "call_2", name: "ls", arguments: { path: "b" } },
    ], { text: "Looking now.", interleave: true, argChunks: 2 }),
  );
  const stream = await sdk(server.baseURL).chat.completions.create({
    model: "m",
    messages: userHi,
    stream: true,
  });
  const indexes: number[] = [];
  let text = "";
  const args = new Map<number, string>();
  for await (const chunk of stream) {
    assert.equal(chunk.usage, undefined, "no usage without stream_options");
    const delta = chunk.choices[0]?.delta;
    text += delta?.content ?? "";
    for (const tc of delta?.tool_calls ?? []) {
      indexes.push(tc.index);
      args.set(tc.index, (args.get(tc.index) ?? "") + (tc.function?.arguments ?? ""));
    }
  }
  assert.equal(text, "Looking now.");
  assert.deepEqual(indexes, [0, 1, 0, 1, 0, 1]);
  assert.deepEqual(JSON.parse(args.get(0) ?? ""), { path: "a" });
  assert.deepEqual(JSON.parse(args.get(1) ?? ""), { path: "b" });
});

Deno.test("the SDK retries a 429 with retry-after 0 and then gets the reply", async () => {
  await using server = await startFakeOpenAI();
  server.script(fault.status(429, { retryAfter: 0 }), reply.text("after the rate limit"));
  const res = await sdk(server.baseURL).chat.completions.create({ model: "m", messages: userHi });
  assert.equal(res.choices[0]?.message.content, "after the rate limit");
  assert.equal(server.requests.length, 2);
  assert.equal(server.remainingSteps, 0);
});

Deno.test("fake server answers stream:false with a chat.completion including tool calls", async () => {
  await using server = await startFakeOpenAI();
  server.script(
    reply.text("Hello there, friend."),
    reply.toolCalls([{ id: "c1", name: "bash", arguments: '{"command":"ls"' }]),
  );
  const client = sdk(server.baseURL);
  const first = await client.chat.completions.create({ model: "gpt-x", messages: userHi });
  assert.equal(first.object, "chat.completion");
  assert.equal(first.model, "gpt-x");
  assert.equal(first.choices[0]?.message.content, "Hello there, friend.");
  assert.equal(first.choices[0]?.finish_reason, "stop");
  assert.ok((first.usage?.prompt_tokens ?? 0) > 0);
  const second = await client.chat.completions.create({ model: "gpt-x", messages: userHi });
  const call = second.choices[0]?.message.tool_calls?.[0];
  assert.equal(call?.type, "function");
  assert.equal(call?.type === "function" ? call.function.arguments : "", '{"command":"ls"');
  assert.equal(second.choices[0]?.message.content, null);
});

Deno.test("fake server lists models on GET /v1/models", async () => {
  await using server = await startFakeOpenAI({ models: ["alpha", "beta"] });
  const ids: string[] = [];
  for await (const model of sdk(server.baseURL).models.list()) ids.push(model.id);
  assert.deepEqual(ids, ["alpha", "beta"]);
  assert.equal(server.requests[0]?.method, "GET");
  assert.equal(server.requests[0]?.path, "/v1/models");
});

Deno.test("waitForRequest(n) resolves with the recorded body of the n-th request", async () => {
  await using server = await startFakeOpenAI();
  server.script(reply.text("one"), reply.text("two"));
  const client = sdk(server.baseURL);
  const second = server.waitForRequest(2);
  await client.chat.completions.create({ model: "m", messages: userHi });
  await client.chat.completions.create({
    model: "m",
    messages: [...userHi, { role: "assistant", content: "one" }, { role: "user", content: "more" }],
    tools: [{ type: "function", function: { name: "read", parameters: { type: "object" } } }],
  });
  const req = await second;
  assert.equal(req.body?.messages.length, 3);
  assert.equal(req.body?.messages[2]?.content, "more");
  assert.equal(req.body?.tools?.[0]?.function.name, "read");
  assert.equal(req.headers["authorization"], "Bearer sk-test");
});

Deno.test("status faults surface as the SDK's typed errors", async () => {
  await using server = await startFakeOpenAI();
  server.script(fault.unauthorized(), fault.contextOverflow(), fault.status(500));
  const client = sdk(server.baseURL, 0);
  const create = () => client.chat.completions.create({ model: "m", messages: userHi });
  await assert.rejects(create(), OpenAI.AuthenticationError);
  await assert.rejects(create(), (e: unknown) => {
    assert.ok(e instanceof OpenAI.BadRequestError);
    assert.match(e.message, /maximum context length/);
    return true;
  });
  await assert.rejects(create(), OpenAI.InternalServerError);
});

Deno.test("a mid-stream disconnect makes the SDK's stream iteration throw", async () => {
  await using server = await startFakeOpenAI();
  server.script(fault.disconnect(reply.text("one two three four"), { afterChunks: 3 }));
  const stream = await sdk(server.baseURL).chat.completions.create({
    model: "m",
    messages: userHi,
    stream: true,
  });
  let text = "";
  await assert.rejects(async () => {
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? "";
  });
  assert.equal(text, "one two ");
});

Deno.test("a clean early end leaves the stream without a finish_reason", async () => {
  await using server = await startFakeOpenAI();
  server.script(fault.disconnect(reply.text("a b c"), { afterChunks: 2, clean: true }));
  const stream = await sdk(server.baseURL).chat.completions.create({
    model: "m",
    messages: userHi,
    stream: true,
  });
  const finishes: Array<string | null> = [];
  for await (const chunk of stream) finishes.push(chunk.choices[0]?.finish_reason ?? null);
  assert.deepEqual(finishes, [null, null]);
});

Deno.test("a malformed chunk makes the SDK throw a parse error", async () => {
  await using server = await startFakeOpenAI();
  server.script(fault.malformed(reply.text("x y"), { afterChunks: 1 }));
  const client = new OpenAI({
    baseURL: server.baseURL,
    apiKey: "k",
    maxRetries: 0,
    logger: { error() {}, warn() {}, info() {}, debug() {} },
  });
  const stream = await client.chat.completions.create({
    model: "m",
    messages: userHi,
    stream: true,
  });
  await assert.rejects(async () => {
    for await (const _ of stream) { /* drain */ }
  }, /malformed/);
});

Deno.test("a stalled stream ends when the client aborts, and a delay holds the first byte", async () => {
  await using server = await startFakeOpenAI();
  server.script(fault.stall(reply.text("never finished"), { afterChunks: 2 }));
  server.script(fault.delay(30, reply.text("late")));
  const client = sdk(server.baseURL, 0);
  const controller = new AbortController();
  const stream = await client.chat.completions.create(
    { model: "m", messages: userHi, stream: true },
    { signal: controller.signal },
  );
  let chunks = 0;
  for await (const _ of stream) {
    if (++chunks === 2) controller.abort();
  }
  assert.equal(chunks, 2);
  await server.waitForStreamsClosed();
  const started = Date.now();
  const late = await client.chat.completions.create({ model: "m", messages: userHi });
  assert.equal(late.choices[0]?.message.content, "late");
  assert.ok(Date.now() - started >= 25);
});

Deno.test("function steps see the request, and repeat() keeps answering", async () => {
  await using server = await startFakeOpenAI();
  server.script(
    repeat((req, n) =>
      reply.toolCalls([{
        id: `call_${n}`,
        name: "ls",
        arguments: { seen: req.body?.messages.length },
      }])
    ),
  );
  const client = sdk(server.baseURL);
  for (let i = 1; i <= 3; i++) {
    const res = await client.chat.completions.create({ model: "m", messages: userHi });
    const call = res.choices[0]?.message.tool_calls?.[0];
    assert.equal(call?.id, `call_${i}`);
  }
  assert.equal(server.remainingSteps, 1);
});

Deno.test("an exhausted script answers a clear 500 that the SDK does not retry", async () => {
  await using server = await startFakeOpenAI();
  await assert.rejects(
    sdk(server.baseURL).chat.completions.create({ model: "m", messages: userHi }),
    /script exhausted/,
  );
  assert.equal(server.requests.length, 1);
});

Deno.test("invalid requests are answered 400 like the real API", async () => {
  await using server = await startFakeOpenAI();
  server.script(reply.text("unused"));
  await assert.rejects(
    sdk(server.baseURL).chat.completions.create({
      model: "m",
      messages: [
        { role: "user", content: "hi" },
        {
          role: "assistant",
          tool_calls: [{ id: "a", type: "function", function: { name: "ls", arguments: "{}" } }],
        },
        { role: "user", content: "no tool result" },
      ],
    }),
    /did not have response messages: a/,
  );
  assert.deepEqual(openAiRequestProblems({ model: "m", messages: userHi }), []);
  assert.equal(server.remainingSteps, 1);
});

async function postChat(baseURL: string, body: Record<string, unknown>) {
  const response = await fetch(`${baseURL}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

Deno.test("over contextWindow, each overflowStyle answers 400 in its server's shape without taking a step", async () => {
  const big = { model: "m", messages: [{ role: "user", content: "x".repeat(1000) }] };
  const prompt = fakePromptTokens(big);
  const window = 200;
  const excess = prompt - window;
  const expected: Record<OverflowStyle, unknown> = {
    openai: {
      error: {
        message: `This model's maximum context length is ${window} tokens. However, your ` +
          `messages resulted in ${prompt} tokens. Please reduce the length of the messages.`,
        type: "invalid_request_error",
        param: null,
        code: "context_length_exceeded",
      },
    },
    vllm: {
      object: "error",
      message: `This model's maximum context length is ${window} tokens. However, your request ` +
        `has ${prompt} input tokens. Please reduce the length of the input messages.`,
      type: "BadRequestError",
      param: null,
      code: 400,
    },
    llamacpp: {
      error: {
        code: 400,
        message: `request (${prompt} tokens) exceeds the available context size (${window} ` +
          "tokens), try increasing it",
        type: "exceed_context_size_error",
        n_prompt_tokens: prompt,
        n_ctx: window,
      },
    },
    ollama: {
      error: {
        message: `prompt too long; exceeded max context length by ${excess} tokens`,
        type: "api_error",
        param: null,
        code: null,
      },
    },
    plain: {
      error: {
        message: "the input length exceeds the context length",
        type: "invalid_request_error",
        param: null,
        code: null,
      },
    },
  };
  for (const overflowStyle of Object.keys(expected) as OverflowStyle[]) {
    await using server = await startFakeOpenAI({ contextWindow: window, overflowStyle });
    server.script(reply.text("fits"));
    const answer = await postChat(server.baseURL, big);
    assert.equal(answer.status, 400, overflowStyle);
    assert.deepEqual(answer.body, expected[overflowStyle], overflowStyle);
    assert.equal(server.overflows, 1);
    assert.equal(server.remainingSteps, 1, "an overflow takes no step");
    assert.equal(server.chatRequests.length, 1, "an overflow is recorded");
    const small = await postChat(server.baseURL, { model: "m", messages: userHi });
    assert.equal(small.status, 200);
    assert.equal(small.body.choices[0].message.content, "fits");
    assert.equal(server.overflows, 1);
  }
});

Deno.test("the window counts messages and tools exactly as usage.prompt_tokens reports them", async () => {
  const body = {
    model: "m",
    messages: [{ role: "user", content: "count me" }],
    tools: [{ type: "function", function: { name: "ls", description: "Lists a directory." } }],
  };
  const prompt = fakePromptTokens(body);
  assert.ok(
    prompt > fakePromptTokens({ model: body.model, messages: body.messages }),
    "tools count",
  );
  await using server = await startFakeOpenAI({ contextWindow: prompt });
  server.script(reply.text("fits"));
  const atWindow = await postChat(server.baseURL, body);
  assert.equal(atWindow.status, 200, "a prompt exactly at the window fits");
  assert.equal(atWindow.body.usage.prompt_tokens, prompt);
  await using tight = await startFakeOpenAI({ contextWindow: prompt - 1 });
  const over = await postChat(tight.baseURL, body);
  assert.equal(over.status, 400);
  assert.equal(over.body.error.code, "context_length_exceeded");
  assert.match(over.body.error.message, new RegExp(`resulted in ${prompt} tokens`));
});

Deno.test("modelInfo extends every /v1/models entry and props is served on GET /props", async () => {
  await using server = await startFakeOpenAI({
    models: ["a", "b"],
    modelInfo: { max_model_len: 24_000 },
    props: { default_generation_settings: { n_ctx: 8192 } },
  });
  const page = await sdk(server.baseURL).models.list();
  assert.deepEqual(page.data.map((m) => [m.id, (m as { max_model_len?: number }).max_model_len]), [
    ["a", 24_000],
    ["b", 24_000],
  ]);
  const props = await fetch(`${server.url}/props`);
  assert.equal(props.status, 200);
  assert.deepEqual(await props.json(), { default_generation_settings: { n_ctx: 8192 } });
  await using plain = await startFakeOpenAI();
  const missing = await fetch(`${plain.url}/props`);
  assert.equal(missing.status, 404);
  await missing.body?.cancel();
});

Deno.test("reply.sse plays a raw body byte for byte, and a stall after it sends the given comment", async () => {
  await using server = await startFakeOpenAI();
  const raw = [
    ": OPENROUTER PROCESSING\n\n",
    'event: error\ndata: {"message":"x"}\n\n',
    '{"error":{"message":"no data: prefix"}}\n',
  ];
  server.script(reply.sse(raw), fault.stall(reply.sse(": hi\n\n"), { comment: ": still here" }));
  const post = (signal?: AbortSignal) =>
    fetch(`${server.baseURL}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "m", messages: userHi, stream: true }),
      ...(signal === undefined ? {} : { signal }),
    });
  const first = await post();
  assert.equal(first.headers.get("content-type"), "text/event-stream; charset=utf-8");
  assert.equal(await first.text(), raw.join(""));
  const controller = new AbortController();
  const second = await post(controller.signal);
  const reader = second.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!text.includes(": still here\n\n: still here\n\n")) {
    const { value, done } = await reader.read();
    if (done) break;
    text += value;
  }
  assert.ok(text.startsWith(": hi\n\n: still here\n\n"), JSON.stringify(text));
  assert.ok(server.commentsSent >= 2);
  controller.abort();
  await reader.cancel().catch(() => {});
  await server.waitForStreamsClosed();
});

Deno.test("fake server calls onStreamEnd once a streamed reply has sent its last event", async () => {
  let ends = 0;
  await using server = await startFakeOpenAI({ onStreamEnd: () => ends++ });
  server.script(reply.text("hello there"));
  const stream = await sdk(server.baseURL).chat.completions.create({
    model: "fake-model",
    messages: userHi,
    stream: true,
  });
  let text = "";
  for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? "";
  assert.equal(text, "hello there");
  assert.equal(ends, 1);
});
