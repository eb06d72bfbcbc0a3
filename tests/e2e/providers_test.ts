/**
 * End-to-end: errors of the servers users run, as their source and docs show them, through the
 * real CLI in print mode: the provider's own message and the setting that fixes it reach the user,
 * never "(no body)".
 */
import assert from "node:assert/strict";
import { fault, repeat, reply, startFakeOpenAI } from "../support/fake_openai.ts";
import { strictTemplate } from "../support/strict_template.ts";
import { createTempWorkspace } from "../support/workspace.ts";
import { cliEnv, runMoat } from "./_cli.ts";
import {
  GEMINI_ARRAY,
  LMSTUDIO_STRING,
  MISTRAL_FLAT_VALIDATION,
  VLLM_FLAT_TOOL_CHOICE,
} from "../model/error_body_fixtures.ts";

async function runAgainst(body: string, status = 400) {
  await using server = await startFakeOpenAI();
  await using ws = await createTempWorkspace();
  await using home = await createTempWorkspace();
  server.script(repeat(fault.body(status, body, { contentType: "application/json" })));
  const env = cliEnv(home.dir, { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: "k" });
  const result = await runMoat(["--no-session", "what is in a.txt?"], { cwd: ws.dir, env });
  return { ...result, requests: server.chatRequests.length, body: server.chatRequests[0]?.body };
}

Deno.test("moat -p on vLLM started without tool parsing exits 1 showing its 400 and the flags to add", async () => {
  // vllm/entrypoints/openai/serving_chat.py: tools with tool_choice "auto" (its default when
  // tools are sent) and no parser; the flat body of vLLM before 0.10.1.
  const result = await runAgainst(VLLM_FLAT_TOOL_CHOICE);
  assert.equal(result.code, 1, result.stderr);
  assert.equal(result.stdout, "");
  assert.ok(
    result.stderr.includes("requires --enable-auto-tool-choice and --tool-call-parser to be set"),
    result.stderr,
  );
  assert.ok(
    result.stderr.includes("`--enable-auto-tool-choice --tool-call-parser NAME`"),
    result.stderr,
  );
  assert.doesNotMatch(result.stderr, /no body|context|\n\s+at /);
  assert.equal(result.requests, 1, "a 400 is not retried");
  // No budget is sent unless configured: vLLM rejects one over the window minus the prompt.
  assert.equal(result.body?.max_tokens, undefined);
  assert.equal(result.body?.max_completion_tokens, undefined);
  assert.ok((result.body?.tools ?? []).length > 0, "the request had tools");
});

Deno.test("moat -p shows Mistral's, Gemini's and LM Studio's own error messages, never (no body)", async () => {
  const cases: Array<[string, string, RegExp]> = [
    [MISTRAL_FLAT_VALIDATION, "Mistral (flat)", /Extra inputs are not permitted/],
    [GEMINI_ARRAY, "Gemini (array)", /Unknown name "reasoning": Cannot find field/],
    [LMSTUDIO_STRING, "LM Studio (string)", /'response_format\.type' must be 'json_schema'/],
  ];
  for (const [body, name, message] of cases) {
    const result = await runAgainst(body, body === MISTRAL_FLAT_VALIDATION ? 422 : 400);
    assert.equal(result.code, 1, `${name}: ${result.stderr}`);
    assert.match(result.stderr, message, name);
    assert.doesNotMatch(result.stderr, /no body|\n\s+at /, name);
  }
});

Deno.test("moat --provider mistral -c after a run that broke off once its tools ran: the resumed request alternates", async () => {
  await using server = await startFakeOpenAI();
  await using ws = await createTempWorkspace({ "a.txt": "alpha\n" });
  await using home = await createTempWorkspace();
  const seen: string[][] = [];
  server.script(
    reply.toolCalls([{ id: "call_abc123def456", name: "read", arguments: { path: "a.txt" } }]),
    repeat(fault.status(500, { message: "Compute error.", retryAfter: 0 }), 3),
    strictTemplate(() => reply.text("It says alpha."), { alnum9Ids: true, seen }),
  );
  const env = cliEnv(home.dir, { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: "k" });
  const first = await runMoat(["what is in a.txt?"], { cwd: ws.dir, env });
  assert.equal(first.code, 1, first.stderr);
  const second = await runMoat(["--provider", "mistral", "-c", "go on"], { cwd: ws.dir, env });
  assert.equal(second.code, 0, second.stderr + seen.flat().join("; "));
  assert.equal(second.stdout, "It says alpha.\n");
  assert.deepEqual(seen, [[]], "the resumed request renders under a strict template");
});
