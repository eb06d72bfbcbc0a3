import assert from "node:assert/strict";
import { type CliEnvironment, runCli } from "../../src/cli/main.ts";
import { MAX_STDIN_BYTES } from "../../src/cli/modes/print.ts";
import { type CliDeps, noEndpointMessage } from "../../src/cli/setup.ts";
import type { AssistantMessage, ModelClient, ModelRequest } from "../../src/model/types.ts";
import { emptyUsage, ModelError } from "../../src/model/types.ts";
import type { OpenAiClientOptions } from "../../src/model/openai/mod.ts";
import { SUMMARY_INSTRUCTIONS } from "../../src/agent/compaction/summary.ts";
import { createDenoCliFs } from "../../src/sys/session_fs.ts";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.ts";
import { createFakeCliDeps, createFakeTerminal, type FakeTerminal } from "./_fakes.ts";

function textReply(text: string): AssistantMessage {
  return {
    role: "assistant",
    blocks: [{ type: "text", text }],
    stopReason: "stop",
    usage: emptyUsage(),
  };
}

function fakeDeps(model: ModelClient, over: Partial<CliDeps> = {}) {
  return createFakeCliDeps({ model, over });
}

/** `runCli` in `ws` with HOME there and a key set; `over` replaces options (an env whole). */
function runIn(
  ws: TempWorkspace,
  argv: string[],
  terminal: FakeTerminal,
  deps: CliDeps,
  over: Partial<CliEnvironment> = {},
) {
  return runCli(argv, {
    env: { HOME: ws.dir, OPENAI_API_KEY: "k" },
    cwd: ws.dir,
    terminal,
    deps,
    ...over,
  });
}

/** Options for a run that keeps its sessions under `ws`/state on the real file system. */
function persisted(ws: TempWorkspace): Partial<CliEnvironment> {
  return {
    env: { HOME: ws.dir, XDG_STATE_HOME: ws.path("state"), OPENAI_API_KEY: "k" },
    fs: createDenoCliFs(),
  };
}

Deno.test("runCli() rejects a bad flag with exit 2 before creating a model or a sandbox", async () => {
  await using ws = await createTempWorkspace();
  const terminal = createFakeTerminal();
  const { deps, calls } = fakeDeps({ stream: () => Promise.resolve(textReply("x")) });
  const code = await runIn(ws, ["--max-turns", "many", "hi"], terminal, deps);
  assert.equal(code, 2);
  assert.match(terminal.stderr, /--max-turns/);
  assert.equal(calls.models + calls.sandboxes.length, 0);
});

Deno.test("runCli() without key or base URL prints the endpoint paragraph and exits 2", async () => {
  await using ws = await createTempWorkspace();
  const terminal = createFakeTerminal();
  const { deps } = fakeDeps({ stream: () => Promise.resolve(textReply("x")) });
  const code = await runIn(ws, ["hi"], terminal, deps, { env: { HOME: ws.dir } });
  assert.equal(code, 2);
  assert.equal(terminal.stderr, noEndpointMessage("OPENAI_API_KEY"));
});

Deno.test("runCli() accepts a base URL without a key (local servers) and answers in print mode", async () => {
  await using ws = await createTempWorkspace();
  const terminal = createFakeTerminal();
  const { deps, calls } = fakeDeps({ stream: () => Promise.resolve(textReply("Local answer.")) });
  const code = await runIn(ws, ["--no-session", "hi"], terminal, deps, {
    env: { HOME: ws.dir, OPENAI_BASE_URL: "http://127.0.0.1:9/v1" },
  });
  assert.equal(code, 0, terminal.stderr);
  assert.equal(terminal.stdout, "Local answer.\n");
  assert.equal(calls.closed, 1);
  // Print mode never asks: no prompter goes to the sandbox.
  assert.equal(calls.sandboxes[0]?.prompter, undefined);
  assert.equal(calls.sandboxes[0]?.noPrompt, true);
  assert.ok(calls.sandboxes[0]?.secretEnvNames.includes("OPENAI_API_KEY"));
});

Deno.test("runCli() exits 2 with the cause when the sandbox cannot be opened", async () => {
  await using ws = await createTempWorkspace();
  const terminal = createFakeTerminal();
  const { deps } = fakeDeps({ stream: () => Promise.resolve(textReply("x")) }, {
    openSandbox: () =>
      Promise.resolve({
        ok: false,
        error: "--sandbox=require, but the OS sandbox cannot be used: bwrap not found",
      }),
  });
  const code = await runIn(ws, ["--sandbox=require", "--no-session", "hi"], terminal, deps);
  assert.equal(code, 2);
  assert.match(terminal.stderr, /bwrap not found/);
});

Deno.test("runCli() turns SIGINT during a run into exit 130 after closing the sandbox", async () => {
  await using ws = await createTempWorkspace();
  const terminal = createFakeTerminal();
  let started: () => void = () => {};
  const streaming = new Promise<void>((resolve) => started = resolve);
  const model: ModelClient = {
    stream: (_request, options) =>
      new Promise((resolve) => {
        started();
        options.signal?.addEventListener("abort", () => resolve(null), { once: true });
      }),
  };
  const { deps, calls } = fakeDeps(model);
  const run = runIn(ws, ["hi"], terminal, deps, persisted(ws));
  await streaming;
  terminal.raise("SIGINT");
  assert.equal(await run, 130);
  assert.equal(calls.closed, 1);
  assert.match(terminal.stderr, /interrupted/);
  // The prompt was saved before the interrupt.
  const dirs = [];
  for await (const d of Deno.readDir(ws.path("state/moat/sessions"))) dirs.push(d.name);
  assert.equal(dirs.length, 1);
});

Deno.test("runCli() passes the config's compatibility switches to the model client", async () => {
  await using ws = await createTempWorkspace({
    ".moat/config.json": JSON.stringify({
      compat: {
        streamOptions: false,
        maxTokensField: "max_tokens",
        vision: false,
        echoReasoningContent: true,
      },
    }),
  });
  const terminal = createFakeTerminal();
  const seen: OpenAiClientOptions[] = [];
  const { deps } = fakeDeps({ stream: () => Promise.resolve(textReply("ok")) }, {
    createModel: (options) => {
      seen.push(options);
      return { stream: () => Promise.resolve(textReply("ok")) };
    },
  });
  const code = await runIn(ws, ["--no-session", "hi"], terminal, deps, {
    env: { HOME: ws.dir, OPENAI_BASE_URL: "http://127.0.0.1:9/v1" },
  });
  assert.equal(code, 0, terminal.stderr);
  assert.deepEqual(seen[0]?.compat, { streamOptions: false, maxTokensField: "max_tokens" });
  assert.equal(seen[0]?.vision, false);
  assert.equal(seen[0]?.echoReasoningContent, true);
  assert.equal(seen[0]?.provider, undefined, "no provider named: the client detects it");
});

Deno.test("runCli() exits 143 at once on SIGTERM while waiting for piped stdin, running nothing", async () => {
  await using ws = await createTempWorkspace();
  const terminal = createFakeTerminal({ stdin: "never" });
  const { deps, calls } = fakeDeps({ stream: () => Promise.resolve(textReply("x")) });
  const run = runIn(ws, [], terminal, deps, {
    env: { HOME: ws.dir, XDG_STATE_HOME: ws.path("state"), OPENAI_API_KEY: "k" },
  });
  // Let runCli reach the stdin read.
  await new Promise((resolve) => setTimeout(resolve, 50));
  terminal.raise("SIGTERM");
  assert.equal(await run, 143);
  assert.match(terminal.stderr, /terminated before the run started/);
  assert.equal(calls.models + calls.sandboxes.length, 0);
  assert.equal(terminal.stdout, "");
});

Deno.test("runCli() warns when piped stdin sent nothing in time and runs the prompt alone", async () => {
  await using ws = await createTempWorkspace();
  const terminal = createFakeTerminal({ stdin: null });
  const prompts: string[] = [];
  const { deps } = fakeDeps({
    stream: (request) => {
      prompts.push(JSON.stringify(request.messages));
      return Promise.resolve(textReply("Done."));
    },
  });
  const code = await runIn(ws, ["--no-session", "summarise"], terminal, deps);
  assert.equal(code, 0, terminal.stderr);
  assert.equal(terminal.stdout, "Done.\n");
  assert.match(terminal.stderr, /warning: Nothing arrived on stdin within 2 s.*< \/dev\/null/);
  assert.doesNotMatch(prompts[0] ?? "", /<stdin>/);
});

Deno.test("runCli() --output jsonl starts with run_start even when the session had warnings", async () => {
  await using ws = await createTempWorkspace({
    "s.jsonl": JSON.stringify({ type: "session", version: 1, cwd: "/x", model: "m", grants: {} }) +
      '\n{"type":"message","time":"t","message":{"role":"user","con',
  });
  const terminal = createFakeTerminal();
  const { deps } = fakeDeps({ stream: () => Promise.resolve(textReply("ok")) });
  const code = await runIn(ws, ["-o", "jsonl", "--session", "s.jsonl", "hi"], terminal, deps, {
    fs: createDenoCliFs(),
  });
  assert.equal(code, 0, terminal.stderr);
  const events = terminal.stdout.trimEnd().split("\n").map((l) => JSON.parse(l));
  assert.equal(events[0].type, "run_start");
  assert.equal(events.at(-1).type, "run_end");
  const warning = events.find((e) => e.type === "warning");
  assert.match(warning?.message, /torn last line/);
  // Human-readable warnings also go to stderr (docs/events.md).
  assert.match(terminal.stderr, /moat: warning: .*torn last line/);
});

Deno.test("runCli() --session naming a directory exits 2 with a clear message", async () => {
  await using ws = await createTempWorkspace({ "sessions/keep": "" });
  const terminal = createFakeTerminal();
  const { deps, calls } = fakeDeps({ stream: () => Promise.resolve(textReply("x")) });
  const code = await runIn(ws, ["--session", "sessions", "hi"], terminal, deps, {
    fs: createDenoCliFs(),
  });
  assert.equal(code, 2);
  assert.match(terminal.stderr, /session path ".*sessions" is a directory: pass a file path/);
  assert.doesNotMatch(terminal.stderr, /internal error/);
  assert.equal(calls.models, 0);
});

Deno.test("runCli() reports a bug in a run as an internal error with a final JSON object, exit 1", async () => {
  await using ws = await createTempWorkspace();
  const terminal = createFakeTerminal();
  const { deps, calls } = fakeDeps({
    stream: () => Promise.reject(new TypeError("cannot read properties of undefined")),
  });
  const code = await runIn(ws, ["--no-session", "-o", "json", "hi"], terminal, deps);
  assert.equal(code, 1);
  const result = JSON.parse(terminal.stdout);
  assert.equal(result.exitCode, 1);
  assert.equal(result.stopReason, "error");
  assert.equal(result.error.kind, "internal");
  assert.match(result.error.message, /cannot read properties.*bug in moat/);
  assert.equal(calls.closed, 1, "the sandbox was closed");
});

Deno.test("runCli() warns when the model's final answer is empty", async () => {
  await using ws = await createTempWorkspace();
  const terminal = createFakeTerminal();
  const { deps } = fakeDeps({ stream: () => Promise.resolve(textReply("")) });
  const code = await runIn(ws, ["--no-session", "hi"], terminal, deps);
  assert.equal(code, 0);
  assert.equal(terminal.stdout, "");
  assert.match(terminal.stderr, /warning: The model finished without an answer/);
});

Deno.test("runCli() /model in interactive mode keeps the config's compatibility switches", async () => {
  await using ws = await createTempWorkspace({
    ".moat/config.json": JSON.stringify({ compat: { streamOptions: false, vision: false } }),
  });
  const terminal = createFakeTerminal({ tty: { stdin: true, stdout: true, stderr: true } });
  const seen: OpenAiClientOptions[] = [];
  const { deps } = fakeDeps({ stream: () => Promise.resolve(textReply("ok")) }, {
    createModel: (options) => {
      seen.push(options);
      return { stream: () => Promise.resolve(textReply("ok")) };
    },
  });
  terminal.typeLine("/model other-model");
  terminal.endInput();
  const code = await runIn(ws, ["--no-session"], terminal, deps, {
    env: { HOME: ws.dir, OPENAI_BASE_URL: "http://127.0.0.1:9/v1" },
  });
  assert.equal(code, 0, terminal.stderr);
  assert.equal(seen.length, 2);
  assert.equal(seen[1]?.model, "other-model");
  assert.equal(seen[1]?.compat?.streamOptions, false);
  assert.equal(seen[1]?.vision, false);
  // No key is set: the hint says so and names the variable.
  assert.match(seen[1]?.apiKeyHint ?? "", /OPENAI_API_KEY.*not set/);
});

Deno.test("runCli() --continue without an earlier session starts a new one and says so", async () => {
  await using ws = await createTempWorkspace();
  const terminal = createFakeTerminal();
  const { deps } = fakeDeps({ stream: () => Promise.resolve(textReply("Fresh.")) });
  const code = await runIn(ws, ["-c", "hi"], terminal, deps, persisted(ws));
  assert.equal(code, 0, terminal.stderr);
  assert.equal(terminal.stdout, "Fresh.\n");
  assert.match(
    terminal.stderr,
    /warning: No earlier session for this workspace; starting a new one/,
  );
  const dirs = [];
  for await (const d of Deno.readDir(ws.path("state/moat/sessions"))) dirs.push(d.name);
  assert.equal(dirs.length, 1);
});

Deno.test("runCli() cuts a piped prompt over MAX_STDIN_BYTES, says so to the model and warns", async () => {
  await using ws = await createTempWorkspace();
  const terminal = createFakeTerminal({ stdin: "é".repeat(MAX_STDIN_BYTES) });
  const prompts: string[] = [];
  const { deps } = fakeDeps({
    stream: (request) => {
      const user = request.messages.find((m) => m.role === "user");
      prompts.push(typeof user?.content === "string" ? user.content : "");
      return Promise.resolve(textReply("Done."));
    },
  });
  const code = await runIn(ws, ["--no-session"], terminal, deps);
  assert.equal(code, 0, terminal.stderr);
  assert.match(terminal.stderr, /warning: stdin is larger than 4 MiB/);
  const prompt = prompts[0] ?? "";
  // Two bytes per "é": half of them fit, and no character is split.
  assert.equal(
    prompt,
    `${"é".repeat(MAX_STDIN_BYTES / 2)}\n\n[stdin was cut: only its first 4 MiB are included]`,
  );
});

Deno.test("runCli() says when the final answer was cut by the output limit (text and json)", async () => {
  await using ws = await createTempWorkspace();
  const cut: AssistantMessage = { ...textReply("The answer is"), stopReason: "maxTokens" };
  const text = createFakeTerminal();
  const { deps } = fakeDeps({ stream: () => Promise.resolve(cut) });
  assert.equal(await runIn(ws, ["hi"], text, deps), 0);
  assert.equal(text.stdout, "The answer is\n");
  assert.match(text.stderr, /the answer was truncated: .*output-token limit.*moat -c "continue"/);
  const json = createFakeTerminal();
  const code = await runIn(ws, ["--no-session", "--output", "json", "hi"], json, deps);
  assert.equal(code, 0);
  assert.equal(JSON.parse(json.stdout).truncated, true);
});

Deno.test("runCli() tells what to do when the conversation overflows the model's context", async () => {
  await using ws = await createTempWorkspace();
  const terminal = createFakeTerminal();
  const { deps } = fakeDeps({
    stream: () =>
      Promise.reject(
        new ModelError("context_overflow", "The conversation is too long for the model", {
          status: 400,
        }),
      ),
  });
  const code = await runIn(ws, ["--no-session", "hi"], terminal, deps);
  assert.equal(code, 6, "context exhausted: nothing can be compacted away");
  assert.match(terminal.stderr, /too long for the model\. The conversation does not fit/);
  assert.match(terminal.stderr, /Shorten the last message, start a fresh conversation/);

  const off = createFakeTerminal();
  const noCompaction = await runIn(ws, ["--no-session", "--no-compaction", "hi"], off, deps);
  assert.equal(noCompaction, 6);
  assert.match(
    off.stderr,
    /too long for the model\. Compaction is off \(--no-compaction or compaction: false\)\. To go on, start a fresh conversation/,
  );
});

Deno.test("runCli() /clear starts a session file at once, so -c resumes the cleared conversation", async () => {
  await using ws = await createTempWorkspace();
  const requests: number[] = [];
  const model = {
    stream: (request: { messages: readonly unknown[] }) => {
      requests.push(request.messages.length);
      return Promise.resolve(textReply("ok"));
    },
  };
  const first = createFakeTerminal({ tty: { stdin: true, stdout: true, stderr: true } });
  first.typeLine("remember this");
  const running = runIn(ws, [], first, fakeDeps(model).deps, persisted(ws));
  // Let the first question be answered before clearing, then leave at once.
  while (requests.length === 0) await new Promise((r) => setTimeout(r, 5));
  first.typeLine("/clear");
  first.endInput();
  assert.equal(await running, 0, first.stderr);

  const second = createFakeTerminal();
  const code = await runIn(
    ws,
    ["-c", "fresh question"],
    second,
    fakeDeps(model).deps,
    persisted(ws),
  );
  assert.equal(code, 0, second.stderr);
  // The resumed conversation is the empty one /clear began: only the new question is sent.
  assert.equal(requests.at(-1), 1);
});

Deno.test("runCli() print mode stops after 100 model turns by default, exit 3", async () => {
  await using ws = await createTempWorkspace();
  const terminal = createFakeTerminal();
  let requests = 0;
  const { deps } = fakeDeps({
    stream: () => {
      requests++;
      return Promise.resolve({
        role: "assistant",
        blocks: [{ type: "toolCall", id: `c${requests}`, name: "ls", arguments: {} }],
        stopReason: "toolUse",
        usage: emptyUsage(),
      });
    },
  });
  const code = await runIn(ws, ["--no-session", "-o", "json", "loop"], terminal, deps);
  assert.equal(code, 3, terminal.stderr);
  // 100 turns, then the request for a final answer without tools.
  assert.equal(requests, 101);
  const result = JSON.parse(terminal.stdout);
  assert.equal(result.stopReason, "maxIterations");
  assert.equal(result.limit, "max_turns");
  // This model only ever calls tools: moat summarises the work itself.
  assert.equal(result.finalAnswer, false);
  assert.match(
    result.text,
    /^moat stopped the run at its turn limit \(--max-turns\) after 100 turn\(s\) and 100 tool/,
  );
  assert.equal(result.turns, 100);
  assert.equal(result.requests, 101);
  assert.equal(result.exitCode, 3);
});

const LONG_OK = "ok, noted. ".repeat(100);

Deno.test("runCli() /compact summarises the conversation, records it, and -c continues from it", async () => {
  await using ws = await createTempWorkspace();
  const requests: Array<{ tools: number; users: string[]; system: string }> = [];
  const model = {
    stream: (request: ModelRequest) => {
      requests.push({
        tools: request.tools.length,
        users: request.messages.flatMap((m) => m.role === "user" ? [String(m.content)] : []),
        system: request.system,
      });
      // The summary request is the one with the summary's instructions.
      return Promise.resolve(
        // Answers longer than the summary: a summary never makes the history larger.
        textReply(
          request.system === SUMMARY_INSTRUCTIONS ? "## Done\nDiscussed the number 7." : LONG_OK,
        ),
      );
    },
  };
  const first = createFakeTerminal({ tty: { stdin: true, stdout: true, stderr: true } });
  first.typeLine("remember the number 7");
  const running = runIn(ws, [], first, fakeDeps(model).deps, persisted(ws));
  // Bounded waits: a broken /compact fails the test instead of hanging it.
  const until = async (n: number) => {
    for (let i = 0; i < 2000 && requests.length < n; i++) {
      await new Promise((r) => setTimeout(r, 5));
    }
    assert.ok(requests.length >= n, `request ${n} never came: ${first.stderr}`);
  };
  await until(1);
  first.typeLine("and 8");
  await until(2);
  first.typeLine("/compact the numbers");
  await until(3);
  first.endInput();
  assert.equal(await running, 0, first.stderr);
  const summary = requests[2];
  assert.equal(summary?.tools, 0);
  assert.match(summary?.users[0] ?? "", /focus on: the numbers/);
  assert.match(summary?.users[0] ?? "", /remember the number 7/);
  assert.match(
    first.stderr,
    /moat: compacted [\d,]+ → [\d,]+ tokens \(manual\): summarised the older part/,
  );

  const second = createFakeTerminal();
  const code = await runIn(
    ws,
    ["-c", "which numbers?"],
    second,
    fakeDeps(model).deps,
    persisted(ws),
  );
  assert.equal(code, 0, second.stderr);
  const resumed = requests.at(-1);
  // The user's messages stay verbatim, the summary stands for the rest.
  assert.deepEqual(resumed?.users.filter((u) => !u.includes("Discussed")), [
    "remember the number 7",
    "and 8",
    "which numbers?",
  ]);
  assert.ok(resumed?.users.some((u) => u.includes("Discussed the number 7.")));
});
