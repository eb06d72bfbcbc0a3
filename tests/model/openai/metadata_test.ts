/** contextWindow(): the server's window for the model from /v1/models, and llama.cpp's /props. */
import assert from "node:assert/strict";
import { createOpenAiClient } from "../../../src/model/openai/mod.ts";
import type { ModelClient } from "../../../src/model/types.ts";
import { type FakeOpenAIOptions, startFakeOpenAI } from "../../support/fake_openai.ts";
import { client } from "./_helpers.ts";

function windowOf(c: ModelClient, signal?: AbortSignal): Promise<number | undefined> {
  assert.ok(c.contextWindow, "the OpenAI client implements contextWindow");
  return c.contextWindow(signal === undefined ? {} : { signal });
}

async function windowFrom(options: FakeOpenAIOptions, model = "test-model") {
  await using server = await startFakeOpenAI(options);
  const window = await windowOf(client(server, { model }));
  return { window, paths: server.requests.map((r) => `${r.method} ${r.path}`) };
}

Deno.test("contextWindow() reads vLLM's max_model_len from the model's /v1/models entry", async () => {
  const { window, paths } = await windowFrom({
    models: ["test-model"],
    modelInfo: { max_model_len: 24_000, owned_by: "vllm" },
  });
  assert.equal(window, 24_000);
  assert.deepEqual(paths, ["GET /v1/models"]);
});

Deno.test("contextWindow() picks the configured model's entry, or the only one listed", async () => {
  const several = { models: ["other", "test-model"], modelInfo: { context_length: 131_072 } };
  assert.equal((await windowFrom(several)).window, 131_072);
  assert.equal(
    (await windowFrom(several, "missing")).window,
    undefined,
    "no entry of its own among several",
  );
  const single = { models: ["/models/qwen.gguf"], modelInfo: { max_model_len: 8192 } };
  assert.equal((await windowFrom(single, "local")).window, 8192);
});

Deno.test("contextWindow() asks llama.cpp's /props at the server root when the entry lacks n_ctx", async () => {
  const props = { default_generation_settings: { n_ctx: 8192 }, total_slots: 1 };
  const byOwner = await windowFrom({ modelInfo: { owned_by: "llamacpp" }, props }, "any");
  assert.equal(byOwner.window, 8192);
  assert.deepEqual(byOwner.paths, ["GET /v1/models", "GET /props"]);
  const byMeta = await windowFrom({ modelInfo: { meta: { n_ctx_train: 131_072 } }, props }, "x");
  assert.equal(byMeta.window, 8192, "the trained maximum is not the window");
  const inEntry = await windowFrom({ modelInfo: { meta: { n_ctx: 4096 } }, props }, "x");
  assert.equal(inEntry.window, 4096);
  assert.deepEqual(inEntry.paths, ["GET /v1/models"], "no /props when the entry has n_ctx");
  const withoutProps = await windowFrom({ modelInfo: { owned_by: "llamacpp" } }, "x");
  assert.equal(withoutProps.window, undefined, "a 404 on /props is no window");
});

Deno.test("contextWindow() is undefined when the entry has no window field", async () => {
  const { window, paths } = await windowFrom({ models: ["test-model"], props: { n_ctx: 4096 } });
  assert.equal(window, undefined);
  assert.deepEqual(
    paths,
    ["GET /v1/models", "GET /api/version"],
    "/props only for llama.cpp; Ollama's /api/version as nothing named the server",
  );
});

Deno.test("contextWindow() resolves undefined, never throws, when the server is down or it is aborted", async () => {
  const server = await startFakeOpenAI({ modelInfo: { max_model_len: 24_000 } });
  const baseURL = server.baseURL;
  assert.equal(await windowOf(client(server), AbortSignal.abort()), undefined);
  assert.equal(server.requests.length, 0, "an aborted call sends nothing");
  await server.close();
  const down = createOpenAiClient({ baseURL, apiKey: "k", model: "test-model", maxRetries: 0 });
  assert.equal(await windowOf(down), undefined);
});

Deno.test("contextWindow() makes one attempt, whatever the client's retries", async () => {
  // A server that hangs up on every connection: the SDK would retry it as a connection error.
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  let connections = 0;
  const serving = (async () => {
    for await (const conn of listener) {
      connections++;
      conn.close();
    }
  })();
  const { port } = listener.addr as Deno.NetAddr;
  const c = createOpenAiClient({
    baseURL: `http://127.0.0.1:${port}/v1`,
    apiKey: "k",
    model: "test-model",
    maxRetries: 3,
  });
  assert.equal(await windowOf(c), undefined);
  listener.close();
  await serving;
  assert.equal(connections, 1);
});
