/**
 * End-to-end: moat runs side by side in one git workspace, some ending at once (no tool call),
 * some running bash meanwhile: each keeps the placeholders the others hold while it runs, and
 * nothing is left in the workspace once all have ended.
 */
import assert from "node:assert/strict";
import { reply, startFakeOpenAI } from "../support/fake_openai.ts";
import { createTempWorkspace, entryNames } from "../support/workspace.ts";
import { BWRAP } from "../sandbox/_helpers.ts";
import { cliEnv, runMoat, toolResultOf } from "./_cli.ts";

Deno.test({
  name:
    "moat runs in parallel in one git workspace, with and without bash calls, find their views whole and leave nothing behind",
  ignore: !BWRAP,
  fn: async () => {
    await using ws = await createTempWorkspace({ "a.txt": "hello\n" });
    await using home = await createTempWorkspace();
    const git = await new Deno.Command("git", { args: ["init", "-q"], cwd: ws.dir }).output();
    assert.ok(git.success);
    const before = await entryNames(ws.dir);
    const run = async (i: number) => {
      await using server = await startFakeOpenAI();
      // Every other run calls bash (in the nested view, whose sources must all still exist).
      const calls = i % 2 === 1;
      if (calls) {
        server.script(
          reply.toolCalls([{ id: "b1", name: "bash", arguments: { command: "cat a.txt" } }]),
          reply.text("done"),
        );
      } else {
        server.script(reply.text("done"));
      }
      const result = await runMoat(["--no-session", "--allow-run=cat", "go"], {
        cwd: ws.dir,
        env: cliEnv(home.dir, { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: "k" }),
      });
      const output = calls ? toolResultOf(server, "b1") : "";
      return { ...result, output, calls };
    };
    for (let round = 0; round < 2; round++) {
      const results = await Promise.all([0, 1, 2, 3].map(run));
      for (const r of results) {
        assert.equal(r.code, 0, r.stderr);
        assert.doesNotMatch(r.stderr + r.output, /Can't find source path/, r.stderr + r.output);
        if (r.calls) assert.match(r.output, /hello/, r.output);
      }
      assert.deepEqual(await entryNames(ws.dir), before, `round ${round}`);
    }
  },
});
