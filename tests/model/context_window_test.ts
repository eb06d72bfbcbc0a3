/** Context windows: built-in ones, overflow errors' numbers, and servers' model metadata. */
import assert from "node:assert/strict";
import {
  knownContextWindow,
  parseOverflow,
  windowFromLlamaProps,
  windowFromModelInfo,
} from "../../src/model/context_window.ts";
import { OVERFLOW_FIXTURES } from "./overflow_fixtures.ts";

Deno.test("knownContextWindow() knows OpenAI's families by the longest matching id prefix", () => {
  const cases: Array<[string, number | undefined]> = [
    ["gpt-5", 400_000],
    ["gpt-5-mini-2025-08-07", 400_000],
    ["gpt-4.1-nano", 1_047_576],
    ["gpt-4o-2024-08-06", 128_000],
    ["gpt-4o-mini", 128_000],
    ["chatgpt-4o-latest", 128_000],
    ["gpt-4-turbo-2024-04-09", 128_000],
    ["gpt-4-1106-preview", 128_000],
    ["gpt-4-0125-preview", 128_000],
    ["gpt-4", 8_192],
    ["gpt-4-0613", 8_192],
    ["gpt-4-32k-0613", 32_768],
    ["gpt-3.5-turbo-0125", 16_385],
    ["o1", 200_000],
    ["o1-2024-12-17", 200_000],
    ["o1-mini-2024-09-12", 128_000],
    ["o3-mini", 200_000],
    ["o4-mini", 200_000],
    ["codex-mini-latest", 200_000],
  ];
  for (const [model, window] of cases) assert.equal(knownContextWindow(model), window, model);
});

Deno.test("knownContextWindow() strips a provider prefix and knows nothing of other models", () => {
  assert.equal(knownContextWindow("openai/gpt-4o"), 128_000);
  assert.equal(knownContextWindow("openai/o1-mini"), 128_000);
  assert.equal(knownContextWindow("gpt-4.5-preview"), undefined, "not gpt-4's 8192");
  assert.equal(knownContextWindow("gpt-4-vision-x"), undefined);
  assert.equal(knownContextWindow("llama3.1:8b"), undefined);
  assert.equal(knownContextWindow("qwen/qwen3-coder"), undefined);
  assert.equal(knownContextWindow(""), undefined);
});

Deno.test("parseOverflow() reads the window and prompt tokens of each server's wording", () => {
  for (const { server, message, expected } of OVERFLOW_FIXTURES) {
    assert.deepEqual(parseOverflow(message), expected, server);
  }
});

Deno.test("parseOverflow() reads numbers with thousands separators", () => {
  assert.deepEqual(
    parseOverflow(
      "This model's maximum context length is 128,000 tokens. However, your messages resulted " +
        "in 1,130,532 tokens.",
    ),
    { window: 128_000, promptTokens: 1_130_532 },
  );
  assert.deepEqual(parseOverflow("prompt is too long: 210,000 tokens > 200,000 maximum"), {
    window: 200_000,
    promptTokens: 210_000,
  });
});

Deno.test("parseOverflow() takes llama.cpp's body fields over the message, wrapped or not", () => {
  const inner = {
    code: 400,
    message: "request (4476 tokens) exceeds the available context size (4096 tokens)",
    type: "exceed_context_size_error",
    n_prompt_tokens: 4476,
    n_ctx: 4096,
  };
  const expected = { window: 4096, promptTokens: 4476 };
  assert.deepEqual(parseOverflow(inner.message, inner), expected);
  assert.deepEqual(parseOverflow(inner.message, { error: inner }), expected);
  assert.deepEqual(parseOverflow("context overflow", { error: inner }), expected);
  assert.deepEqual(
    parseOverflow(inner.message, { ...inner, n_prompt_tokens: 4500, n_ctx: 8192 }),
    { window: 8192, promptTokens: 4500 },
    "the body wins",
  );
});

Deno.test("parseOverflow() returns {} for junk and drops numbers it cannot trust", () => {
  assert.deepEqual(parseOverflow(""), {});
  assert.deepEqual(parseOverflow("Unknown parameter: 'foo'."), {});
  assert.deepEqual(parseOverflow("Something went wrong", "not an object"), {});
  assert.deepEqual(parseOverflow("x", { error: { n_ctx: "4096", n_prompt_tokens: -3 } }), {});
  assert.deepEqual(parseOverflow("x", [4096]), {});
  assert.deepEqual(
    parseOverflow(
      "This model's maximum context length is 12 tokens. However, your messages " +
        "resulted in 0 tokens.",
    ),
    {},
    "a 12-token window and a 0-token prompt are misreadings",
  );
  assert.deepEqual(
    parseOverflow("This model's maximum context length is 99999999999999999999 tokens."),
    {},
  );
  assert.deepEqual(parseOverflow("prompt too long; exceeded max context length by 0 tokens"), {});
});

Deno.test("windowFromModelInfo() reads each server's window field", () => {
  assert.equal(windowFromModelInfo({ id: "m", max_model_len: 24_000 }), 24_000);
  assert.equal(windowFromModelInfo({ id: "m", context_length: 131_072 }), 131_072);
  assert.equal(windowFromModelInfo({ id: "m", context_window: 131_072 }), 131_072);
  assert.equal(
    windowFromModelInfo({ id: "m", loaded_context_length: 8192, max_context_length: 32_768 }),
    8192,
    "LM Studio's loaded length is what the server will accept",
  );
  assert.equal(windowFromModelInfo({ id: "m", max_context_length: 32_768 }), 32_768);
  assert.equal(
    windowFromModelInfo({ id: "m", owned_by: "llamacpp", meta: { n_ctx: 4096, n_ctx_train: 1e5 } }),
    4096,
  );
});

Deno.test("windowFromModelInfo() is undefined without a trustworthy window field", () => {
  assert.equal(windowFromModelInfo({ id: "m", owned_by: "fake" }), undefined);
  assert.equal(
    windowFromModelInfo({ id: "m", meta: { n_ctx_train: 131_072 } }),
    undefined,
    "the trained maximum is not the server's window",
  );
  assert.equal(windowFromModelInfo({ max_model_len: "24000" }), undefined);
  assert.equal(windowFromModelInfo({ max_model_len: 0 }), undefined);
  assert.equal(windowFromModelInfo({ context_length: 1.5 }), undefined);
  assert.equal(windowFromModelInfo(null), undefined);
  assert.equal(windowFromModelInfo("m"), undefined);
});

Deno.test("windowFromLlamaProps() prefers default_generation_settings.n_ctx, then n_ctx", () => {
  assert.equal(
    windowFromLlamaProps({ default_generation_settings: { n_ctx: 8192 }, n_ctx: 4096 }),
    8192,
  );
  assert.equal(windowFromLlamaProps({ default_generation_settings: {}, n_ctx: 4096 }), 4096);
  assert.equal(windowFromLlamaProps({ total_slots: 1 }), undefined);
  assert.equal(windowFromLlamaProps({ n_ctx: -1 }), undefined);
  assert.equal(windowFromLlamaProps("<html>"), undefined);
  assert.equal(windowFromLlamaProps(undefined), undefined);
});
