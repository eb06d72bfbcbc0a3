/**
 * End-to-end: a session recorded against the fake OpenAI server is replayed by the real CLI with
 * no model at all; --replay-check compares live tool results with the recorded ones (exit 5).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { reply, startFakeOpenAI } from "../support/fake_openai.ts";
import { createTempWorkspace, exists, type TempWorkspace } from "../support/workspace.ts";
import { cliEnv, jsonLines, PROJECT_ROOT, runMoat, toolResultOf } from "./_cli.ts";

/** The files every workspace of these tests starts with. */
async function seed(ws: TempWorkspace): Promise<void> {
  await ws.write({
    "notes.txt": "alpha\nbeta\ngamma\n",
    "src/app.ts": "export const answer = 42;\n",
  });
  await Deno.mkdir(ws.path("docs"));
}

/** Records one session in a fresh workspace (read, bash, grep, write) and returns its path. */
async function record(home: TempWorkspace): Promise<string> {
  await using server = await startFakeOpenAI();
  await using ws = await createTempWorkspace();
  await seed(ws);
  server.script(
    reply.toolCalls([
      { name: "read", arguments: { path: "notes.txt" } },
      // An absolute path in the recording's workspace: replayed against the current workspace.
      { name: "grep", arguments: { pattern: "answer", path: ws.path("src") } },
    ], { text: "Reading first." }),
    // pwd prints the workspace's absolute path: the check must map it to the replay's workspace.
    reply.toolCalls([{ name: "bash", arguments: { command: "pwd && wc -l < notes.txt" } }]),
    reply.toolCalls([{
      name: "write",
      arguments: { path: "docs/summary.md", content: "3 notes\n" },
    }]),
    reply.text("Wrote docs/summary.md: three notes."),
  );
  const file = home.path("recorded.jsonl");
  const env = cliEnv(home.dir, { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: "k" });
  const result = await runMoat(["--session", file, "summarise the notes"], { cwd: ws.dir, env });
  assert.equal(result.code, 0, result.stderr);
  assert.equal(server.chatRequests.length, 4);
  return file;
}

/** An environment with no model configuration at all: a replay must not need one. */
function offlineEnv(home: TempWorkspace): Record<string, string> {
  return cliEnv(home.dir);
}

Deno.test("moat --replay-check passes in a fresh copy of the workspace, then exits 5 showing the line that changed", async () => {
  await using home = await createTempWorkspace();
  const file = await record(home);
  // Another directory than the recording's: paths in results (pwd, spill files) are normalised.
  await using ws = await createTempWorkspace();
  await seed(ws);
  const replay = () =>
    runMoat(["--replay", file, "--replay-check", "--no-session"], {
      cwd: ws.dir,
      env: offlineEnv(home),
    });

  const same = await replay();
  assert.equal(same.code, 0, same.stderr);
  assert.equal(same.stdout, "Wrote docs/summary.md: three notes.\n");
  assert.match(same.stderr, /replay check passed: 4 tool result\(s\) match the recording/);
  assert.equal(
    await Deno.readTextFile(ws.path("docs/summary.md")),
    "3 notes\n",
    "the tools ran for real",
  );

  await ws.write({ "notes.txt": "alpha\nBETA\ngamma\n" });
  // Only the read should differ: the write must create the file again, as when recorded.
  await Deno.remove(ws.path("docs/summary.md"));
  const changed = await replay();
  assert.equal(changed.code, 5, changed.stderr);
  assert.match(changed.stderr, /replay check failed: 1 of 4 tool result\(s\) differ/);
  assert.match(changed.stderr, /Tool call "read" differs from the recording/);
  assert.match(changed.stderr, /call: read \{"path":"notes.txt"\}/);
  assert.match(changed.stderr, /^ {2}-beta$/m);
  assert.match(changed.stderr, /^ {2}\+BETA$/m);
  // The run itself still completed with the recorded answer.
  assert.equal(changed.stdout, "Wrote docs/summary.md: three notes.\n");
});

Deno.test("moat --replay under narrower grants produces the live denial, and --replay-check reports it", async () => {
  await using home = await createTempWorkspace();
  const file = await record(home);
  await using ws = await createTempWorkspace();
  await seed(ws);
  const env = offlineEnv(home);

  const plain = await runMoat(
    ["--replay", file, "--allow-write=src", "--no-session", "--output", "jsonl"],
    { cwd: ws.dir, env },
  );
  assert.equal(plain.code, 0, plain.stderr);
  const events = jsonLines(plain.stdout);
  const write = events.find((e) => e.type === "tool_end" && e.name === "write");
  assert.equal((write?.blocked as { source?: string } | null)?.source, "permissions");
  assert.ok(!(await exists(ws.path("docs/summary.md"))), "the denied write did not happen");
  const end = events.at(-1);
  assert.equal(end?.type, "run_end");
  assert.deepEqual(end?.replay, { file, played: 4, replies: 4 });

  const checked = await runMoat(
    ["--replay", file, "--allow-write=src", "--replay-check", "--no-session"],
    { cwd: ws.dir, env },
  );
  assert.equal(checked.code, 5, checked.stderr);
  assert.match(checked.stderr, /✗ write docs\/summary\.md blocked by permissions/);
  assert.match(
    checked.stderr,
    /Tool call "write" differs from the recording: the recorded result was ok, the live one is an error/,
  );
  assert.match(checked.stderr, /--allow-write/);

  // With --fail-on-deny the denial alone exits 4; a check that also fails says 5.
  const denied = ["--replay", file, "--allow-write=src", "--fail-on-deny", "--no-session"];
  assert.equal((await runMoat(denied, { cwd: ws.dir, env })).code, 4);
  assert.equal((await runMoat([...denied, "--replay-check"], { cwd: ws.dir, env })).code, 5);
});

Deno.test("moat --replay of a recording that ends before the run does exits 1 naming the last line", async () => {
  await using home = await createTempWorkspace();
  const file = await record(home);
  const lines = (await Deno.readTextFile(file)).trimEnd().split("\n");
  // Drop the final answer: the run still wants a reply after the write's result.
  await Deno.writeTextFile(file, lines.slice(0, -1).join("\n") + "\n");
  await using ws = await createTempWorkspace();
  await seed(ws);
  const result = await runMoat(["--replay", file, "--no-session"], {
    cwd: ws.dir,
    env: offlineEnv(home),
  });
  assert.equal(result.code, 1, result.stderr);
  assert.match(
    result.stderr,
    new RegExp(`has no model reply left: it ends after line ${lines.length - 1}`),
  );
});

Deno.test("moat --replay rejects a malformed recording with exit 2 naming the line, and runs nothing", async () => {
  await using home = await createTempWorkspace();
  const file = await record(home);
  const lines = (await Deno.readTextFile(file)).trimEnd().split("\n");
  lines[2] = lines[2]!.slice(0, 20);
  await Deno.writeTextFile(file, lines.join("\n") + "\n");
  await using ws = await createTempWorkspace();
  await seed(ws);
  const result = await runMoat(["--replay", file, "--no-session"], {
    cwd: ws.dir,
    env: offlineEnv(home),
  });
  assert.equal(result.code, 2, result.stderr);
  assert.match(result.stderr, /line 3/);
  assert.equal(result.stdout, "");
  assert.ok(!(await exists(ws.path("docs/summary.md"))));
});

Deno.test("the README's tour replays offline from this repository: answer on stdout, real denials on stderr, exit 0", async () => {
  await using home = await createTempWorkspace();
  // The command newcomers copy from the README, exactly (its arguments after `task -q start --`).
  const readme = await Deno.readTextFile(join(PROJECT_ROOT, "README.md"));
  const command = /^npx -y deno@2\.9\.6 task -q start -- (--replay \S+)$/m.exec(readme);
  assert.ok(command !== null, "the README shows the replay command for newcomers");
  const readmeArgs = (command[1] as string).split(" ");
  assert.deepEqual(readmeArgs, ["--replay", join("examples", "tour.jsonl")]);
  const tour = readmeArgs[1] as string;
  const result = await runMoat([...readmeArgs, "--no-session"], {
    cwd: PROJECT_ROOT,
    env: offlineEnv(home),
  });
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /^Here is the tour:/);
  assert.match(result.stderr, /✗ read ~\/\.ssh\/config blocked by permissions/);
  assert.match(result.stderr, /✗ write \/tmp\/moat-tour\.txt blocked by permissions/);
  assert.match(result.stderr, /✓ read README\.md/);

  // The checked-in tour must match this repository as it is now.
  const checked = await runMoat(["--replay", tour, "--replay-check", "--no-session"], {
    cwd: PROJECT_ROOT,
    env: offlineEnv(home),
  });
  assert.equal(
    checked.code,
    0,
    `examples/tour.jsonl is out of date: run \`deno task record-tour\` and commit it.\n${checked.stderr}`,
  );
});

Deno.test("moat --replay-check follows a read of a bash spill file into this run's spill file", async () => {
  await using home = await createTempWorkspace();
  const file = home.path("spill.jsonl");
  {
    await using server = await startFakeOpenAI();
    await using ws = await createTempWorkspace();
    server.script(
      reply.toolCalls([{ name: "bash", arguments: { command: "seq 1 200000" } }]),
      (request) => {
        // The model pages the full output the bash result pointed at, as the tool tells it to.
        const last = request.body?.messages.at(-1);
        const path = /saved in (\S+\.log)/.exec(String(last?.content))?.[1];
        assert.ok(path !== undefined, `no spill path in ${String(last?.content).slice(-300)}`);
        return reply.toolCalls([{ name: "read", arguments: { path, offset: 1000, limit: 3 } }]);
      },
      reply.text("Lines 1000 to 1002 are 1000, 1001 and 1002."),
    );
    const env = cliEnv(home.dir, { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: "k" });
    const recorded = await runMoat(["--session", file, "page the output"], { cwd: ws.dir, env });
    assert.equal(recorded.code, 0, recorded.stderr);
  }
  await using ws = await createTempWorkspace();
  const replayed = await runMoat(["--replay", file, "--replay-check", "--no-session"], {
    cwd: ws.dir,
    env: offlineEnv(home),
  });
  assert.equal(replayed.code, 0, replayed.stderr);
  assert.match(replayed.stderr, /✓ read .*bash-.*\.stdout\.log/);
  assert.match(replayed.stderr, /replay check passed: 2 tool result\(s\) match/);
});

Deno.test("moat --replay of a run that stopped at --max-turns replays it as recorded: the same report, exit 3", async () => {
  await using home = await createTempWorkspace();
  await using server = await startFakeOpenAI();
  await using ws = await createTempWorkspace();
  await seed(ws);
  let n = 0;
  server.script(
    reply.toolCalls([{ id: `r${++n}`, name: "read", arguments: { path: "notes.txt" } }]),
    reply.toolCalls([{ id: `r${++n}`, name: "read", arguments: { path: "src/app.ts" } }]),
    reply.text("Read the notes and the app; the summary remains to be written."),
  );
  const file = home.path("limit.jsonl");
  const env = cliEnv(home.dir, { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: "k" });
  const recorded = await runMoat(["--session", file, "--max-turns", "2", "summarise"], {
    cwd: ws.dir,
    env,
  });
  assert.equal(recorded.code, 3, recorded.stderr);
  assert.equal(server.chatRequests.length, 3);

  await using again = await createTempWorkspace();
  await seed(again);
  const replayed = await runMoat(["--replay", file, "--replay-check", "--no-session"], {
    cwd: again.dir,
    env: offlineEnv(home),
  });
  assert.equal(replayed.code, 3, replayed.stderr);
  assert.equal(replayed.stdout, recorded.stdout);
  assert.equal(
    replayed.stdout,
    "Read the notes and the app; the summary remains to be written.\n",
  );
  const limitLine = /stopped after 2 turn\(s\): the turn limit was reached.*model's report/;
  assert.match(recorded.stderr, limitLine);
  assert.match(replayed.stderr, limitLine);
  assert.match(replayed.stderr, /replay check passed: 2 tool result\(s\) match the recording/);
  assert.doesNotMatch(replayed.stderr, /not played|without a final reply|warning/);
});

Deno.test("moat --replay-check of a run with background jobs: the job calls replay live and match (pids, log files normalised)", async () => {
  await using home = await createTempWorkspace();
  await using server = await startFakeOpenAI();
  await using recorded = await createTempWorkspace();
  // It prints only once the next call made "go" (so its start shows nothing, whatever the
  // machine's speed), then enough for the wait's result to name the job's log file.
  const command = "until [ -e go ]; do sleep 0.05; done; seq 1 3000; echo ready; sleep 600";
  server.script(
    reply.toolCalls([{ id: "c_start", name: "bash", arguments: { command, background: true } }]),
    reply.toolCalls([{ id: "c_go", name: "bash", arguments: { command: "touch go" } }]),
    reply.toolCalls([
      { id: "c_wait", name: "job", arguments: { action: "wait", id: "1", pattern: "^ready$" } },
    ]),
    reply.toolCalls([{ id: "c_read", name: "job", arguments: { action: "read", id: "1" } }]),
    reply.toolCalls([{ id: "c_list", name: "job", arguments: { action: "list" } }]),
    reply.toolCalls([{ id: "c_stop", name: "job", arguments: { action: "stop", id: "1" } }]),
    reply.text("Served."),
  );
  const file = home.path("jobs.jsonl");
  const env = cliEnv(home.dir, { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: "k" });
  const rec = await runMoat(["--allow-run", "--session", file, "serve"], {
    cwd: recorded.dir,
    env,
  });
  assert.equal(rec.code, 0, rec.stderr);
  assert.match(toolResultOf(server, "c_start"), /\[Started job "1" in the background/);
  assert.match(toolResultOf(server, "c_wait"), /job-1-\d+\.log/);
  assert.match(toolResultOf(server, "c_list"), /pid \d+/);
  await using ws = await createTempWorkspace();
  const out = await runMoat(
    ["--allow-run", "--replay", file, "--replay-check", "--no-session", "--output", "json"],
    { cwd: ws.dir, env: offlineEnv(home) },
  );
  const result = JSON.parse(out.stdout);
  assert.equal(out.code, 0, out.stderr);
  assert.deepEqual(
    { compared: result.replay.check.compared, differing: result.replay.check.differing },
    { compared: 6, differing: 0 },
  );
});
