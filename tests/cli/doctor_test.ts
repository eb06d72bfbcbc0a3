/** `moat doctor`, `--provider` / config `provider`, and the --verbose profile line. */
import assert from "node:assert/strict";
import { runCli } from "../../src/cli/main.ts";
import type { CliDeps } from "../../src/cli/setup.ts";
import type { OpenAiClientOptions } from "../../src/model/openai/mod.ts";
import { startFakeOpenAI } from "../support/fake_openai.ts";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.ts";
import { createFakeCliDeps, createFakeTerminal, okModel } from "./_fakes.ts";

function deps(seen: OpenAiClientOptions[] = []): CliDeps {
  const model = okModel();
  return createFakeCliDeps({
    model,
    over: {
      createModel: (options) => {
        seen.push(options);
        return model;
      },
    },
  }).deps;
}

async function run(ws: TempWorkspace, argv: string[], baseUrl: string, d = deps()) {
  const terminal = createFakeTerminal();
  const code = await runCli(argv, {
    env: { HOME: ws.dir, OPENAI_API_KEY: "k", OPENAI_BASE_URL: baseUrl },
    cwd: ws.dir,
    terminal,
    deps: d,
  });
  return { code, stdout: terminal.stdout, stderr: terminal.stderr };
}

Deno.test("moat doctor prints the base URL, the profile detected from /v1/models and every switch with its source", async () => {
  await using ws = await createTempWorkspace({
    ".moat/config.json": JSON.stringify({
      model: "qwen",
      compat: { streamOptions: false, maxTokensCap: 2048, stripSchemaKeys: ["$schema"] },
    }),
  });
  await using server = await startFakeOpenAI({
    models: ["qwen"],
    modelInfo: { owned_by: "vllm", max_model_len: 32768 },
  });
  const { code, stdout, stderr } = await run(ws, ["doctor"], server.baseURL);
  assert.equal(code, 0, stderr);
  assert.match(stdout, new RegExp(`base URL: ${server.baseURL.replace(/[.]/g, "\\.")}`));
  assert.match(stdout, /profile: vllm \(detected from the server's \/v1\/models\)/);
  assert.match(stdout, /context window: 32768/);
  assert.match(stdout, /maxTokensField +"max_tokens" +\(profile\)/);
  assert.match(stdout, /streamOptions +false +\(config\)/);
  assert.match(stdout, /maxTokensCap +2048 +\(config\)/);
  assert.match(stdout, /stripSchemaKeys +\["\$schema"\] +\(config\)/);
  assert.match(stdout, /systemRole +"system" +\(default\)/);
  assert.deepEqual(server.requests.map((r) => `${r.method} ${r.path}`), ["GET /v1/models"]);
});

Deno.test("moat doctor --provider NAME decides the profile, /v1/models only checked; an unknown NAME is exit 2 with the list", async () => {
  await using ws = await createTempWorkspace();
  await using server = await startFakeOpenAI();
  const chosen = await run(ws, ["doctor", "--provider", "mistral"], server.baseURL);
  assert.equal(chosen.code, 0, chosen.stderr);
  assert.match(chosen.stdout, /profile: mistral \(chosen with --provider\)/);
  assert.match(chosen.stdout, /toolCallIds +"alnum9" +\(profile\)/);
  assert.deepEqual(server.requests.map((r) => r.path), ["/v1/models"], "only whether it answers");
  const unknown = await run(ws, ["--provider", "nope", "hi"], server.baseURL);
  assert.equal(unknown.code, 2);
  assert.match(
    unknown.stderr,
    /Unknown provider "nope": moat knows openai, azure, ollama, llamacpp/,
  );
});

Deno.test("config provider reaches the model client, and --verbose names the profile at the start", async () => {
  await using ws = await createTempWorkspace({
    ".moat/config.json": JSON.stringify({ provider: "llama.cpp" }),
  });
  const seen: OpenAiClientOptions[] = [];
  const { code, stderr } = await run(
    ws,
    ["--no-session", "--verbose", "hi"],
    "http://127.0.0.1:9/v1",
    deps(seen),
  );
  assert.equal(code, 0, stderr);
  assert.equal(seen[0]?.provider, "llamacpp");
  assert.equal(seen[0]?.providerSource, "config");
  assert.match(stderr, /moat: server profile: llamacpp \(chosen by the config's "provider"/);
});

Deno.test("moat doctor names Ollama found by its /api/version, and its version", async () => {
  await using ws = await createTempWorkspace({
    ".moat/config.json": JSON.stringify({ model: "hf.co/bartowski/Qwen3-8B-GGUF:Q4_K_M" }),
  });
  await using server = await startFakeOpenAI({
    models: ["hf.co/bartowski/Qwen3-8B-GGUF:Q4_K_M"],
    modelInfo: { owned_by: "bartowski" },
    ollamaVersion: "0.12.3",
  });
  const { code, stdout, stderr } = await run(ws, ["doctor"], server.baseURL);
  assert.equal(code, 0, stderr);
  assert.match(stdout, /profile: ollama \(detected from Ollama's \/api\/version\)/);
  assert.match(stdout, /server: Ollama 0\.12\.3/);
  assert.match(stdout, /maxTokensField +"max_tokens" +\(profile\)/);
});

Deno.test("moat doctor says plainly that the server cannot be reached, with the detail, and exits 1", async () => {
  await using ws = await createTempWorkspace();
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  const baseUrl = `http://127.0.0.1:${port}/v1`;
  const { code, stdout, stderr } = await run(ws, ["doctor"], baseUrl);
  assert.equal(code, 1);
  assert.match(
    stdout,
    /profile: generic \(the server could not be asked; choose one with --provider/,
  );
  assert.doesNotMatch(stdout, /nothing identified the server/);
  assert.match(
    stderr,
    new RegExp(`Could not reach the model server at "${baseUrl.replace(/[.]/g, "\\.")}"`),
  );
  assert.match(stderr, /Connection refused/i, "the connection error's own words");
  assert.match(stderr, /--base-url URL/);
});

Deno.test("moat doctor says the server rejected the key for /v1/models, what to check, and exits 1", async () => {
  await using ws = await createTempWorkspace();
  await using server = await startFakeOpenAI({ modelsStatus: 401 });
  const rejected = await run(ws, ["doctor"], server.baseURL);
  assert.equal(rejected.code, 1);
  assert.match(rejected.stderr, /rejected the API key when asked for \/v1\/models/);
  assert.match(rejected.stderr, /Incorrect API key provided/);
  assert.match(rejected.stderr, /check the key in OPENAI_API_KEY/);
  await using missing = await startFakeOpenAI({ modelsStatus: 404 });
  const notFound = await run(ws, ["doctor"], missing.baseURL);
  assert.equal(notFound.code, 1);
  assert.match(notFound.stderr, /did not answer \/v1\/models: .*HTTP 404/);
  assert.match(notFound.stderr, /--provider NAME/);
});
