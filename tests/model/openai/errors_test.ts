/** Failures as ModelErrors: each kind, and messages that say what to do next. */
import assert from "node:assert/strict";
import OpenAI from "openai";
import { toModelError } from "../../../src/model/openai/errors.ts";
import { createOpenAiClient } from "../../../src/model/openai/mod.ts";
import { ModelError, type ModelRetry } from "../../../src/model/types.ts";
import {
  fakePromptTokens,
  fault,
  type OverflowStyle,
  reply,
  startFakeOpenAI,
} from "../../support/fake_openai.ts";
import { OVERFLOW_FIXTURES } from "../overflow_fixtures.ts";
import {
  FASTAPI_DETAIL_LIST,
  FASTAPI_DETAIL_STRING,
  GEMINI_ARRAY,
  LMSTUDIO_STRING,
  MISTRAL_FLAT_VALIDATION,
  NGINX_502_HTML,
  PLAIN_TEXT_TRACE,
  VLLM_BUDGET_AT_LEAST,
  VLLM_BUDGET_TOO_LARGE,
  VLLM_FLAT_BUDGET,
  VLLM_FLAT_OVERFLOW,
  VLLM_FLAT_TOOL_CHOICE,
} from "../error_body_fixtures.ts";
import { client, modelError, request } from "./_helpers.ts";

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

Deno.test("stream() retries a stream that breaks off (abruptly or quietly) and tells onRetry", async () => {
  await using server = await startFakeOpenAI();
  server.script(
    fault.disconnect(reply.text("this will be cut off"), { afterChunks: 3 }),
    fault.disconnect(reply.text("this ends quietly"), { afterChunks: 3, clean: true }),
    reply.text("the whole reply"),
  );
  const retries: ModelRetry[] = [];
  const texts: string[] = [];
  const message = await client(server, { maxRetries: 2 }).stream(request(), {
    onEvent: (e) => e.type === "text_delta" && texts.push(e.delta),
    onRetry: (r) => retries.push(r),
  });
  assert.equal(message?.blocks[0]?.type === "text" && message.blocks[0].text, "the whole reply");
  assert.ok(texts.length > 3, "the broken attempts had streamed part of a reply");
  assert.deepEqual(
    retries.map((r) => [r.attempt, r.maxRetries, r.cause, r.midStream]),
    [[1, 2, "incomplete_stream", true], [2, 2, "incomplete_stream", true]],
  );
  assert.ok(retries.every((r) => r.waitMs > 0 && r.message !== ""));
  assert.equal(server.chatRequests.length, 3);
});

Deno.test("stream() throws incomplete_stream when a broken stream has no retries left", async () => {
  await using server = await startFakeOpenAI();
  server.script(
    fault.disconnect(reply.text("this will be cut off"), { afterChunks: 3 }),
    fault.malformed(reply.text("a b c"), { afterChunks: 2 }),
  );
  const c = client(server, { maxRetries: 0 });
  assert.equal((await modelError(c.stream(request(), {}))).kind, "incomplete_stream");
  assert.equal((await modelError(c.stream(request(), {}))).kind, "incomplete_stream");
  assert.equal(server.chatRequests.length, 2);
});

Deno.test("stream() retries a malformed chunk and a stalled stream", async () => {
  await using server = await startFakeOpenAI();
  server.script(
    fault.malformed(reply.text("a b c"), { afterChunks: 2 }),
    fault.stall(reply.text("never finished"), { afterChunks: 2 }),
    reply.text("fine"),
  );
  const retries: ModelRetry[] = [];
  const message = await client(server, { maxRetries: 2, streamIdleTimeoutMs: 200 }).stream(
    request(),
    { onRetry: (r) => retries.push(r) },
  );
  assert.equal(message?.blocks[0]?.type === "text" && message.blocks[0].text, "fine");
  assert.equal(retries.length, 2);
  assert.match(retries[1]?.message ?? "", /stalled: no data for 0\.2 s/);
  await server.waitForStreamsClosed();
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

Deno.test("stream() attaches each server's overflow numbers to the context_overflow error", async () => {
  const window = 300;
  const long = request({ messages: [{ role: "user", content: "x".repeat(2000) }] });
  const cases: Array<[OverflowStyle, (prompt: number) => object]> = [
    ["openai", (prompt) => ({ window, promptTokens: prompt })],
    ["vllm", (prompt) => ({ window, promptTokens: prompt })],
    ["llamacpp", (prompt) => ({ window, promptTokens: prompt })],
    ["ollama", (prompt) => ({ excessTokens: prompt - window })],
    ["plain", () => ({})],
  ];
  for (const [overflowStyle, expected] of cases) {
    await using server = await startFakeOpenAI({ contextWindow: window, overflowStyle });
    const error = await modelError(client(server).stream(long, {}));
    assert.equal(error.kind, "context_overflow", overflowStyle);
    assert.equal(error.status, 400);
    const prompt = fakePromptTokens(server.chatRequests[0]!.body!);
    assert.ok(prompt > window);
    assert.deepEqual(error.overflow, expected(prompt), overflowStyle);
    assert.equal(server.chatRequests.length, 1, "an overflow is not retried");
  }
});

Deno.test("stream() classifies every known overflow wording on HTTP 400 as context_overflow", async () => {
  await using server = await startFakeOpenAI();
  server.script(
    ...OVERFLOW_FIXTURES.map(({ message }) => fault.status(400, { message, code: null })),
  );
  const c = client(server);
  for (const { server: name, message, expected } of OVERFLOW_FIXTURES) {
    const error = await modelError(c.stream(request(), {}));
    assert.equal(error.kind, "context_overflow", `${name}: ${message}`);
    assert.deepEqual(error.overflow, expected, name);
  }
});

Deno.test("an overflow reported inside a started stream carries its numbers; other errors none", () => {
  // What the SDK throws for a `data: {"error": {…}}` event in a stream.
  const inStream = new OpenAI.APIError(
    undefined,
    {
      message: "request (4476 tokens) exceeds the available context size (4096 tokens)",
      type: "exceed_context_size_error",
      n_prompt_tokens: 4476,
      n_ctx: 4096,
    },
    undefined,
    undefined,
  );
  const overflow = toModelError(inStream, { baseURL: "http://x/v1", midStream: true });
  assert.equal(overflow.kind, "context_overflow");
  assert.deepEqual(overflow.overflow, { window: 4096, promptTokens: 4476 });
  const other = new OpenAI.APIError(
    undefined,
    { message: "Upstream went away." },
    undefined,
    undefined,
  );
  const server = toModelError(other, { baseURL: "http://x/v1", midStream: true });
  assert.equal(server.kind, "server");
  assert.equal(server.overflow, undefined);
  assert.equal(Object.hasOwn(server, "overflow"), false);
});

/** The ModelError a server's raw error body `text` (HTTP `status`) becomes, through the SDK. */
async function errorForBody(
  status: number,
  text: string,
  options: { contentType?: string; server?: string } = {},
): Promise<ModelError> {
  await using server = await startFakeOpenAI();
  const body = fault.body(status, text, { contentType: "application/json", ...options });
  // A body that names a rejected field is learned from once (the request is sent again).
  server.script(body, body);
  return await modelError(client(server, { maxRetries: 0 }).stream(request(), {}));
}

Deno.test("stream() shows the provider's message for every error body shape servers send", async () => {
  const cases: Array<[string, number, string, string | undefined, string]> = [
    ["vLLM < 0.10.1 (flat)", 400, VLLM_FLAT_TOOL_CHOICE, undefined, '"auto" tool choice requires'],
    [
      "Mistral (flat, FastAPI inside)",
      422,
      MISTRAL_FLAT_VALIDATION,
      undefined,
      "max_completion_tokens: Extra inputs are not permitted",
    ],
    [
      "Gemini (array)",
      400,
      GEMINI_ARRAY,
      undefined,
      'Unknown name "reasoning": Cannot find field. (INVALID_ARGUMENT)',
    ],
    [
      "FastAPI detail list",
      422,
      FASTAPI_DETAIL_LIST,
      undefined,
      "store: Extra inputs are not permitted; max_completion_tokens: Extra inputs are not " +
      "permitted",
    ],
    ["FastAPI detail string", 400, FASTAPI_DETAIL_STRING, undefined, "Model not loaded"],
    ["LM Studio", 400, LMSTUDIO_STRING, undefined, "'response_format.type' must be 'json_schema'"],
    ["HTML page", 502, NGINX_502_HTML, "text/html", "502 Bad Gateway (an HTML page)"],
    ["plain text", 400, PLAIN_TEXT_TRACE, "text/plain", "Internal error: model runner crashed"],
  ];
  for (const [name, status, body, contentType, expected] of cases) {
    const error = await errorForBody(status, body, contentType ? { contentType } : {});
    assert.equal(error.status, status, name);
    assert.ok(error.message.includes(expected), `${name}: ${error.message}`);
    assert.doesNotMatch(error.message, /no body|<html|Traceback|\[object Object\]/, name);
    assert.notEqual(error.kind, "context_overflow", name);
    assert.equal(error.detail?.status, status, name);
    assert.equal(error.detail?.body, body, name);
    assert.ok(error.detail?.providerMessage.includes(expected.replace(/ \(an HTML page\)$/, "")));
  }
});

Deno.test("stream() on an empty error body says so with the status and server, never (no body)", async () => {
  for (const status of [400, 422, 500]) {
    const error = await errorForBody(status, "", { server: "uvicorn" });
    assert.equal(error.kind, status === 500 ? "server" : "bad_request", String(status));
    assert.ok(error.message.includes(`HTTP ${status}`), error.message);
    assert.match(error.message, /empty body \(server: "uvicorn"\)/);
    assert.doesNotMatch(error.message, /no body/);
    assert.deepEqual(error.detail, { status, server: "uvicorn", providerMessage: "", body: "" });
  }
});

Deno.test("stream() on vLLM without tool parsing shows its message and the flags to start it with", async () => {
  const error = await errorForBody(400, VLLM_FLAT_TOOL_CHOICE);
  assert.equal(error.kind, "bad_request");
  assert.ok(error.message.includes("--enable-auto-tool-choice and --tool-call-parser to be set"));
  assert.ok(
    error.message.includes("`--enable-auto-tool-choice --tool-call-parser NAME`"),
    error.message,
  );
  assert.match(error.message, /`hermes`/);
  assert.equal(
    error.detail?.providerMessage,
    '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set',
  );
});

Deno.test("stream() tells an output budget that does not fit from an overflow, with its numbers", async () => {
  const budgets: Array<[string, object]> = [
    [VLLM_FLAT_BUDGET, { window: 6048, promptTokens: 568, requestedOutputTokens: 6048 }],
    [VLLM_BUDGET_TOO_LARGE, { window: 4096, promptTokens: 2778, requestedOutputTokens: 8000 }],
    [VLLM_BUDGET_AT_LEAST, {
      window: 128_000,
      promptTokens: 62_466,
      requestedOutputTokens: 65_535,
    }],
  ];
  for (const [body, numbers] of budgets) {
    const error = await errorForBody(400, body);
    const { window, promptTokens } = numbers as { window: number; promptTokens: number };
    assert.equal(error.kind, "context_overflow");
    assert.deepEqual(error.budget, { ...numbers, availableOutputTokens: window - promptTokens });
    assert.deepEqual(error.overflow, { window, promptTokens });
    assert.match(error.message, /output budget does not fit/);
    assert.ok(error.message.includes(`at most ${window - promptTokens}`), error.message);
  }
  // The prompt alone is over the window: a real overflow, no budget to lower.
  const overflow = await errorForBody(400, VLLM_FLAT_OVERFLOW);
  assert.equal(overflow.kind, "context_overflow");
  assert.equal(overflow.budget, undefined);
  assert.deepEqual(overflow.overflow, { window: 16384, promptTokens: 112_946 });
  assert.match(overflow.message, /too long for the model/);
});

Deno.test("stream() keeps at most 64 KiB of an error body", async () => {
  const line = "x".repeat(1023) + "\n";
  const error = await errorForBody(400, "Bad request: " + line.repeat(200), {
    contentType: "text/plain",
  });
  assert.equal(error.detail?.body?.length, 64 * 1024);
  assert.ok(error.message.length < 1000, `a bounded message (${error.message.length} chars)`);
});

Deno.test("stream() never takes a 400 body in no known shape for a context overflow", async () => {
  const bodies: Array<[string, string]> = [
    [JSON.stringify({ status: "fail", reason: "token limit of your plan reached" }), "json"],
    ["<html><body><h1>Proxy: maximum context of the upstream exceeded</h1></body></html>", "html"],
  ];
  for (const [body, name] of bodies) {
    const error = await errorForBody(
      400,
      body,
      name === "html" ? { contentType: "text/html" } : {},
    );
    assert.equal(error.kind, "bad_request", name);
    assert.equal(error.overflow, undefined, name);
    assert.doesNotMatch(error.message, /<h1>/, name);
  }
});
