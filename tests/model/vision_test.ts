import assert from "node:assert/strict";
import { knownVision } from "../../src/model/vision.ts";

Deno.test("knownVision() knows vision families, text-only families, and says nothing of the rest", () => {
  for (
    const model of [
      "gpt-4.1",
      "gpt-4o-mini",
      "openai/gpt-5",
      "o3",
      "claude-3-5-sonnet",
      "claude-sonnet-4-5",
      "gemini-2.5-pro",
      "qwen2.5-vl:7b",
      "llava:13b",
      "llama3.2-vision",
      "gemma3:12b",
    ]
  ) assert.equal(knownVision(model), true, model);
  for (
    const model of ["o3-mini", "gpt-3.5-turbo", "deepseek-chat", "qwen2.5-coder:7b", "gpt-oss-20b"]
  ) assert.equal(knownVision(model), false, model);
  for (const model of ["llama3.1:8b", "my-local-model"]) {
    assert.equal(knownVision(model), undefined, model);
  }
});
