/** End-to-end: deny lists naming missing paths, mistyped grants, nothing left in the workspace. */
import assert from "node:assert/strict";
import { RUN_LATER } from "../../src/policy/_run_later.ts";
import { reply, startFakeOpenAI } from "../support/fake_openai.ts";
import { createTempWorkspace, entryNames } from "../support/workspace.ts";
import { BWRAP } from "../sandbox/_helpers.ts";
import { cliEnv, processesMatching, runMoat, spawnMoat, waitUntil } from "./_cli.ts";

Deno.test({
  name:
    "moat killed with SIGKILL mid-run leaves no placeholder of a missing denied path, .moat or a run-later file, and no temporary directory",
  ignore: !BWRAP,
  fn: async () => {
    await using server = await startFakeOpenAI();
    await using ws = await createTempWorkspace({ "a.txt": "hello\n" });
    await using home = await createTempWorkspace();
    await using tmp = await createTempWorkspace();
    const needle = `sleep 300.${Math.floor(Math.random() * 1e6)}`;
    server.script(
      reply.toolCalls([{ id: "call_sleep", name: "bash", arguments: { command: needle } }]),
      reply.text("not reached"),
    );
    const child = await spawnMoat(
      ["--no-session", "--deny-read=.env", "--deny-write=generated", "--allow-run=sleep", "go"],
      {
        cwd: ws.dir,
        env: cliEnv(home.dir, {
          OPENAI_BASE_URL: server.baseURL,
          OPENAI_API_KEY: "k",
          TMPDIR: tmp.dir,
        }),
      },
    );
    const output = child.output();
    try {
      await waitUntil(
        `"${needle}" to start`,
        async () => (await processesMatching(needle)).length > 0,
      );
      // While it runs, the mount points stand in the workspace: the denied paths', .moat's and
      // those of other programs' run-later files.
      const runLater = RUN_LATER.map((e) => e.name);
      assert.deepEqual(
        await entryNames(ws.dir),
        [".env", ".moat", "a.txt", "generated", ...runLater].sort(),
      );
    } finally {
      child.kill("SIGKILL");
    }
    const out = await output;
    assert.equal(out.signal, "SIGKILL", new TextDecoder().decode(out.stderr));
    await waitUntil("the placeholders to be removed", async () => {
      return (await entryNames(ws.dir)).join(",") === "a.txt";
    }, 10_000);
    // The run's spill directory (bash's full outputs, the proxy's socket) goes too.
    await waitUntil("the run's temporary directory to be removed", async () => {
      return (await entryNames(tmp.dir)).filter((n) => n.startsWith("moat-")).length === 0;
    }, 10_000);
    await waitUntil(
      "the sleep to be gone",
      async () => (await processesMatching(needle)).length === 0,
      5000,
    );
  },
});

Deno.test("moat --allow-write=srcc exits 2 with the flag it probably meant, before any request", async () => {
  await using server = await startFakeOpenAI();
  await using ws = await createTempWorkspace({ "src/a.ts": "" });
  await using home = await createTempWorkspace();
  const env = cliEnv(home.dir, { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: "k" });
  const typo = await runMoat(["--allow-write=srcc", "fix it"], { cwd: ws.dir, env });
  assert.equal(typo.code, 2, typo.stderr);
  assert.match(
    typo.stderr,
    /Granted path "srcc" \(--allow-write\) does not exist: did you mean "src"\? Use --allow-write=src,/,
  );
  assert.equal(server.chatRequests.length, 0);
  server.script(reply.text("done"));
  const fresh = await runMoat(["--no-session", "--allow-write=.,notes.md", "ok"], {
    cwd: ws.dir,
    env,
  });
  assert.equal(fresh.code, 0, fresh.stderr);
  assert.equal(fresh.stderr.split("grants a file that does not exist yet").length, 2, fresh.stderr);
  // The workspace line stays the first line of stderr; the note follows it.
  const lines = fresh.stderr.split("\n");
  assert.match(lines[0] ?? "", /^moat: workspace /, fresh.stderr);
  assert.match(lines[1] ?? "", /grants a file that does not exist yet/, fresh.stderr);
  assert.deepEqual(await entryNames(ws.dir), ["src"]);
});
