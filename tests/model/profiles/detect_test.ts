/** Profiles detected from the base URL and from a /v1/models entry; names for --provider. */
import assert from "node:assert/strict";
import {
  ollamaVersionOf,
  PROFILE_NAMES,
  profileFromModelEntry,
  profileFromUrl,
  profileNamed,
  ProfileState,
} from "../../../src/model/profiles/mod.ts";

Deno.test("profileFromUrl() names the family by host or default port, and only then", () => {
  const cases: Array<[string, string | undefined]> = [
    ["https://api.openai.com/v1", "openai"],
    ["https://my-res.openai.azure.com/openai/deployments/x", "azure"],
    ["http://localhost:11434/v1", "ollama"],
    ["http://127.0.0.1:1234/v1", "lmstudio"],
    ["http://gpu-box:30000/v1", "sglang"],
    ["https://openrouter.ai/api/v1", "openrouter"],
    ["https://api.deepseek.com", "deepseek"],
    ["https://api.groq.com/openai/v1", "groq"],
    ["https://api.mistral.ai/v1", "mistral"],
    ["https://generativelanguage.googleapis.com/v1beta/openai/", "gemini"],
    ["https://api.anthropic.com/v1/", "anthropic-compat"],
    ["https://api.together.xyz/v1", "together"],
    ["https://api.fireworks.ai/inference/v1", "fireworks"],
    // llama.cpp's and vLLM's default ports are shared with too much else: the server decides.
    ["http://localhost:8080/v1", undefined],
    ["http://localhost:8000/v1", undefined],
    ["https://api.openai.com.evil.example/v1", undefined],
    ["not a url", undefined],
  ];
  for (const [url, name] of cases) assert.equal(profileFromUrl(url), name, url);
});

Deno.test("profileFromModelEntry() reads owned_by and the fields each server adds", () => {
  assert.equal(profileFromModelEntry({ id: "m", owned_by: "llamacpp" }), "llamacpp");
  assert.equal(
    profileFromModelEntry({ id: "m", owned_by: "x", meta: { n_ctx_train: 1 } }),
    "llamacpp",
  );
  assert.equal(profileFromModelEntry({ id: "m", owned_by: "vllm", max_model_len: 1 }), "vllm");
  assert.equal(profileFromModelEntry({ id: "m", owned_by: "sglang" }), "sglang");
  assert.equal(profileFromModelEntry({ id: "qwen3:8b", owned_by: "library" }), "ollama");
  assert.equal(profileFromModelEntry({ id: "m", owned_by: "organization_owner" }), "lmstudio");
  assert.equal(profileFromModelEntry({ id: "m", max_model_len: 8192 }), "vllm");
  assert.equal(profileFromModelEntry({ id: "gpt-4o", owned_by: "system" }), undefined);
  assert.equal(profileFromModelEntry("nope"), undefined);
});

Deno.test("profileNamed() knows every family and two spellings; ProfileState keeps a chosen profile", () => {
  for (const name of PROFILE_NAMES) assert.equal(profileNamed(name.toUpperCase()), name);
  assert.equal(profileNamed("llama.cpp"), "llamacpp");
  assert.equal(profileNamed("nope"), undefined);
  const chosen = new ProfileState({
    baseURL: "http://localhost:11434/v1",
    model: "m",
    provider: "vllm",
    providerSource: "flag",
  });
  chosen.detectFromServer({ entry: { owned_by: "llamacpp" }, props: true });
  assert.deepEqual([chosen.report().profile, chosen.report().detectedBy], ["vllm", "flag"]);
  const byUrl = new ProfileState({ baseURL: "http://localhost:11434/v1", model: "m" });
  byUrl.detectFromServer({ entry: { owned_by: "vllm" } });
  assert.equal(
    byUrl.report().profile,
    "ollama",
    "the URL decided: the metadata does not change it",
  );
  assert.equal(byUrl.report().sources.maxTokensField, "profile");
});

Deno.test("ollamaVersionOf() takes only Ollama's own answer: one version field, x.y.z", () => {
  assert.equal(ollamaVersionOf({ version: "0.12.3" }), "0.12.3");
  assert.equal(ollamaVersionOf({ version: "0.13.0-rc1" }), "0.13.0-rc1");
  assert.equal(ollamaVersionOf({ version: "0.6.5", deployment_id: "x" }), undefined);
  assert.equal(ollamaVersionOf({ version: "latest" }), undefined);
  assert.equal(ollamaVersionOf("0.12.3"), undefined);
  const state = new ProfileState({ baseURL: "http://gpu-box:8080/v1", model: "m" });
  state.detectFromServer({ entry: { owned_by: "bartowski" }, ollamaVersion: "0.12.3" });
  assert.deepEqual([state.report().profile, state.report().detectedBy], [
    "ollama",
    "ollama-version",
  ]);
});
