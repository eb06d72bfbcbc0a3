/**
 * The output budget and the server's window: a budget that can never fit the window the server
 * states is capped before the request, against a fake server that judges budgets as vLLM does.
 */
import assert from "node:assert/strict";
import {
  fakePromptTokens,
  fault,
  repeat,
  reply,
  startFakeOpenAI,
  type StepFn,
} from "../../support/fake_openai.ts";
import { client, request } from "./_helpers.ts";

// Without a known window the budget is sent as set and vLLM's rejection learned: profiles_test.ts.

/**
 * vLLM's check of the budget against the window (entrypoints/openai/serving_engine.py before
 * 0.11): a budget over the window minus the prompt is the 400 of error_body_fixtures.ts's
 * VLLM_BUDGET_TOO_LARGE, with this request's numbers.
 */
function vllmBudgetCheck(window: number): StepFn {
  return (rec) => {
    const body = rec.body!;
    const asked = body.max_tokens ?? body.max_completion_tokens;
    const prompt = fakePromptTokens(body);
    if (typeof asked === "number" && asked > window - prompt) {
      return fault.status(400, {
        message: `'max_tokens' or 'max_completion_tokens' is too large: ${asked}. This model's ` +
          `maximum context length is ${window} tokens and your request has ${prompt} input ` +
          `tokens (${asked} > ${window} - ${prompt}). None`,
        type: "BadRequestError",
      });
    }
    return reply.text("ok");
  };
}

async function vllmServer(window: number) {
  const server = await startFakeOpenAI({
    models: ["test-model"],
    modelInfo: { owned_by: "vllm", max_model_len: window },
  });
  server.script(repeat(vllmBudgetCheck(window)));
  return server;
}

Deno.test("a budget of the whole window or more is capped once the server states its window: vLLM never rejects it", async () => {
  await using server = await vllmServer(4096);
  const warnings: string[] = [];
  const c = client(server, { onWarning: (m) => warnings.push(m) });
  assert.equal(await c.contextWindow?.({}), 4096);
  const message = await c.stream(request({ maxOutputTokens: 8192 }), {});
  assert.equal(message?.blocks[0]?.type === "text" && message.blocks[0].text, "ok");
  assert.equal(server.chatRequests.length, 1, "no rejected request first");
  const body = server.chatRequests[0]!.body!;
  const sent = body.max_tokens as number;
  assert.ok(sent < 4096 && sent + fakePromptTokens(body) <= 4096, `budget ${sent}`);
  assert.ok(sent > 3000, `what remains after the prompt, not a guess: ${sent}`);
  assert.deepEqual(warnings, [], "nothing was learned from an error");
  // A budget below the window is the server's to judge; none is sent unless one is set.
  await c.stream(request({ maxOutputTokens: 1000 }), {});
  await c.stream(request(), {});
  const [, below, unset] = server.chatRequests.map((r) => r.body!);
  assert.equal(below?.max_tokens, 1000);
  assert.equal("max_tokens" in unset!, false);
  assert.equal("max_completion_tokens" in unset!, false);
});
