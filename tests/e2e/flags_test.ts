/**
 * End-to-end: `--deny-net` through the real CLI. Its hosts stay denied under a bare --allow-net
 * and -A (bash then goes through moat's proxy instead of the machine's network), the refusal is a
 * deny-list `permission` event that counts for --fail-on-deny, and a run where the list cannot
 * hold (no OS sandbox for bash) stops with exit 2 before any request.
 */
import assert from "node:assert/strict";
import { reply, startFakeOpenAI } from "../support/fake_openai.ts";
import { createTempWorkspace } from "../support/workspace.ts";
import { BWRAP } from "../sandbox/_helpers.ts";
import { cliEnv, jsonLines, runMoat } from "./_cli.ts";
import { webServer } from "../support/web_server.ts";

Deno.test({
  name: "--deny-net wins over a bare --allow-net and -A: bash reaches every other host only",
  ignore: !BWRAP,
  async fn() {
    await using ws = await createTempWorkspace();
    await using home = await createTempWorkspace();
    await using open = webServer("OPEN-E2E");
    await using denied = webServer("DENIED-E2E");
    for (const grant of ["--allow-net", "-A"]) {
      await using server = await startFakeOpenAI();
      server.script(
        reply.toolCalls([{
          id: "c1",
          name: "bash",
          arguments: {
            command: `curl -sS http://127.0.0.1:${open.port}/; echo; ` +
              `curl -sS http://127.0.0.1:${denied.port}/; true`,
          },
        }]),
        reply.text("done"),
      );
      const result = await runMoat(
        [
          "--sandbox=require",
          grant,
          `--deny-net=127.0.0.1:${denied.port}`,
          "--fail-on-deny",
          "--output",
          "jsonl",
          "go",
        ],
        {
          cwd: ws.dir,
          env: cliEnv(home.dir, { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: "k" }),
        },
      );
      assert.equal(result.code, 4, `${grant}: ${result.stderr}`);
      const tool = server.chatRequests[1]?.body?.messages.find((m) => m.role === "tool");
      const output = String(tool?.content);
      assert.match(output, /OPEN-E2E/, grant);
      assert.doesNotMatch(output, /DENIED-E2E/, grant);
      assert.match(output, /denied by --deny-net; no grant allows it\]/, grant);
      assert.doesNotMatch(output, /add --allow-net/, grant);
      const events = jsonLines(result.stdout);
      const start = events.find((e) => e.type === "run_start") as
        | { grants: { denyNet: string[] }; grantsSummary: string }
        | undefined;
      assert.deepEqual(start?.grants.denyNet, [`127.0.0.1:${denied.port}`]);
      assert.match(start?.grantsSummary ?? "", /deny-net: 127\.0\.0\.1:/);
      const refusals = events.filter((e) => e.type === "permission" && e.outcome === "denied");
      assert.equal(refusals.length, 1, result.stdout);
      assert.deepEqual(
        [refusals[0]?.target, refusals[0]?.by, refusals[0]?.reason],
        [
          `127.0.0.1:${denied.port}`,
          "deny_list",
          `net access to "127.0.0.1:${denied.port}" is denied by --deny-net`,
        ],
      );
    }
  },
});

Deno.test("--deny-net with bash but without the OS sandbox exits 2 before any request", async () => {
  await using server = await startFakeOpenAI();
  await using ws = await createTempWorkspace();
  await using home = await createTempWorkspace();
  const result = await runMoat(
    ["--sandbox=off", "--allow-run", "--allow-net", "--deny-net=example.com", "go"],
    { cwd: ws.dir, env: cliEnv(home.dir, { OPENAI_BASE_URL: server.baseURL }) },
  );
  assert.equal(result.code, 2, result.stderr);
  assert.match(result.stderr, /--deny-net=example\.com cannot hold without the OS sandbox/);
  assert.equal(server.chatRequests.length, 0);
});
