/** Screen-level: the status line interactive mode shows after each answer. */
import assert from "node:assert/strict";
import { reply, startFakeOpenAI } from "../support/fake_openai.ts";
import { createTempWorkspace } from "../support/workspace.ts";
import { hasPython, spawnMoatAtPrompt } from "../support/pty.ts";

const noPython = !(await hasPython());

Deno.test({
  name:
    "terminal: after an answer a status line tells model, context, tokens and cost, then the prompt",
  ignore: noPython,
  async fn() {
    await using server = await startFakeOpenAI();
    await using ws = await createTempWorkspace();
    await using config = await createTempWorkspace({
      "moat/config.json": JSON.stringify({
        prices: { inputPerMTok: 2, outputPerMTok: 8, cachedInputPerMTok: 0.5 },
      }),
    });
    server.script(
      reply.text("Hello there.", {
        usage: { prompt_tokens: 3210, completion_tokens: 420, cached_tokens: 1000 },
      }),
    );
    await using term = await spawnMoatAtPrompt(
      ["--model", "gpt-4.1", "--context-window", "128000"],
      {
        cwd: ws.dir,
        baseURL: server.baseURL,
        env: { XDG_CONFIG_HOME: config.dir },
        cols: 120,
        rows: 20,
      },
    );
    await term.write("hi\r");
    // (3,210 − 1,000) × 2 + 1,000 × 0.5 + 420 × 8, per million.
    const status = "gpt-4.1 · context 3% of 128k · tokens: 3,210 in (1,000 cached) · 420 out · " +
      "cost 0.00828";
    const screen = await term.waitForScreen(
      "the status line and the prompt after it",
      (s) => s.includes(status) && s.slice(s.indexOf(status) + 1).includes("›"),
    );
    const answer = screen.indexOf("Hello there.");
    assert.ok(answer >= 0 && answer < screen.indexOf(status), screen.join("\n"));
    await term.write("/exit\r");
    assert.equal(await term.exited(), 0);
  },
});
