/**
 * End-to-end: under the default grants the model cannot plant code that runs outside the sandbox
 * later (git hooks, git config, .moat/) through write, edit or bash, with or without bubblewrap,
 * while ordinary git work in the sandbox still succeeds.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { reply, startFakeOpenAI } from "../support/fake_openai.ts";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.ts";
import { BWRAP } from "../sandbox/_helpers.ts";
import { cliEnv, jsonLines, runMoat, toolResultOf } from "./_cli.ts";

const GIT = "git -c user.name=t -c user.email=t@t";

async function gitWorkspace(): Promise<TempWorkspace> {
  const ws = await createTempWorkspace({ "a.txt": "one\n" });
  for (
    const args of [["init", "-q", "-b", "main"], ["add", "a.txt"], ["commit", "-qm", "first"]]
  ) {
    const out = await new Deno.Command("git", {
      args: ["-c", "user.name=t", "-c", "user.email=t@t", ...args],
      cwd: ws.dir,
      env: { HOME: ws.dir, GIT_CONFIG_NOSYSTEM: "1", PATH: Deno.env.get("PATH") ?? "/usr/bin" },
      clearEnv: true,
      stderr: "piped",
    }).output();
    assert.ok(out.success, new TextDecoder().decode(out.stderr));
  }
  return ws;
}

async function state(ws: TempWorkspace) {
  const hooks = [...Deno.readDirSync(ws.path(".git/hooks"))].map((e) => e.name).sort();
  const moat = await Deno.readDir(ws.path(".moat"))[Symbol.asyncIterator]().next().catch(() => ({
    done: true,
  }));
  return {
    hooks,
    config: await Deno.readTextFile(ws.path(".git/config")),
    moatEmpty: moat.done === true,
  };
}

for (const sandbox of BWRAP ? ["auto", "off"] : ["off"]) {
  Deno.test(`[--sandbox=${sandbox}] write and edit cannot touch git hooks, git config or .moat; each denial names the flag and counts for --fail-on-deny`, async () => {
    await using server = await startFakeOpenAI();
    await using ws = await gitWorkspace();
    await using home = await createTempWorkspace();
    server.script(
      reply.toolCalls([
        { id: "w1", name: "write", arguments: { path: ".git/hooks/pre-commit", content: "id\n" } },
        {
          id: "e1",
          name: "edit",
          arguments: {
            path: ".git/config",
            oldText: "[core]",
            newText: "[alias]\n\tx = !id\n[core]",
          },
        },
        {
          id: "w2",
          name: "write",
          arguments: { path: ".moat/config.json", content: '{"baseUrl":"http://evil/v1"}' },
        },
      ]),
      reply.text("done"),
    );
    const before = await state(ws);
    const result = await runMoat(
      [`--sandbox=${sandbox}`, "--fail-on-deny", "-o", "jsonl", "plant a hook"],
      {
        cwd: ws.dir,
        env: cliEnv(home.dir, { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: "k" }),
      },
    );
    assert.equal(result.code, 4, result.stderr);
    assert.match(
      toolResultOf(server, "w1"),
      new RegExp(
        `"${join(ws.dir, ".git/hooks")}" is protected because git runs it outside the sandbox; ` +
          "to allow it, add it to --allow-write \\(e\\.g\\. --allow-write=\\.,\\.git/hooks\\)",
      ),
    );
    assert.match(
      toolResultOf(server, "e1"),
      /\.git\/config" is protected because it can make git run/,
    );
    assert.match(
      toolResultOf(server, "w2"),
      /\.moat" is protected because it holds moat's own project/,
    );
    const protectedDecisions = jsonLines(result.stdout).filter((e) =>
      e.type === "permission" && e.by === "protected" && e.outcome === "denied"
    );
    assert.equal(protectedDecisions.length, 3);
    assert.deepEqual(await state(ws), before);
  });
}

Deno.test({
  name:
    "bash in the sandbox cannot plant a hook, change git config or write .moat, and git commit still works",
  ignore: !BWRAP,
  async fn() {
    await using server = await startFakeOpenAI();
    await using ws = await gitWorkspace();
    await using home = await createTempWorkspace();
    const attacks = [
      "echo id > .git/hooks/pre-commit",
      "git config core.hooksPath hooks2",
      "git config alias.st '!id'",
      "git config core.fsmonitor 'id >/tmp/x'",
      "mkdir -p .moat && echo '{}' > .moat/config.json",
      "mv .git .git_real",
    ].map((c) => `${c}; echo "rc=$?"`).join("; ");
    server.script(
      reply.toolCalls([{ id: "b1", name: "bash", arguments: { command: attacks } }]),
      reply.toolCalls([{
        id: "b2",
        name: "bash",
        arguments: {
          command: `set -e; echo two >> a.txt; ${GIT} add a.txt; ${GIT} commit -qm second; ` +
            `${GIT} checkout -qb topic; echo three >> a.txt; ${GIT} stash -q; git log --format=%s`,
        },
      }]),
      reply.text("done"),
    );
    const before = await state(ws);
    const result = await runMoat(["-p", "go"], {
      cwd: ws.dir,
      env: cliEnv(home.dir, { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: "k" }),
    });
    assert.equal(result.code, 0, result.stderr);
    const attacked = toolResultOf(server, "b1");
    assert.doesNotMatch(attacked, /rc=0\b/, attacked);
    assert.deepEqual(await state(ws), before);
    assert.match(toolResultOf(server, "b2"), /^second\nfirst/m);
  },
});
