import assert from "node:assert/strict";
import { Type } from "@sinclair/typebox";
import { runCli } from "../../../src/cli/main.ts";
import type { Message } from "../../../src/model/types.ts";
import { finalAnswerPrompt } from "../../../src/agent/mod.ts";
import { sessionHeader, sessionText } from "../../support/sessions.ts";
import { createDenoCliFs } from "../../../src/sys/session_fs.ts";
import type { Tool, ToolOutput } from "../../../src/agent/tool.ts";
import { createTempWorkspace, type TempWorkspace } from "../../support/workspace.ts";
import { createFakeCliDeps, createFakeTerminal, type FakeTerminal } from "../_fakes.ts";

const usage = { inputTokens: 100, outputTokens: 20, cachedTokens: 0, totalTokens: 120 };
const RECORDED_CWD = "/home/recorder/project";

const user = (content: string): Message => ({ role: "user", content });
const answer = (text: string): Message => ({
  role: "assistant",
  blocks: [{ type: "text", text }],
  stopReason: "stop",
  usage,
  model: "recorded-model",
});
const callLs = (id: string): Message => ({
  role: "assistant",
  blocks: [
    { type: "text", text: "Let me list the files." },
    { type: "toolCall", id, name: "ls", arguments: { path: "." } },
  ],
  stopReason: "toolUse",
  usage,
  model: "recorded-model",
});
const lsResult = (id: string, content: string): Message => ({
  role: "toolResult",
  results: [{ toolCallId: id, toolName: "ls", content, isError: false }],
});

/** The recording's header: recorded in RECORDED_CWD with "recorded-model". */
function recordedHeader(over: Record<string, unknown> = {}) {
  return sessionHeader({ cwd: RECORDED_CWD, model: "recorded-model", ...over });
}

function recordingText(messages: Message[], header = recordedHeader()): string {
  return sessionText(messages, header);
}

/** The tour in miniature: the model lists the workspace, then answers. */
const TOUR: Message[] = [
  user("What is in this project?"), // line 2
  callLs("call_1"), // 3
  lsResult("call_1", `${RECORDED_CWD}/README.md\n${RECORDED_CWD}/src/`), // 4
  answer("A README and a src directory."), // 5
];

const LsParams = Type.Object({ path: Type.String({ description: "Directory to list" }) });

/** Fake deps whose sandbox offers one `ls` tool answering `listing(workspace)`; createModel throws. */
function fakeDeps(listing: (args: { path: string }) => string) {
  const toolArgs: Array<{ path: string }> = [];
  const ls: Tool<typeof LsParams> = {
    name: "ls",
    description: "Lists a directory.",
    parameters: LsParams,
    kind: "read",
    concurrencySafe: true,
    execute(args): Promise<ToolOutput> {
      toolArgs.push(args);
      return Promise.resolve({ output: listing(args) });
    },
  };
  const fake = createFakeCliDeps({ tools: [ls] });
  return { deps: fake.deps, calls: Object.assign(fake.calls, { toolArgs }) };
}

/** The live listing that matches the recorded one (paths differ only by workspace). */
const sameListing = (ws: TempWorkspace) => () => `${ws.dir}/README.md\n${ws.dir}/src/`;

async function run(
  ws: TempWorkspace,
  argv: string[],
  options: {
    terminal?: FakeTerminal;
    listing?: (args: { path: string }) => string;
    env?: Record<string, string>;
  } = {},
) {
  const terminal = options.terminal ?? createFakeTerminal();
  const { deps, calls } = fakeDeps(options.listing ?? sameListing(ws));
  // No API key and no base URL: a replay needs neither.
  const code = await runCli(argv, {
    env: options.env ?? { HOME: ws.dir },
    cwd: ws.dir,
    terminal,
    deps,
    fs: createDenoCliFs(),
  });
  return { code, terminal, calls };
}

/** `run` replaying tour.jsonl with `flags` after it. */
function replayTour(ws: TempWorkspace, flags: string[], options: Parameters<typeof run>[2] = {}) {
  return run(ws, ["--replay", "tour.jsonl", ...flags], options);
}

/** The parsed lines of the session file `name` in `ws` (the header first). */
async function sessionLines(ws: TempWorkspace, name: string) {
  return (await Deno.readTextFile(ws.path(name))).trimEnd().split("\n").map((l) => JSON.parse(l));
}

Deno.test("runCli() --replay runs the tools for real with no API key and never creates a model", async () => {
  await using ws = await createTempWorkspace({ "tour.jsonl": recordingText(TOUR) });
  const { code, terminal, calls } = await replayTour(ws, ["--no-session"]);
  assert.equal(code, 0, terminal.stderr);
  assert.equal(terminal.stdout, "A README and a src directory.\n");
  assert.equal(calls.models, 0);
  assert.deepEqual(calls.toolArgs, [{ path: "." }]);
  assert.equal(calls.sandboxes.length, 1);
  assert.equal(calls.closed, 1);
  assert.match(
    terminal.stderr,
    /Replaying .*tour\.jsonl: 2 recorded model replies \(recorded-model\); the tools run for real/,
  );
  assert.doesNotMatch(terminal.stderr, /No model endpoint configured/);
});

Deno.test("runCli() --replay of a file with bad JSON exits 2 naming the file and line, opening no sandbox", async () => {
  const text = recordingText(TOUR).split("\n");
  text[2] = '{"type":"message","message":{"role":"assistant",'; // line 3
  await using ws = await createTempWorkspace({ "broken.jsonl": text.join("\n") });
  const { code, terminal, calls } = await run(ws, ["--replay", "broken.jsonl", "--no-session"]);
  assert.equal(code, 2);
  assert.match(
    terminal.stderr,
    new RegExp(
      `^moat: Replay file "${ws.path("broken.jsonl")}", line 3: the line is not valid JSON`,
    ),
  );
  assert.equal(calls.sandboxes.length + calls.models + calls.toolArgs.length, 0);
  assert.equal(terminal.stdout, "");
});

Deno.test("runCli() --replay of a version 2 session exits 2 naming line 1 and the version", async () => {
  await using ws = await createTempWorkspace({
    "v2.jsonl": recordingText(TOUR, recordedHeader({ version: 2 })),
  });
  const { code, terminal, calls } = await run(ws, ["--replay", "v2.jsonl"]);
  assert.equal(code, 2);
  assert.match(terminal.stderr, /Replay file ".*v2\.jsonl", line 1: .*format version "2"/);
  assert.equal(calls.sandboxes.length + calls.toolArgs.length, 0);
});

Deno.test("runCli() --replay of a missing file exits 2 and says it does not exist", async () => {
  await using ws = await createTempWorkspace();
  const { code, terminal, calls } = await run(ws, ["--replay", "nope.jsonl"]);
  assert.equal(code, 2);
  assert.match(terminal.stderr, /The replay file ".*nope\.jsonl" does not exist/);
  assert.equal(calls.sandboxes.length, 0);
});

Deno.test("runCli() --replay with a prompt replaces the first user message in the saved session", async () => {
  await using ws = await createTempWorkspace({ "tour.jsonl": recordingText(TOUR) });
  const { code, terminal } = await replayTour(ws, ["--session", "out.jsonl", "Show me the files"]);
  assert.equal(code, 0, terminal.stderr);
  const lines = await sessionLines(ws, "out.jsonl");
  assert.equal(lines[0].type, "session");
  assert.equal(lines[0].model, "recorded-model");
  assert.equal(lines[0].replayOf, ws.path("tour.jsonl"));
  const messages = lines.slice(1).map((l) => l.message);
  assert.deepEqual(messages.map((m) => m.role), ["user", "assistant", "toolResult", "assistant"]);
  assert.equal(messages[0].content, "Show me the files");
  // The replayed replies carry no token usage; the results are the live ones.
  assert.equal(messages[1].usage.totalTokens, 0);
  assert.equal(messages[2].results[0].content, `${ws.dir}/README.md\n${ws.dir}/src/`);
});

Deno.test("runCli() --replay on a terminal stdin runs in print mode and never reads stdin", async () => {
  await using ws = await createTempWorkspace({ "tour.jsonl": recordingText(TOUR) });
  const terminal = createFakeTerminal({ tty: { stdin: true, stdout: false, stderr: false } });
  let reads = 0;
  terminal.readStdin = () => {
    reads++;
    return Promise.resolve(null);
  };
  terminal.readLines = () => {
    reads++;
    throw new Error("interactive mode must not start");
  };
  const { code } = await replayTour(ws, ["--no-session"], { terminal });
  assert.equal(code, 0, terminal.stderr);
  assert.equal(terminal.stdout, "A README and a src directory.\n");
  assert.equal(reads, 0);
});

Deno.test("runCli() --replay with a piped stdin that never ends does not wait for it", async () => {
  await using ws = await createTempWorkspace({ "tour.jsonl": recordingText(TOUR) });
  const terminal = createFakeTerminal({ stdin: "never" });
  const { code } = await replayTour(ws, ["--no-session"], { terminal });
  assert.equal(code, 0, terminal.stderr);
  assert.equal(terminal.stdout, "A README and a src directory.\n");
});

Deno.test("runCli() --replay of a recording that ends on tool results exits 1: no model reply left", async () => {
  await using ws = await createTempWorkspace({
    "cut.jsonl": recordingText(TOUR.slice(0, 3)),
  });
  const { code, terminal, calls } = await run(ws, ["--replay", "cut.jsonl", "--no-session"]);
  assert.equal(code, 1);
  assert.deepEqual(calls.toolArgs, [{ path: "." }], "the recorded call still ran");
  assert.match(
    terminal.stderr,
    new RegExp(`"${ws.path("cut.jsonl")}" has no model reply left: it ends after line 4`),
  );
  assert.equal(calls.closed, 1);
});

Deno.test("runCli() --replay into an existing non-empty --session file exits 2 before opening the sandbox", async () => {
  await using ws = await createTempWorkspace({
    "tour.jsonl": recordingText(TOUR),
    "old.jsonl": recordingText([user("hi"), answer("hello")]),
  });
  const before = await Deno.readTextFile(ws.path("old.jsonl"));
  const { code, terminal, calls } = await replayTour(ws, ["--session", "old.jsonl"]);
  assert.equal(code, 2);
  assert.match(terminal.stderr, /"[^"]*old\.jsonl" already holds a conversation.*--no-session/);
  assert.equal(calls.sandboxes.length, 0);
  assert.equal(await Deno.readTextFile(ws.path("old.jsonl")), before, "nothing was appended");
});

Deno.test("runCli() --replay --output json reports the replay and the recorded model", async () => {
  await using ws = await createTempWorkspace({ "tour.jsonl": recordingText(TOUR) });
  const { code, terminal } = await replayTour(ws, ["--no-session", "--output", "json"]);
  assert.equal(code, 0, terminal.stderr);
  const result = JSON.parse(terminal.stdout);
  assert.equal(result.type, "result");
  assert.equal(result.text, "A README and a src directory.");
  assert.equal(result.model, "recorded-model");
  assert.deepEqual(result.replay, { file: ws.path("tour.jsonl"), played: 2, replies: 2 });
  assert.equal(result.usage.totalTokens, 0);
  assert.equal(result.toolCalls, 1);
  assert.equal(result.exitCode, 0);
});

Deno.test("runCli() --replay --output jsonl puts the replay in run_start and run_end", async () => {
  await using ws = await createTempWorkspace({ "tour.jsonl": recordingText(TOUR) });
  const { code, terminal } = await replayTour(ws, [
    "--replay-check",
    "--no-session",
    "-o",
    "jsonl",
  ]);
  assert.equal(code, 0, terminal.stderr);
  const events = terminal.stdout.trimEnd().split("\n").map((l) => JSON.parse(l));
  const start = events[0];
  assert.equal(start.type, "run_start");
  assert.equal(start.model, "recorded-model");
  assert.equal(start.baseUrl, null);
  assert.deepEqual(start.replay, {
    file: ws.path("tour.jsonl"),
    recordedModel: "recorded-model",
    recordedAt: "2025-01-01T00:00:00.000Z",
    replies: 2,
    check: true,
  });
  const end = events.at(-1);
  assert.equal(end.type, "run_end");
  assert.equal(end.replay.played, 2);
  assert.equal(end.replay.check.compared, 1);
  assert.equal(end.replay.check.differing, 0);
  assert.match(terminal.stderr, /replay check passed: 1 tool result\(s\) match the recording/);
});

Deno.test("runCli() --replay-check exits 0 and says so when the live results match after normalising paths", async () => {
  await using ws = await createTempWorkspace({ "tour.jsonl": recordingText(TOUR) });
  const { code, terminal } = await replayTour(ws, ["--replay-check", "--no-session"]);
  assert.equal(code, 0, terminal.stderr);
  assert.match(
    terminal.stderr,
    /moat: replay check passed: 1 tool result\(s\) match the recording/,
  );
  assert.doesNotMatch(terminal.stderr, /replay check failed/);
});

Deno.test("runCli() --replay-check exits 5 and shows the first difference when a tool result changed", async () => {
  await using ws = await createTempWorkspace({ "tour.jsonl": recordingText(TOUR) });
  const { code, terminal } = await replayTour(ws, ["--replay-check"], {
    listing: () => `${ws.dir}/README.md\n${ws.dir}/lib/`,
  });
  assert.equal(code, 5, terminal.stderr);
  // The run itself completed: the final answer is still printed.
  assert.equal(terminal.stdout, "A README and a src directory.\n");
  assert.match(
    terminal.stderr,
    /moat: replay check failed: 1 of 1 tool result\(s\) differ from the recording; the first:/,
  );
  assert.match(terminal.stderr, /Tool call "ls" differs from the recording/);
  assert.match(terminal.stderr, /recorded reply on line 3, recorded result on line 4/);
  assert.match(terminal.stderr, /\n {2}-<workspace>\/src\/\n {2}\+<workspace>\/lib\/\n/);
});

Deno.test("runCli() --replay without --replay-check exits 0 even when a tool result changed", async () => {
  await using ws = await createTempWorkspace({ "tour.jsonl": recordingText(TOUR) });
  const { code, terminal } = await replayTour(ws, ["--no-session"], {
    listing: () => "something else entirely",
  });
  assert.equal(code, 0, terminal.stderr);
  assert.doesNotMatch(terminal.stderr, /replay check/);
});

Deno.test("runCli() --replay goes on after an interrupted exchange and saves every recorded user message", async () => {
  await using ws = await createTempWorkspace({
    "multi.jsonl": recordingText([
      user("first"), // 2
      callLs("call_1"), // 3
      lsResult("call_1", `${RECORDED_CWD}/README.md\n${RECORDED_CWD}/src/`), // 4: interrupted here
      user("second"), // 5
      user("third"), // 6
      answer("Done at last."), // 7
    ]),
  });
  const { code, terminal } = await run(ws, [
    "--replay",
    "multi.jsonl",
    "--replay-check",
    "--session",
    "out.jsonl",
    "replaced",
  ]);
  assert.equal(code, 0, terminal.stderr);
  assert.equal(terminal.stdout, "Done at last.\n");
  assert.match(
    terminal.stderr,
    /warning: The recorded run ended after line 4 without a final reply.*user message on line 5/,
  );
  // The interrupted exchange's last results say how the recording was cut, not how tools behave.
  assert.match(
    terminal.stderr,
    /replay check passed: 0 tool result\(s\) match the recording; 1 result\(s\) were not compared/,
  );
  const messages = (await sessionLines(ws, "out.jsonl")).slice(1).map((l) => l.message);
  assert.deepEqual(
    messages.map((m) => m.role === "user" ? `user:${m.content}` : m.role),
    ["user:replaced", "assistant", "toolResult", "user:second", "user:third", "assistant"],
  );
});

Deno.test("runCli() --replay into an existing empty --session file writes the replayed session there", async () => {
  await using ws = await createTempWorkspace({
    "tour.jsonl": recordingText(TOUR),
    "new.jsonl": "",
  });
  const { code, terminal } = await replayTour(ws, ["--session", "new.jsonl"]);
  assert.equal(code, 0, terminal.stderr);
  const lines = await sessionLines(ws, "new.jsonl");
  assert.equal(lines[0].type, "session");
  assert.equal(lines[0].replayOf, ws.path("tour.jsonl"));
  assert.equal(lines[0].model, "recorded-model");
  assert.deepEqual(lines.slice(1).map((l) => l.message.role), [
    "user",
    "assistant",
    "toolResult",
    "assistant",
  ]);
});

Deno.test("runCli() --replay prints every exchange's answer in order, not only the last", async () => {
  await using ws = await createTempWorkspace({
    "two.jsonl": recordingText([
      ...TOUR,
      user("And now?"), // 6
      answer("Nothing else."), // 7
    ]),
  });
  const { code, terminal } = await run(ws, ["--replay", "two.jsonl", "--no-session"]);
  assert.equal(code, 0, terminal.stderr);
  assert.equal(terminal.stdout, "A README and a src directory.\n\nNothing else.\n");
  assert.match(terminal.stderr, /› What is in this project\?\n[^]*› And now\?\n/);
});

Deno.test("runCli() --replay-check of a recording that runs out still gives its verdict, but exits 1", async () => {
  await using ws = await createTempWorkspace({
    "cut.jsonl": recordingText(TOUR.slice(0, 3)),
  });
  const { code, terminal } = await run(ws, [
    "--replay",
    "cut.jsonl",
    "--replay-check",
    "--no-session",
  ]);
  assert.equal(code, 1);
  assert.match(terminal.stderr, /has no model reply left/);
  assert.match(
    terminal.stderr,
    /replay check passed: 0 tool result\(s\) match.*1 result\(s\) were not compared/,
  );
});

Deno.test("runCli() --replay warns that model flags have no effect, in the right number", async () => {
  await using ws = await createTempWorkspace({ "tour.jsonl": recordingText(TOUR) });
  const one = await replayTour(ws, ["--no-session", "-m", "gpt-x"]);
  assert.equal(one.code, 0, one.terminal.stderr);
  assert.match(one.terminal.stderr, /warning: '--model' has no effect in a replay/);
  const two = await replayTour(ws, [
    "--no-session",
    "-m",
    "gpt-x",
    "--base-url",
    "http://127.0.0.1:9/v1",
  ]);
  assert.match(two.terminal.stderr, /warning: '--model', '--base-url' have no effect in a replay/);
});

const refusedAtLimit = (id: string): Message => ({
  role: "toolResult",
  results: [{
    toolCallId: id,
    toolName: "ls",
    content: "(not executed: reached max turns)",
    isError: true,
    details: { notExecuted: "max_turns" },
  }],
});

Deno.test("runCli() --replay of an older recording refused at its turn limit never runs the refused call", async () => {
  await using ws = await createTempWorkspace({
    "limit.jsonl": recordingText([
      user("list"), // 2
      callLs("call_1"), // 3
      refusedAtLimit("call_1"), // 4
    ]),
    "limit_then_more.jsonl": recordingText([
      user("list"), // 2
      callLs("call_1"), // 3
      refusedAtLimit("call_1"), // 4
      user("go on"), // 5
      answer("Fine."), // 6
    ]),
  });
  const alone = await run(ws, ["--replay", "limit.jsonl", "--replay-check", "--no-session"]);
  assert.equal(alone.code, 3, alone.terminal.stderr);
  assert.deepEqual(alone.calls.toolArgs, [], "the refused call was not run");
  assert.match(alone.terminal.stderr, /stopped after 0 turn\(s\): the turn limit was reached/);
  assert.match(alone.terminal.stderr, /replay check passed: 0 tool result\(s\) match/);
  assert.doesNotMatch(alone.terminal.stderr, /not played|without a final reply/);

  const more = await run(ws, ["--replay", "limit_then_more.jsonl", "--no-session"]);
  assert.equal(more.code, 0, more.terminal.stderr);
  assert.deepEqual(more.calls.toolArgs, []);
  assert.equal(more.terminal.stdout, "Fine.\n");

  // A limit the user gives wins: the refused reply is still never played, and the replay runs out.
  const given = await run(ws, ["--replay", "limit.jsonl", "--max-turns", "5", "--no-session"]);
  assert.equal(given.code, 1, given.terminal.stderr);
  assert.deepEqual(given.calls.toolArgs, []);
});

Deno.test("runCli() --replay of a run that stopped at its turn limit plays the report and exits 3, as recorded", async () => {
  const report = answer("Listed the files; nothing else is done.");
  const recorded = [
    user("list"), // 2
    callLs("call_1"), // 3
    lsResult("call_1", `${RECORDED_CWD}/README.md\n${RECORDED_CWD}/src/`), // 4
    finalAnswerPrompt("max_turns"), // 5
    report, // 6
  ];
  await using ws = await createTempWorkspace({
    "limit.jsonl": recordingText(recorded),
    "limit_then_more.jsonl": recordingText([...recorded, user("go on"), answer("Fine.")]),
  });
  const alone = await run(ws, [
    "--replay",
    "limit.jsonl",
    "--replay-check",
    "--session",
    "s.jsonl",
  ]);
  assert.equal(alone.code, 3, alone.terminal.stderr);
  assert.deepEqual(alone.calls.toolArgs, [{ path: "." }], "the turn's call ran once");
  assert.equal(alone.terminal.stdout, "Listed the files; nothing else is done.\n");
  assert.match(
    alone.terminal.stderr,
    /stopped after 1 turn\(s\): the turn limit was reached .*the answer above is the model's report/,
  );
  assert.match(alone.terminal.stderr, /replay check passed: 1 tool result\(s\) match/);
  assert.doesNotMatch(alone.terminal.stderr, /not played|without a final reply/);
  // The replay's session holds the same conversation as the recording.
  const lines = await sessionLines(ws, "s.jsonl");
  assert.deepEqual(
    lines.slice(1).map((l) => [l.message.role, l.message.content ?? l.message.blocks]),
    recorded.map((
      m,
    ) => [m.role, "content" in m ? m.content : "blocks" in m ? m.blocks : undefined]),
  );

  const more = await run(ws, ["--replay", "limit_then_more.jsonl", "--no-session"]);
  assert.equal(more.code, 0, more.terminal.stderr);
  assert.deepEqual(more.calls.toolArgs, [{ path: "." }]);
  assert.equal(more.terminal.stdout, "Listed the files; nothing else is done.\n\nFine.\n");
  assert.doesNotMatch(more.terminal.stderr, /not played|without a final reply/);
});

Deno.test("runCli() --replay maps an absolute path in the recording's workspace to this workspace", async () => {
  await using ws = await createTempWorkspace({
    "abs.jsonl": recordingText([
      user("list src"),
      {
        role: "assistant",
        blocks: [{
          type: "toolCall",
          id: "c1",
          name: "ls",
          arguments: { path: `${RECORDED_CWD}/src` },
        }],
        stopReason: "toolUse",
        usage,
      },
      lsResult("c1", `${RECORDED_CWD}/src/`),
      answer("One directory."),
    ]),
  });
  const { code, terminal, calls } = await run(ws, [
    "--replay",
    "abs.jsonl",
    "--replay-check",
    "--no-session",
  ], {
    listing: (args) => `${args.path}/`,
  });
  assert.equal(code, 0, terminal.stderr);
  assert.deepEqual(calls.toolArgs, [{ path: `${ws.dir}/src` }]);
  assert.match(terminal.stderr, /replay check passed: 1 tool result/);
});

Deno.test("runCli() --replay interrupted by SIGINT exits 130 with no check verdict and runs no later exchange", async () => {
  await using ws = await createTempWorkspace({
    "two.jsonl": recordingText([...TOUR, user("And now?"), answer("Nothing else.")]),
  });
  const terminal = createFakeTerminal();
  const { code, calls } = await run(
    ws,
    ["--replay", "two.jsonl", "--replay-check", "--no-session"],
    {
      terminal,
      // The signal arrives while the first exchange's tool runs.
      listing: () => {
        terminal.raise("SIGINT");
        return "README.md";
      },
    },
  );
  assert.equal(code, 130);
  assert.doesNotMatch(terminal.stderr, /replay check (passed|failed)/);
  assert.doesNotMatch(terminal.stdout, /Nothing else/);
  assert.equal(calls.closed, 1);
});

Deno.test("runCli() --replay does not read AGENTS.md files (no model reads the system prompt)", async () => {
  await using ws = await createTempWorkspace({ "tour.jsonl": recordingText(TOUR) });
  // A context file that cannot be read would be reported as skipped if it were loaded.
  await Deno.mkdir(ws.path("AGENTS.md"));
  const { code, terminal } = await replayTour(ws, ["--no-session"]);
  assert.equal(code, 0, terminal.stderr);
  assert.doesNotMatch(terminal.stderr, /context file/i);
});
