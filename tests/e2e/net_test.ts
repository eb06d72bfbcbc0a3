/**
 * End-to-end: a scoped --allow-net through the real CLI. The model's bash call reaches the granted
 * host on 127.0.0.1 through moat's proxy, is refused another port, and the refusal is a
 * `permission` event of that call in `--output jsonl`.
 */
import assert from "node:assert/strict";
import { reply, startFakeOpenAI } from "../support/fake_openai.ts";
import { createTempWorkspace } from "../support/workspace.ts";
import { BWRAP } from "../sandbox/_helpers.ts";
import { assertOneNetRefusal, cliEnv, runMoat } from "./_cli.ts";
import { webServer } from "../support/web_server.ts";

Deno.test({
  name: "a scoped --allow-net lets bash reach the granted host only, and jsonl shows the refusal",
  ignore: !BWRAP,
  async fn() {
    await using server = await startFakeOpenAI();
    await using ws = await createTempWorkspace();
    await using home = await createTempWorkspace();
    await using granted = webServer("GRANTED-E2E");
    await using other = webServer("OTHER-E2E");
    server.script(
      reply.toolCalls([{
        id: "c1",
        name: "bash",
        arguments: {
          command: `curl -sS http://127.0.0.1:${granted.port}/; echo; ` +
            `curl -sS http://127.0.0.1:${other.port}/`,
        },
      }]),
      reply.text("done"),
    );
    const result = await runMoat(
      ["--sandbox=require", `--allow-net=127.0.0.1:${granted.port}`, "--output", "jsonl", "go"],
      {
        cwd: ws.dir,
        env: cliEnv(home.dir, { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: "k" }),
      },
    );
    assert.equal(result.code, 0, result.stderr);
    const toolMessage = server.chatRequests[1]?.body?.messages.find((m) => m.role === "tool");
    const output = String(toolMessage?.content);
    assert.match(output, /GRANTED-E2E/);
    assert.doesNotMatch(output, /OTHER-E2E/);
    assert.match(
      output,
      new RegExp(`--allow-net=127\\.0\\.0\\.1:${granted.port},127\\.0\\.0\\.1:${other.port}\\)`),
    );
    assert.match(output, /\[moat refused network access to /, "the model is told after the call");
    assertOneNetRefusal(result.stdout, {
      toolCallId: "c1",
      toolName: "bash",
      target: `127.0.0.1:${other.port}`,
      hint: `--allow-net=127.0.0.1:${granted.port},127.0.0.1:${other.port}`,
    });
  },
});

Deno.test({
  name: "a refused connection is shown in text mode and counts for --fail-on-deny (exit 4)",
  ignore: !BWRAP,
  async fn() {
    await using server = await startFakeOpenAI();
    await using ws = await createTempWorkspace();
    await using home = await createTempWorkspace();
    await using granted = webServer("GRANTED-E2E");
    await using other = webServer("OTHER-E2E");
    server.script(
      reply.toolCalls([{
        id: "c1",
        name: "bash",
        arguments: { command: `curl -sS http://127.0.0.1:${other.port}/; true` },
      }]),
      reply.text("done"),
    );
    const result = await runMoat(
      ["--sandbox=require", `--allow-net=127.0.0.1:${granted.port}`, "--fail-on-deny", "go"],
      {
        cwd: ws.dir,
        env: cliEnv(home.dir, { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: "k" }),
      },
    );
    assert.equal(result.code, 4, result.stderr);
    assert.equal(result.stdout, "done\n");
    assert.match(
      result.stderr,
      new RegExp(`✗ bash connection to 127\\.0\\.0\\.1:${other.port} refused: .*--allow-net=`),
    );
    assert.match(result.stderr, /1 tool call\(s\) were denied/);
  },
});
