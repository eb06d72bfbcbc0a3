/**
 * End-to-end: user hooks written as bash scripts, run by the real CLI against the fake server.
 * PreToolUse blocks (exit 2, claude-code #13756) and rewrites (still held to the grants),
 * PostToolUse formats and adds context, a hung hook times out and the call goes on, Stop sends
 * the model back once, a project's hooks never run without trust (CVE-2025-59536), --no-hooks;
 * PermissionRequest answers bash's program checks; hooks are confined (files, network, env).
 */
import assert from "node:assert/strict";
import {
  type FakeOpenAIServer,
  reply,
  startFakeOpenAI,
  untilOffered,
} from "../support/fake_openai.ts";
import { createTempWorkspace } from "../support/workspace.ts";
import { cliEnv, fixtureServerEntry, jsonLines, runMoat, startArgv, toolResultOf } from "./_cli.ts";
import { hasScript, startPty } from "./_pty.ts";
import { BWRAP } from "../sandbox/_helpers.ts";

type Hooks = Record<string, Array<{ matcher?: string; hooks: Array<Record<string, unknown>> }>>;

function command(text: string, extra: Record<string, unknown> = {}) {
  return { type: "command", command: text, ...extra };
}

async function userHooks(home: string, hooks: Hooks): Promise<void> {
  await Deno.mkdir(`${home}/config/moat`, { recursive: true });
  await Deno.writeTextFile(`${home}/config/moat/config.json`, JSON.stringify({ hooks }));
}

/** A PermissionRequest hook that allows. */
const ALLOW = `cat >/dev/null; printf '%s' '{"hookSpecificOutput":{"hookEventName":` +
  `"PermissionRequest","decision":{"behavior":"allow"}}}'`;

/** Moves the hooks to the project: the user's config goes, the project's hook allows. */
async function onlyProjectAllows(userConfig: string, projectDir: string): Promise<void> {
  await Deno.remove(userConfig);
  await Deno.mkdir(projectDir);
  await Deno.writeTextFile(
    `${projectDir}/config.json`,
    JSON.stringify({ hooks: { PermissionRequest: [{ hooks: [command(ALLOW)] }] } }),
  );
}

/** A config whose hooks of `events` each touch `marker`. */
function touching(marker: string, events: string[]): string {
  const hook = [{ hooks: [command(`touch ${marker}`)] }];
  return JSON.stringify({ hooks: Object.fromEntries(events.map((e) => [e, hook])) });
}

const BLOCK_RM =
  'if grep -q "rm -rf"; then echo "rm -rf is not allowed; delete files one by one" >&2; ' +
  "exit 2; fi";

Deno.test("a PreToolUse hook that exits 2 blocks rm -rf: the model sees stderr, the command never runs", async () => {
  await using server = await startFakeOpenAI();
  await using ws = await createTempWorkspace({ "victim/keep.txt": "precious" });
  await using home = await createTempWorkspace();
  await userHooks(home.dir, { PreToolUse: [{ matcher: "bash", hooks: [command(BLOCK_RM)] }] });
  server.script(
    reply.toolCalls([{ id: "c1", name: "bash", arguments: { command: "rm -rf victim" } }]),
    reply.text("ok"),
  );
  const env = cliEnv(home.dir, { OPENAI_BASE_URL: server.baseURL });
  const result = await runMoat(
    ["--allow-run=rm", "--allow-write", "-o", "jsonl", "clean up"],
    { cwd: ws.dir, env },
  );
  assert.equal(result.code, 0, result.stderr);
  assert.equal(await Deno.readTextFile(ws.path("victim/keep.txt")), "precious");
  assert.match(
    toolResultOf(server, "c1"),
    /blocked by a PreToolUse hook: rm -rf is not allowed; delete files one by one/,
  );
  const events = jsonLines(result.stdout);
  const end = events.find((e) => e.type === "hook_end");
  assert.equal(end?.event, "PreToolUse");
  assert.equal(end?.exitCode, 2);
  assert.equal(end?.decision, "block");
  assert.equal(end?.toolName, "bash");
  assert.ok(events.some((e) => e.type === "hook_start"));
  assert.match(result.stderr, /PreToolUse hook .* blocked: rm -rf is not allowed/);

  // --no-hooks: the same run without the hook (the command runs).
  server.script(
    reply.toolCalls([{ id: "c2", name: "bash", arguments: { command: "rm -rf victim" } }]),
    reply.text("ok"),
  );
  const free = await runMoat(
    ["--no-hooks", "--allow-run=rm", "--allow-write", "-o", "jsonl", "clean up"],
    { cwd: ws.dir, env },
  );
  assert.equal(free.code, 0, free.stderr);
  assert.ok(!jsonLines(free.stdout).some((e) => e.type === "hook_start"));
  await assert.rejects(Deno.stat(ws.path("victim")));
});

Deno.test("a PreToolUse rewrite inside the grants runs; one outside them is still denied", async () => {
  await using server = await startFakeOpenAI();
  await using ws = await createTempWorkspace({ "asked.txt": "asked", "inside.txt": "inside" });
  await using home = await createTempWorkspace({ "secret.txt": "outside secret" });
  const rewrite = (path: string) =>
    `cat >/dev/null; printf '%s' '{"hookSpecificOutput":{"hookEventName":"PreToolUse",` +
    `"updatedInput":{"path":"${path}"}}}'`;
  const env = cliEnv(home.dir, { OPENAI_BASE_URL: server.baseURL });
  const cases: Array<[string, string]> = [["in", "inside.txt"], ["out", home.path("secret.txt")]];
  for (const [id, path] of cases) {
    await userHooks(home.dir, {
      PreToolUse: [{ matcher: "read", hooks: [command(rewrite(path))] }],
    });
    server.script(
      reply.toolCalls([{ id, name: "read", arguments: { path: "asked.txt" } }]),
      reply.text("ok"),
    );
    const result = await runMoat(["-o", "jsonl", "read it"], { cwd: ws.dir, env });
    assert.equal(result.code, 0, result.stderr);
  }
  assert.match(toolResultOf(server, "in"), /inside/);
  assert.doesNotMatch(toolResultOf(server, "in"), /asked/);
  const denied = toolResultOf(server, "out");
  assert.doesNotMatch(denied, /outside secret/);
  assert.match(denied, /not granted|denied/i);
});

Deno.test("a PostToolUse formatter changes the file after a write and its context reaches the model", async () => {
  await using server = await startFakeOpenAI();
  await using ws = await createTempWorkspace();
  await using home = await createTempWorkspace();
  const format = "cat >/dev/null; tr a-z A-Z < note.txt > note.tmp && mv note.tmp note.txt && " +
    `printf '%s' '{"hookSpecificOutput":{"hookEventName":"PostToolUse",` +
    `"additionalContext":"note.txt was formatted"}}'`;
  await userHooks(home.dir, { PostToolUse: [{ matcher: "write|edit", hooks: [command(format)] }] });
  server.script(
    reply.toolCalls([{
      id: "w1",
      name: "write",
      arguments: { path: "note.txt", content: "hello\n" },
    }]),
    reply.text("ok"),
  );
  const env = cliEnv(home.dir, { OPENAI_BASE_URL: server.baseURL });
  const result = await runMoat(["--allow-write", "write a note"], { cwd: ws.dir, env });
  assert.equal(result.code, 0, result.stderr);
  assert.equal(await Deno.readTextFile(ws.path("note.txt")), "HELLO\n");
  assert.match(toolResultOf(server, "w1"), /note\.txt was formatted/);
});

Deno.test("a hook that hangs is killed at its timeout: a warning, and the call goes on", async () => {
  await using server = await startFakeOpenAI();
  await using ws = await createTempWorkspace({ "a.txt": "alpha" });
  await using home = await createTempWorkspace();
  await userHooks(home.dir, {
    PreToolUse: [{ hooks: [command("sleep 30; exit 2", { timeout: 1 })] }],
  });
  server.script(
    reply.toolCalls([{ id: "r1", name: "read", arguments: { path: "a.txt" } }]),
    reply.text("ok"),
  );
  const env = cliEnv(home.dir, { OPENAI_BASE_URL: server.baseURL });
  const result = await runMoat(["read a"], { cwd: ws.dir, env });
  assert.equal(result.code, 0, result.stderr);
  assert.match(toolResultOf(server, "r1"), /alpha/);
  assert.match(result.stderr, /PreToolUse hook "sleep 30; exit 2" failed.*timed out/);
});

Deno.test("SessionStart and UserPromptSubmit add their stdout to the prompt; Stop sends the model back once; SessionEnd runs", async () => {
  await using server = await startFakeOpenAI();
  await using ws = await createTempWorkspace();
  await using home = await createTempWorkspace();
  // Hooks run confined: they write where the grants let the tools write (the workspace).
  const ended = ws.path("ended.json");
  await userHooks(home.dir, {
    SessionStart: [{ hooks: [command("cat >/dev/null; echo 'Branch: main'")] }],
    SessionEnd: [{
      hooks: [command(`cat > ended.json; echo "$CLAUDE_PROJECT_DIR" > ended.json.dir`)],
    }],
    UserPromptSubmit: [{ hooks: [command("cat >/dev/null; echo 'Ticket ABC-1: fix the login'")] }],
    Stop: [{
      hooks: [command(
        "if grep -q '\"stop_hook_active\":false'; then " +
          `printf '%s' '{"decision":"block","reason":"run the tests first"}'; fi`,
      )],
    }],
  });
  server.script(reply.text("done"), reply.text("tests pass"));
  const env = cliEnv(home.dir, { OPENAI_BASE_URL: server.baseURL });
  const result = await runMoat(["fix it"], { cwd: ws.dir, env });
  assert.equal(result.code, 0, result.stderr);
  assert.equal(server.chatRequests.length, 2, "sent back once, not in a loop");
  const first = JSON.stringify(server.chatRequests[0]?.body?.messages);
  assert.match(first, /fix it\\n\\nBranch: main\\n\\nTicket ABC-1: fix the login/);
  const second = JSON.stringify(server.chatRequests[1]?.body?.messages.at(-1));
  assert.match(second, /A Stop hook asked you to go on before stopping: run the tests first/);
  assert.match(result.stdout, /tests pass/);
  const end = JSON.parse(await Deno.readTextFile(ended));
  assert.equal(end.hook_event_name, "SessionEnd");
  assert.equal(end.cwd, ws.dir);
  assert.equal(typeof end.session_id, "string");
  assert.equal(await Deno.readTextFile(`${ended}.dir`), `${ws.dir}\n`);
});

Deno.test("a project's hooks never run in an untrusted project, and run once it is trusted", async () => {
  await using server = await startFakeOpenAI();
  await using home = await createTempWorkspace();
  const marker = "pwned"; // in the workspace: hooks run confined
  await using ws = await createTempWorkspace({
    ".moat/config.json": touching(marker, ["SessionStart", "UserPromptSubmit", "PreToolUse"]),
    "a.txt": "alpha",
  });
  const env = cliEnv(home.dir, { OPENAI_BASE_URL: server.baseURL });
  // No terminal to ask on: exit 2 before anything runs, naming the hooks.
  const untrusted = await runMoat(["read a"], { cwd: ws.dir, env });
  assert.equal(untrusted.code, 2, untrusted.stderr);
  assert.match(untrusted.stderr, /\n {2}hooks: /);
  assert.equal(server.requests.length, 0);
  await assert.rejects(Deno.stat(ws.path(marker)), "no project hook ran before the trust question");

  server.script(
    reply.toolCalls([{ id: "r1", name: "read", arguments: { path: "a.txt" } }]),
    reply.text("ok"),
  );
  const trusted = await runMoat(["--trust-project", "read a"], { cwd: ws.dir, env });
  assert.equal(trusted.code, 0, trusted.stderr);
  await Deno.stat(ws.path(marker));
});

Deno.test({
  name:
    "on a terminal a project's hooks wait for the trust question: ignored, they never run; once, they do",
  ignore: !(await hasScript()),
  async fn() {
    await using server = await startFakeOpenAI();
    await using home = await createTempWorkspace();
    const marker = "ran"; // in the workspace: hooks run confined
    await using ws = await createTempWorkspace({
      ".moat/config.json": touching(marker, ["SessionStart", "UserPromptSubmit"]),
    });
    const env = cliEnv(home.dir, { OPENAI_BASE_URL: server.baseURL });
    const argv = [Deno.execPath(), ...(await startArgv([]))];
    server.script(reply.text("first"), reply.text("second"));
    {
      await using pty = startPty(argv, { cwd: ws.dir, env });
      await pty.waitFor(/\[i\]gnore them: $/);
      assert.match(pty.output, /hooks: /);
      await assert.rejects(Deno.stat(ws.path(marker)), "nothing ran before the answer");
      await pty.type("i\r");
      await pty.waitFor(/› $/);
      await pty.type("hello\r");
      await pty.waitFor(/first[\s\S]*› $/);
      await pty.type("\x04");
      assert.equal(await pty.exited(), 0);
      await assert.rejects(Deno.stat(ws.path(marker)), "ignored hooks never ran");
    }
    {
      await using pty = startPty(argv, { cwd: ws.dir, env });
      await pty.waitFor(/\[i\]gnore them: $/);
      await pty.type("o\r");
      await pty.waitFor(/› $/);
      await pty.type("hello\r");
      await pty.waitFor(/second[\s\S]*› $/);
      await pty.type("\x04");
      assert.equal(await pty.exited(), 0);
      await Deno.stat(ws.path(marker));
    }
  },
});

Deno.test("PreToolUse and PostToolUse hooks fire for MCP tools too (claude-code #26923)", async () => {
  await using server = await startFakeOpenAI();
  await using ws = await createTempWorkspace();
  await using home = await createTempWorkspace();
  await Deno.mkdir(home.path("config/moat"), { recursive: true });
  await Deno.writeTextFile(
    home.path("config/moat/config.json"),
    JSON.stringify({
      mcpServers: { fixture: fixtureServerEntry() },
      hooks: {
        PreToolUse: [{
          matcher: "fixture__.*",
          // This run has no OS sandbox (--sandbox=off), so the hooks are the user's unconfined ones.
          hooks: [command('if grep -q secret; then echo "no secrets to MCP" >&2; exit 2; fi', {
            sandbox: false,
          })],
        }],
        PostToolUse: [{
          matcher: "fixture__echo",
          hooks: [command(
            `cat >/dev/null; printf '%s' '{"hookSpecificOutput":{"additionalContext":"seen by hook"}}'`,
            { sandbox: false },
          )],
        }],
      },
    }),
  );
  server.script(
    untilOffered("fixture__echo"),
    reply.toolCalls([
      { id: "m1", name: "fixture__echo", arguments: { text: "secret" } },
      { id: "m2", name: "fixture__echo", arguments: { text: "hello" } },
    ]),
    reply.text("done"),
  );
  const env = cliEnv(home.dir, { OPENAI_BASE_URL: server.baseURL });
  const result = await runMoat(["--sandbox=off", "--allow-unsandboxed-mcp", "--allow-mcp", "go"], {
    cwd: ws.dir,
    env,
  });
  assert.equal(result.code, 0, result.stderr);
  assert.match(toolResultOf(server, "m1"), /blocked by a PreToolUse hook: no secrets to MCP/);
  assert.match(toolResultOf(server, "m2"), /hello[\s\S]*seen by hook/);
});

Deno.test("in print mode a user's PermissionRequest hook answers instead of the silent denial; a project's cannot allow", async () => {
  await using server = await startFakeOpenAI();
  await using ws = await createTempWorkspace();
  await using home = await createTempWorkspace();
  await using outside = await createTempWorkspace({ "data.txt": "outside data" });
  const env = cliEnv(home.dir, { OPENAI_BASE_URL: server.baseURL });
  const read = (id: string) => {
    server.script(
      reply.toolCalls([{ id, name: "read", arguments: { path: outside.path("data.txt") } }]),
      reply.text("ok"),
    );
  };

  await userHooks(home.dir, { PermissionRequest: [{ matcher: "read", hooks: [command(ALLOW)] }] });
  read("allowed");
  const allowed = await runMoat(["-o", "jsonl", "read it"], { cwd: ws.dir, env });
  assert.equal(allowed.code, 0, allowed.stderr);
  assert.match(toolResultOf(server, "allowed"), /outside data/);
  const permission = jsonLines(allowed.stdout).find((e) => e.type === "permission");
  assert.equal(permission?.by, "hook");
  assert.equal(permission?.outcome, "approved_always");

  await userHooks(home.dir, {
    PermissionRequest: [{
      hooks: [command('echo "reads outside the repo are off in CI" >&2; exit 2')],
    }],
  });
  read("denied");
  const denied = await runMoat(["-o", "jsonl", "read it"], { cwd: ws.dir, env });
  assert.equal(denied.code, 0, denied.stderr);
  assert.match(toolResultOf(server, "denied"), /reads outside the repo are off in CI/);
  assert.equal(jsonLines(denied.stdout).find((e) => e.type === "permission")?.by, "hook");

  await onlyProjectAllows(home.path("config/moat/config.json"), ws.path(".moat"));
  read("project");
  const project = await runMoat(["--trust-project", "-o", "jsonl", "read it"], {
    cwd: ws.dir,
    env,
  });
  assert.equal(project.code, 0, project.stderr);
  assert.doesNotMatch(toolResultOf(server, "project"), /outside data/);
  assert.equal(jsonLines(project.stdout).find((e) => e.type === "permission")?.by, "no_prompt");
});

Deno.test({
  name:
    "a PermissionRequest hook answers bash's program check in print mode: allow runs it, deny's reason reaches the model, a project's allow is ignored",
  ignore: !BWRAP,
  async fn() {
    await using server = await startFakeOpenAI();
    await using ws = await createTempWorkspace({ "listed.txt": "x" });
    await using home = await createTempWorkspace();
    const env = cliEnv(home.dir, { OPENAI_BASE_URL: server.baseURL });
    const ls = async (id: string, flags: string[] = []) => {
      server.script(
        reply.toolCalls([{ id, name: "bash", arguments: { command: "ls" } }]),
        reply.text("ok"),
      );
      const result = await runMoat(
        ["--sandbox=require", "--allow-run=git", ...flags, "-o", "jsonl", "list"],
        { cwd: ws.dir, env },
      );
      assert.equal(result.code, 0, result.stderr);
      const permission = jsonLines(result.stdout).find((e) =>
        e.type === "permission" && e.target === "ls"
      );
      return { text: toolResultOf(server, id), permission };
    };

    await userHooks(home.dir, {
      PermissionRequest: [{ matcher: "bash", hooks: [command(ALLOW)] }],
    });
    const allowed = await ls("allowed");
    assert.match(allowed.text, /listed\.txt/);
    assert.equal(allowed.permission?.by, "hook");
    assert.equal(allowed.permission?.outcome, "approved_always");

    await userHooks(home.dir, {
      PermissionRequest: [{
        hooks: [command('echo "ls is off in CI: use git ls-files" >&2; exit 2')],
      }],
    });
    const denied = await ls("denied");
    assert.match(denied.text, /ls is off in CI: use git ls-files/);
    assert.doesNotMatch(denied.text, /listed\.txt/);
    assert.equal(denied.permission?.by, "hook");
    assert.equal(denied.permission?.outcome, "denied");

    await onlyProjectAllows(home.path("config/moat/config.json"), ws.path(".moat"));
    const project = await ls("project", ["--trust-project"]);
    assert.doesNotMatch(project.text, /listed\.txt/);
    assert.match(project.text, /--allow-run=git,ls/);
    assert.equal(project.permission?.by, "no_prompt");
  },
});

/** The messages of a chat request, as JSON (where UserPromptSubmit's stdout lands). */
function promptOf(server: FakeOpenAIServer, index: number): string {
  return JSON.stringify(server.chatRequests[index]?.body?.messages);
}

Deno.test({
  name:
    "hooks run confined end to end: no file outside the grants, no network, no provider key; a user's unsandboxed hook reads the file and moat says so",
  ignore: !BWRAP,
  async fn() {
    await using server = await startFakeOpenAI();
    await using ws = await createTempWorkspace();
    await using home = await createTempWorkspace();
    await using outside = await createTempWorkspace({ "secret.txt": "outside secret" });
    const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    let accepted = 0;
    const accepting = (async () => {
      for await (const conn of listener) {
        accepted++;
        conn.close();
      }
    })();
    try {
      const { port } = listener.addr as Deno.NetAddr;
      const key = "sk-hook-must-not-see-this";
      const env = cliEnv(home.dir, { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: key });
      const read = `cat >/dev/null; cat ${outside.path("secret.txt")}`;
      const net = `cat >/dev/null; exec 3<>/dev/tcp/127.0.0.1/${port} && echo "net reached"`;
      const probes = (sandbox: boolean) => ({
        UserPromptSubmit: [{
          hooks: [read, net, "cat >/dev/null; env"].map((c) =>
            command(c, sandbox ? {} : { sandbox: false })
          ),
        }],
      });
      await userHooks(home.dir, probes(true));
      server.script(reply.text("ok"));
      const confined = await runMoat(["--sandbox=require", "-o", "jsonl", "go"], {
        cwd: ws.dir,
        env,
      });
      assert.equal(confined.code, 0, confined.stderr);
      const prompt = promptOf(server, 0);
      assert.match(
        prompt,
        /MOAT_PROJECT_DIR=/,
        "the env hook ran and its output reached the prompt",
      );
      assert.doesNotMatch(prompt, /outside secret|net reached/);
      assert.doesNotMatch(prompt, new RegExp(`OPENAI_API_KEY|${key}`));
      assert.equal(accepted, 0, "no connection reached the listener");
      const ends = jsonLines(confined.stdout).filter((e) => e.type === "hook_end");
      const endOf = (c: string) => ends.find((e) => e.command === c);
      for (const c of [read, net]) {
        assert.equal(endOf(c)?.decision, "failed", c);
        assert.notEqual(endOf(c)?.exitCode, 0, c);
        assert.equal(typeof endOf(c)?.durationMs, "number");
      }
      assert.match(String(endOf(read)?.reason), /No such file or directory/);
      assert.match(String(endOf(net)?.reason), /dev\/tcp/);
      assert.equal(endOf("cat >/dev/null; env")?.decision, "context");
      assert.doesNotMatch(confined.stderr, /outside the sandbox/);

      // In text mode the failures are stderr lines.
      server.script(reply.text("ok"));
      const text = await runMoat(["--sandbox=require", "go"], { cwd: ws.dir, env });
      assert.equal(text.code, 0, text.stderr);
      assert.match(
        text.stderr,
        /UserPromptSubmit hook ".*secret\.txt" failed, so the step went on/,
      );

      // The same hooks marked "sandbox": false in the user's own config: they read the file and
      // reach the listener, and moat says so at start (on stderr, and as a JSONL warning).
      await userHooks(home.dir, probes(false));
      for (const output of ["text", "jsonl"]) {
        server.script(reply.text("ok"));
        const before = server.chatRequests.length;
        const free = await runMoat(["--sandbox=require", "-o", output, "go"], {
          cwd: ws.dir,
          env,
        });
        assert.equal(free.code, 0, free.stderr);
        assert.match(promptOf(server, before), /outside secret[\s\S]*net reached/);
        assert.match(free.stderr, /The hook ".*" runs outside the sandbox \("sandbox": false\)/);
        if (output === "jsonl") {
          const warning = jsonLines(free.stdout).find((e) => e.type === "warning");
          assert.match(String(warning?.message), /runs outside the sandbox/);
        }
      }
      assert.ok(accepted > 0, "unconfined, the same hook reached the listener");
    } finally {
      listener.close();
      await accepting.catch(() => {});
    }
  },
});

Deno.test("continue: false stops the run after the call, its stopReason and systemMessage shown to the user; transcript_path is the session file", async () => {
  await using server = await startFakeOpenAI();
  await using ws = await createTempWorkspace({ "a.txt": "alpha" });
  await using home = await createTempWorkspace();
  const seen = ws.path("pre.json");
  await userHooks(home.dir, {
    PreToolUse: [{
      hooks: [command(
        `cat > ${seen}; printf '%s' '{"continue":false,"stopReason":"the budget is spent",` +
          `"systemMessage":"see you tomorrow"}'`,
      )],
    }],
  });
  server.script(
    reply.toolCalls([{ id: "r1", name: "read", arguments: { path: "a.txt" } }]),
    reply.text("never asked"),
  );
  const env = cliEnv(home.dir, { OPENAI_BASE_URL: server.baseURL });
  const result = await runMoat(["read a"], { cwd: ws.dir, env });
  assert.equal(result.code, 0, result.stderr);
  assert.equal(server.chatRequests.length, 1, "the run stopped after the call");
  assert.match(
    result.stderr,
    /moat: warning: PreToolUse hook .* stopped the run: the budget is spent; see you tomorrow\n/,
  );
  const input = JSON.parse(await Deno.readTextFile(seen));
  assert.match(String(input.transcript_path), /\.jsonl$/);
  assert.match(await Deno.readTextFile(input.transcript_path), /the budget is spent/);
});

Deno.test("in print mode a user's PermissionRequest hook answers MCP approvals too: allow for the run, or deny with a reason", async () => {
  await using server = await startFakeOpenAI();
  await using ws = await createTempWorkspace();
  await using home = await createTempWorkspace();
  const env = cliEnv(home.dir, { OPENAI_BASE_URL: server.baseURL });
  const answers: Array<[string, string]> = [
    [
      "allowed",
      ALLOW,
    ],
    ["denied", 'echo "no MCP calls in CI" >&2; exit 2'],
  ];
  for (const [id, hook] of answers) {
    await Deno.mkdir(home.path("config/moat"), { recursive: true });
    await Deno.writeTextFile(
      home.path("config/moat/config.json"),
      JSON.stringify({
        mcpServers: { fixture: fixtureServerEntry() },
        // No OS sandbox in this run: the hook is the user's own, unconfined.
        hooks: {
          PermissionRequest: [{
            matcher: "fixture__.*",
            hooks: [command(hook, { sandbox: false })],
          }],
        },
      }),
    );
    server.script(
      untilOffered("fixture__echo"),
      reply.toolCalls([{ id, name: "fixture__echo", arguments: { text: "hello" } }]),
      reply.text("done"),
    );
    const result = await runMoat(
      ["--sandbox=off", "--allow-unsandboxed-mcp", "-o", "jsonl", "go"],
      { cwd: ws.dir, env },
    );
    assert.equal(result.code, 0, result.stderr);
    const permission = jsonLines(result.stdout).find((e) =>
      e.type === "permission" && e.access === "mcp"
    );
    assert.equal(permission?.by, "hook", id);
    if (id === "allowed") {
      assert.match(toolResultOf(server, id), /hello/);
      assert.equal(permission?.outcome, "approved_always");
    } else {
      assert.match(toolResultOf(server, id), /no MCP calls in CI/);
      assert.equal(permission?.outcome, "denied");
    }
  }
});
