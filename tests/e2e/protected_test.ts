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

for (const sandbox of BWRAP ? ["auto", "off"] : ["off"]) {
  Deno.test(`[--sandbox=${sandbox}] other programs' run-later files (.vscode, .envrc, .mcp.json, .claude) are refused with the flag that allows them; ls shows no placeholder; none is left`, async () => {
    await using server = await startFakeOpenAI();
    await using ws = await gitWorkspace();
    await using home = await createTempWorkspace();
    const task = '{"tasks":[{"label":"x","command":"id","runOptions":{"runOn":"folderOpen"}}]}';
    server.script(
      reply.toolCalls([
        { id: "w1", name: "write", arguments: { path: ".vscode/tasks.json", content: task } },
        { id: "w2", name: "write", arguments: { path: ".envrc", content: "id\n" } },
        { id: "w3", name: "write", arguments: { path: ".mcp.json", content: "{}" } },
        { id: "l1", name: "ls", arguments: {} },
      ]),
      reply.toolCalls([{
        id: "b1",
        name: "bash",
        arguments: {
          command: 'mkdir -p .claude && echo "{}" > .claude/settings.json; echo "rc=$?"; ls -A',
        },
      }]),
      reply.text("done"),
    );
    const before = await Array.fromAsync(Deno.readDir(ws.dir), (e) => e.name);
    const result = await runMoat(
      [`--sandbox=${sandbox}`, "--allow-run=bash,mkdir,ls", "--fail-on-deny", "-o", "jsonl", "go"],
      {
        cwd: ws.dir,
        env: cliEnv(home.dir, { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: "k" }),
      },
    );
    assert.equal(result.code, 4, result.stderr);
    assert.equal(
      toolResultOf(server, "w1"),
      `Tool "write" blocked by permissions: write access to "${
        join(ws.dir, ".vscode/tasks.json")
      }" is denied: "${
        join(ws.dir, ".vscode")
      }" is protected because VS Code runs its tasks (on folder open), terminal profiles and ` +
        "launch configurations outside the sandbox; to allow it, add it to --allow-write (e.g. " +
        "--allow-write=.,.vscode)",
    );
    assert.match(toolResultOf(server, "w2"), /\.envrc" is protected because direnv runs it/);
    assert.match(toolResultOf(server, "w3"), /--allow-write=\.,\.mcp\.json\)/);
    assert.equal(toolResultOf(server, "l1"), ".git/\na.txt");
    const denied = jsonLines(result.stdout).filter((e) =>
      e.type === "permission" && e.by === "protected" && e.outcome === "denied"
    );
    assert.equal(denied.length, 3);
    if (sandbox === "auto") {
      // bash meets the read-only placeholder (its own `ls -A` shows it, as its description says).
      assert.doesNotMatch(toolResultOf(server, "b1"), /rc=0\b/);
      assert.match(toolResultOf(server, "b1"), /\.claude/);
    }
    // Nothing was planted, and no placeholder is left.
    const names = (await Array.fromAsync(Deno.readDir(ws.dir), (e) => e.name)).sort();
    const expected = sandbox === "auto" ? before : [...before, ".claude"];
    assert.deepEqual(names, expected.sort());
  });
}

Deno.test("--allow-write=.,.vscode lets the model write .vscode/tasks.json and nothing else of the kind", async () => {
  await using server = await startFakeOpenAI();
  await using ws = await gitWorkspace();
  await using home = await createTempWorkspace();
  server.script(
    reply.toolCalls([
      { id: "w1", name: "write", arguments: { path: ".vscode/tasks.json", content: "{}\n" } },
      { id: "w2", name: "write", arguments: { path: ".idea/workspace.xml", content: "<x/>" } },
    ]),
    reply.text("done"),
  );
  const result = await runMoat(["--allow-write=.,.vscode", "-p", "go"], {
    cwd: ws.dir,
    env: cliEnv(home.dir, { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: "k" }),
  });
  assert.equal(result.code, 0, result.stderr);
  assert.equal(await Deno.readTextFile(ws.path(".vscode/tasks.json")), "{}\n");
  assert.match(toolResultOf(server, "w2"), /--allow-write=\.,\.vscode,\.idea\)/);
  await assert.rejects(Deno.lstat(ws.path(".idea")), Deno.errors.NotFound);
});
