/**
 * Screen-level: an approval question in a real pseudo-terminal (tests/support/pty.ts) — the
 * diff of the write it asks about above it, one key answering it, wrapped to the window and
 * redrawn on a resize — and the prompt coming back after /compact and after Esc stops a turn.
 */
import assert from "node:assert/strict";
import { reply, startFakeOpenAI } from "../support/fake_openai.ts";
import { createTempWorkspace } from "../support/workspace.ts";
import { hasPython, spawnMoatPty } from "../support/pty.ts";

const noPython = !(await hasPython());
const PROMPT = /^›$/m;
const env = (baseURL: string) => ({ OPENAI_BASE_URL: baseURL, OPENAI_API_KEY: "k", NO_COLOR: "1" });

Deno.test({
  name: "terminal: a write outside the grants shows its diff, then the question; n denies it",
  ignore: noPython,
  async fn() {
    await using server = await startFakeOpenAI();
    await using outside = await createTempWorkspace({ "old.txt": "one\ntwo\nthree\n" });
    await using ws = await createTempWorkspace();
    const target = outside.path("old.txt");
    server.script(
      reply.toolCalls([{
        id: "c1",
        name: "write",
        arguments: { path: target, content: "one\n2\nthree\n" },
      }]),
      reply.text("Left it alone."),
    );
    await using term = await spawnMoatPty([], { cwd: ws.dir, env: env(server.baseURL) });
    await term.waitForText(PROMPT);
    await term.write("change the file\r");
    const asked = await term.waitForText(/Allow\?/);
    const text = asked.join("\n");
    const removed = asked.findIndex((l) => /^ {2}2 {3}-two$/.test(l));
    const added = asked.findIndex((l) => /^ {4}2 \+2$/.test(l));
    const question = asked.findIndex((l) => l.startsWith("moat wants to write"));
    assert.ok(removed >= 0 && removed < added && added < question, text);
    // One key, no Enter: the choice is echoed and the call is denied.
    await term.write("n");
    const after = await term.waitForText("Left it alone.");
    assert.ok(after.some((l) => /→ no$/.test(l)), after.join("\n"));
    assert.equal(await Deno.readTextFile(target), "one\ntwo\nthree\n");
    const tool = server.chatRequests[1]?.body?.messages?.find((m) => m.role === "tool");
    assert.match(String(tool?.content), /declined by the user/);
    await term.write("/exit\r");
    assert.equal(await term.exited(), 0);
  },
});
