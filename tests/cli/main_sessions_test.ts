/** runCli() with sessions: `moat sessions`, `--resume`, the resume banner, the usage line and cost. */
import assert from "node:assert/strict";
import { basename } from "node:path";
import { runCli } from "../../src/cli/main.ts";
import type { AssistantMessage, ModelClient, ModelRequest } from "../../src/model/types.ts";
import { createDenoCliFs } from "../../src/sys/session_fs.ts";
import { sessionFiles } from "../e2e/_cli.ts";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.ts";
import { createFakeCliDeps, createFakeTerminal, type FakeTerminal } from "./_fakes.ts";

const USAGE = { inputTokens: 1200, outputTokens: 56, cachedTokens: 1000, totalTokens: 1256 };
const PRICES = { inputPerMTok: 2, outputPerMTok: 8, cachedInputPerMTok: 0.5 };

/** A model answering with `answers` in turn (the last one again when they run out). */
function scriptedModel(...answers: string[]): ModelClient & { requests: ModelRequest[] } {
  const requests: ModelRequest[] = [];
  return {
    requests,
    stream(request, options) {
      // A copy: the history array goes on changing (and /clear empties it).
      requests.push({ ...request, messages: [...request.messages] });
      const text = answers[Math.min(requests.length - 1, answers.length - 1)] ?? "";
      // Interactive mode shows the answer as it streams.
      options.onEvent?.({ type: "text_delta", delta: text });
      const reply: AssistantMessage = {
        role: "assistant",
        blocks: [{ type: "text", text }],
        stopReason: "stop",
        usage: USAGE,
      };
      return Promise.resolve(reply);
    },
  };
}

function envOf(home: TempWorkspace): Record<string, string> {
  return {
    HOME: home.dir,
    XDG_STATE_HOME: home.path("state"),
    XDG_CONFIG_HOME: home.path("config"),
    OPENAI_API_KEY: "k",
    NO_COLOR: "1",
  };
}

/** Resolves once the terminal's stdout after `from` matches `pattern`. */
async function shown(terminal: FakeTerminal, pattern: RegExp, from = 0): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!pattern.test(terminal.stdout.slice(from))) {
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${pattern}; stdout:\n${terminal.stdout}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

async function run(
  argv: string[],
  options: { ws: TempWorkspace; home: TempWorkspace; model: ModelClient; terminal?: FakeTerminal },
): Promise<{ code: number; terminal: FakeTerminal; models: number }> {
  const terminal = options.terminal ?? createFakeTerminal();
  const { deps, calls } = createFakeCliDeps({ model: options.model });
  const code = await runCli(argv, {
    env: envOf(options.home),
    cwd: options.ws.dir,
    terminal,
    deps,
    fs: createDenoCliFs(),
  });
  return { code, terminal, models: calls.models + calls.sandboxes.length };
}

/** A terminal where a person types `lines` and then Ctrl-D. */
function typing(...lines: string[]): FakeTerminal {
  const terminal = createFakeTerminal({ tty: { stdin: true, stdout: true, stderr: true } });
  for (const line of lines) terminal.typeLine(line);
  terminal.endInput();
  return terminal;
}

Deno.test("runCli() sessions lists this workspace's sessions without a model or a sandbox", async () => {
  await using ws = await createTempWorkspace();
  await using home = await createTempWorkspace();
  const model = scriptedModel("Noted.");
  assert.equal((await run(["remember\nthe number 7"], { ws, home, model })).code, 0);
  const [file] = await sessionFiles(home.path("state"));
  const listed = await run(["sessions"], { ws, home, model });
  assert.equal(listed.code, 0, listed.terminal.stderr);
  assert.equal(listed.models, 0);
  assert.equal(listed.terminal.stderr, "");
  assert.match(listed.terminal.stdout, new RegExp(`^Sessions of ${ws.dir}, newest first`));
  const id = basename(file as string, ".jsonl");
  assert.match(listed.terminal.stdout, new RegExp(`\\n1\\. .* · 2 messages · .* · ${id}\\n`));
  assert.match(listed.terminal.stdout, /\n {3}remember the number 7\n/);
});

Deno.test("runCli() --resume ID in print mode continues that session; a bare --resume there is exit 2", async () => {
  await using ws = await createTempWorkspace();
  await using home = await createTempWorkspace();
  const model = scriptedModel("Noted: 7.", "Noted: 9.", "It was 7.");
  await run(["remember 7"], { ws, home, model });
  const [first] = await sessionFiles(home.path("state"));
  await run(["remember 9"], { ws, home, model });
  const id = basename(first as string, ".jsonl");
  const resumed = await run(["--resume", id, "which number?"], { ws, home, model });
  assert.equal(resumed.code, 0, resumed.terminal.stderr);
  assert.equal(resumed.terminal.stdout, "It was 7.\n");
  const sent = model.requests[2]?.messages.filter((m) => m.role === "user");
  assert.deepEqual(sent?.map((m) => m.role === "user" && m.content), [
    "remember 7",
    "which number?",
  ]);
  // Appended to the chosen file, not a new one.
  assert.equal((await sessionFiles(home.path("state"))).length, 2);
  assert.match(await Deno.readTextFile(first as string), /which number\?/);

  const bare = await run(["--resume"], { ws, home, model });
  assert.equal(bare.code, 2);
  assert.match(
    bare.terminal.stderr,
    /^moat: Option '--resume' needs a session id or path in print mode: run 'moat sessions' to list them\nRun 'moat --help' for usage\.\n$/,
  );
  const missing = await run(["--resume", "nope", "hi"], { ws, home, model });
  assert.equal(missing.code, 2);
  assert.match(missing.terminal.stderr, /No session "nope"/);
});

Deno.test("runCli() interactive: a resumed session shows its last exchange, and each answer a usage line with cost", async () => {
  await using ws = await createTempWorkspace();
  await using home = await createTempWorkspace({
    "config/moat/config.json": JSON.stringify({ prices: PRICES }),
  });
  const model = scriptedModel("Noted: 7.", "It was 7.");
  await run(["remember the number 7"], { ws, home, model });

  const terminal = typing("which number?");
  const resumed = await run(["-c"], { ws, home, model, terminal });
  assert.equal(resumed.code, 0, terminal.stderr);
  assert.match(
    terminal.stdout,
    /Continuing session \S+ \(2 message\(s\)\)\. Last exchange:\n {2}you: {2}remember the number 7\n {2}moat: Noted: 7\.\n/,
  );
  // 200 uncached × 2 + 1,000 cached × 0.5 + 56 × 8, per million.
  assert.match(terminal.stderr, /tokens: 1,200 in \(1,000 cached\) · 56 out · cost 0\.001348\n/);

  const quiet = typing("again?");
  assert.equal((await run(["-c", "--quiet"], { ws, home, model, terminal: quiet })).code, 0);
  assert.match(quiet.stdout, /It was 7\./);
  assert.doesNotMatch(quiet.stderr, /tokens:/);
});

Deno.test("runCli() interactive --resume picks a session by number, and /clear then starts a new one without asking", async () => {
  await using ws = await createTempWorkspace();
  await using home = await createTempWorkspace();
  const model = scriptedModel("First.", "Second.", "Back to the first.", "Fresh.");
  await run(["first question"], { ws, home, model });
  await run(["second question"], { ws, home, model });

  const terminal = createFakeTerminal({ tty: { stdin: true, stdout: true, stderr: true } });
  const picking = run(["--resume"], { ws, home, model, terminal });
  await shown(terminal, /Resume which session\? .*: $/);
  // Each line typed once the previous one was answered (lines typed together are one paste).
  for (
    const [line, answered] of [
      ["2", /› $/],
      ["and now?", /Back to the first\.\n› $/],
      ["/clear", /Started a new session.*\n› $/],
      ["new topic", /Fresh\.\n› $/],
    ] as const
  ) {
    const mark = terminal.stdout.length;
    terminal.typeLine(line);
    await shown(terminal, answered, mark);
  }
  terminal.endInput();
  const picked = await picking;
  assert.equal(picked.code, 0, terminal.stderr);
  assert.match(terminal.stdout, /\n1\. .*\n {3}second question\n2\. .*\n {3}first question\n/);
  assert.match(terminal.stdout, /Resume which session\?/);
  assert.match(terminal.stdout, /Last exchange:\n {2}you: {2}first question\n {2}moat: First\.\n/);
  const users = (i: number) =>
    model.requests[i]?.messages.filter((m) => m.role === "user").map((m) =>
      m.role === "user" && m.content
    );
  assert.deepEqual(users(2), ["first question", "and now?"]);
  // After /clear: a new conversation, and the picker was not shown again.
  assert.deepEqual(users(3), ["new topic"]);
  assert.equal(terminal.stdout.match(/Resume which session\?/g)?.length, 1);
  assert.equal((await sessionFiles(home.path("state"))).length, 3);
});

Deno.test("runCli() --output json and jsonl carry the run's cost when prices are configured", async () => {
  await using ws = await createTempWorkspace();
  await using home = await createTempWorkspace();
  const model = scriptedModel("ok");
  const plain = await run(["--no-session", "-o", "json", "hi"], { ws, home, model });
  assert.equal(JSON.parse(plain.terminal.stdout).cost, undefined);

  await home.write({ "config/moat/config.json": JSON.stringify({ prices: PRICES }) });
  const json = await run(["--no-session", "-o", "json", "hi"], { ws, home, model });
  assert.equal(json.code, 0, json.terminal.stderr);
  const result = JSON.parse(json.terminal.stdout);
  assert.deepEqual(result.usage, USAGE);
  assert.equal(result.cost, 0.001348);
  const jsonl = await run(["--no-session", "-o", "jsonl", "hi"], { ws, home, model });
  const end = JSON.parse(jsonl.terminal.stdout.trimEnd().split("\n").at(-1) as string);
  assert.equal(end.type, "run_end");
  assert.equal(end.cost, 0.001348);
});
