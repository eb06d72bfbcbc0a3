/**
 * Compaction against vLLM through the real SDK and the fake server: a summary request whose output
 * budget vLLM finds too large ("'max_tokens' or 'max_completion_tokens' is too large: N",
 * vllm/entrypoints/openai/serving_engine.py) is sent again with the budget vLLM states, and the
 * compaction succeeds.
 */
import assert from "node:assert/strict";
import { runAgentLoop } from "../../src/agent/mod.ts";
import { createContextState } from "../../src/agent/compaction/keeper.ts";
import { isSummaryMessage } from "../../src/agent/compaction/summary.ts";
import { createOpenAiClient } from "../../src/model/openai/mod.ts";
import type { Message } from "../../src/model/types.ts";
import {
  fault,
  type RecordedRequest,
  repeat,
  reply,
  startFakeOpenAI,
} from "../support/fake_openai.ts";
import { assertHistoryAcceptable } from "../support/history_check.ts";
import { createManualClock } from "../support/manual_clock.ts";
import { dumpTool, eventLog, user } from "./_helpers.ts";

const WINDOW = 4000;

const isSummary = (r: RecordedRequest) => r.body?.tools === undefined;

/** vLLM's 400 for a budget over the window minus the prompt, with half the budget available. */
function budgetTooLarge(requested: number) {
  const prompt = WINDOW - Math.floor(requested / 2);
  return fault.status(400, {
    message: `'max_tokens' or 'max_completion_tokens' is too large: ${requested}. This model's ` +
      `maximum context length is ${WINDOW} tokens and your request has ${prompt} input tokens ` +
      `(${requested} > ${WINDOW} - ${prompt}).`,
    type: "BadRequestError",
  });
}

Deno.test("runAgentLoop() on vLLM: a summary request whose budget is too large is sent again capped, and compaction succeeds", async () => {
  await using server = await startFakeOpenAI({ contextWindow: WINDOW });
  let part = 0;
  let refused = false;
  server.script(repeat((request) => {
    if (isSummary(request)) {
      const requested = Number(request.body?.max_tokens);
      if (!refused) {
        refused = true;
        return budgetTooLarge(requested);
      }
      return reply.text('## User requests\n"Read all parts"\n## Next step\nRead on.');
    }
    part++;
    return part <= 20
      ? reply.toolCalls([{ id: `call_${part}`, name: "dump", arguments: { part } }])
      : reply.text("It computes values.");
  }));
  const history: Message[] = [];
  const log = eventLog();
  const result = await runAgentLoop({ history, prompt: user("Read all parts of the dump.") }, {
    model: createOpenAiClient({
      baseURL: server.baseURL,
      apiKey: "sk-test",
      model: "test-model",
      maxRetries: 0,
      provider: "vllm",
    }),
    tools: [dumpTool(500)],
    system: "You are a test.",
    clock: createManualClock(),
    context: createContextState({ window: WINDOW, source: "config" }),
    onEvent: log.onEvent,
  });
  assert.equal(result.stopReason, "completed");
  assert.ok(refused, "the first summary request was refused");
  const summaries = server.chatRequests.filter(isSummary);
  assert.ok(summaries.length >= 2);
  const [first, second] = summaries.map((r) => Number(r.body?.max_tokens));
  assert.equal(second, Math.floor(first! / 2), "sent again with the budget vLLM stated");
  const ends = log.of("compaction_end").filter((e) => e.method === "summary");
  assert.ok(ends.length >= 1);
  assert.equal(ends[0]?.outcome, "compacted");
  assert.ok(history.some(isSummaryMessage));
  assertHistoryAcceptable(history);
});
