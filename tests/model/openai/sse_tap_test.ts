/** Errors a stream carries outside SSE framing (_sse_tap.ts): read from the raw bytes. */
import assert from "node:assert/strict";
import {
  type StrayError,
  strayErrorMessage,
  tapEventStreams,
} from "../../../src/model/openai/_sse_tap.ts";
import { reply, startFakeOpenAI } from "../../support/fake_openai.ts";
import { LLAMACPP_OLD_ERROR_FIELD, OLLAMA_RUNNER_ERROR_MID_STREAM } from "./_server_streams.ts";

Deno.test("strayErrorMessage() reads Ollama's bare JSON and llama.cpp's error: field, nothing else", () => {
  assert.equal(
    strayErrorMessage('{"error":{"message":"unexpected EOF","type":"api_error"}}'),
    "unexpected EOF",
  );
  assert.equal(strayErrorMessage('{"error":"model not found"}'), "model not found");
  assert.equal(
    strayErrorMessage('error: {"code":500,"message":"Compute error.","type":"server_error"}'),
    "Compute error.",
  );
  assert.equal(strayErrorMessage("error: plain words"), "plain words");
  assert.equal(strayErrorMessage('{"choices":[]}'), undefined);
  assert.equal(strayErrorMessage("garbage"), undefined);
});

Deno.test("tapEventStreams() passes every byte on and keeps the stray error of each stream", async () => {
  await using server = await startFakeOpenAI();
  server.script(
    reply.sse(OLLAMA_RUNNER_ERROR_MID_STREAM),
    reply.sse(LLAMACPP_OLD_ERROR_FIELD),
    reply.text("clean"),
  );
  const seen = new WeakMap<Response, StrayError>();
  const tapped = tapEventStreams((input, init) => fetch(input, init), seen);
  const post = () =>
    tapped(`${server.baseURL}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        model: "m",
        messages: [{ role: "user", content: "hi" }],
        stream: true,
      }),
    });
  const messages: Array<string | undefined> = [];
  for (const expected of [OLLAMA_RUNNER_ERROR_MID_STREAM, LLAMACPP_OLD_ERROR_FIELD]) {
    const response = await post();
    assert.equal(await response.text(), expected.join(""));
    messages.push(seen.get(response)?.message);
  }
  const clean = await post();
  await clean.text();
  messages.push(seen.get(clean)?.message);
  assert.deepEqual(messages, [
    "an error was encountered while running the model: unexpected EOF",
    "Compute error.",
    undefined,
  ]);
});
