/** End-to-end: the real CLI (deno run with the start task's flags) against the fake OpenAI server. */
import assert from "node:assert/strict";
import { fault, repeat, reply, startFakeOpenAI } from "../support/fake_openai.ts";
import { createTempWorkspace } from "../support/workspace.ts";
import {
  cliEnv,
  jsonLines,
  readsStdin,
  runMoat,
  sessionFiles,
  spawnMoat,
  waitUntil,
} from "./_cli.ts";

const README = "# Demo\nThe answer is 42.\n";

Deno.test("moat answers the README scenario in print mode: stdout holds only the answer, exit 0", async () => {
  await using server = await startFakeOpenAI();
  await using ws = await createTempWorkspace({ "README.md": README });
  await using home = await createTempWorkspace();
  server.script(
    reply.toolCalls([{ id: "call_1", name: "read", arguments: { path: "README.md" } }]),
    reply.text("The README says the answer is 42."),
  );
  // A time zone far from UTC, so "today" differs from UTC's date for half of every day.
  const tz = "Pacific/Kiritimati";
  const env = cliEnv(home.dir, {
    OPENAI_BASE_URL: server.baseURL,
    OPENAI_API_KEY: "test-key",
    TZ: tz,
  });
  delete env.NO_COLOR;
  const result = await runMoat(["summarise README.md"], { cwd: ws.dir, env });
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stdout, "The README says the answer is 42.\n");
  assert.match(result.stderr, /✓ read README\.md \(\d+ ms\)/);
  assert.ok(!result.stderr.includes("\x1b"), "no colour or spinner when stderr is not a TTY");
  assert.equal(server.chatRequests.length, 2);
  const second = server.chatRequests[1]?.body;
  const toolMessage = second?.messages.find((m) => m.role === "tool");
  assert.match(String(toolMessage?.content), /The answer is 42/);
  // The system prompt states the workspace and the grants.
  const system = String(second?.messages[0]?.content);
  assert.ok(system.includes(ws.dir));
  assert.match(system, /read: /);
  const today = new Intl.DateTimeFormat("en-CA", { timeZone: tz }).format(new Date());
  assert.ok(system.includes(`today is ${today}`), `the user's local date ${today}: ${system}`);
});

Deno.test("moat without a key or base URL explains how to configure an endpoint and exits 2", async () => {
  await using ws = await createTempWorkspace();
  const result = await runMoat(["hello"], { cwd: ws.dir, env: cliEnv(ws.dir) });
  assert.equal(result.code, 2);
  assert.equal(result.stdout, "");
  assert.match(result.stderr, /OPENAI_API_KEY/);
  assert.match(result.stderr, /OPENAI_BASE_URL/);
  assert.match(result.stderr, /Ollama/);
  assert.match(result.stderr, /vLLM/);
  assert.match(result.stderr, /llama\.cpp/);
  assert.doesNotMatch(result.stderr, /\n\s+at /, "no stack trace");
  // Short lines, each one thing: no 700-character paragraph to scroll through.
  const lines = result.stderr.trimEnd().split("\n");
  assert.ok(lines.length >= 5, result.stderr);
  for (const line of lines) assert.ok(line.length <= 100, `a line over 100 columns: ${line}`);
});

Deno.test("moat --version prints the version; --help shows examples; a bad flag exits 2", async () => {
  await using ws = await createTempWorkspace();
  const env = cliEnv(ws.dir);
  const version = await runMoat(["--", "--version"], { cwd: ws.dir, env });
  assert.equal(version.code, 0);
  assert.match(version.stdout, /^moat \d+\.\d+\.\d+\n$/);
  const help = await runMoat(["--help"], { cwd: ws.dir, env });
  assert.equal(help.code, 0);
  assert.match(help.stdout, /Examples:/);
  assert.match(help.stdout, /--allow-write/);
  await using server = await startFakeOpenAI();
  const runEnv = cliEnv(ws.dir, { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: "k" });
  for (const argv of [["--frobnicate", "x"], ["x", "--max-turns"], ["--output", "yaml", "x"]]) {
    const bad = await runMoat(argv, { cwd: ws.dir, env: runEnv });
    assert.equal(bad.code, 2, argv.join(" "));
    assert.equal(bad.stdout, "");
    assert.match(bad.stderr, /moat --help/);
  }
  // Nothing ran: no model request, no session.
  assert.equal(server.requests.length, 0);
  assert.deepEqual(await sessionFiles(ws.dir), []);
});

Deno.test("moat reports an invalid project config naming file and field, exit 2", async () => {
  await using ws = await createTempWorkspace({ ".moat/config.json": '{"maxTurns": -1}' });
  const result = await runMoat(["hi"], {
    cwd: ws.dir,
    env: cliEnv(ws.dir, { OPENAI_API_KEY: "k" }),
  });
  assert.equal(result.code, 2);
  assert.match(result.stderr, /\.moat\/config\.json/);
  assert.match(result.stderr, /field "maxTurns"/);
});

Deno.test("moat --output jsonl emits parseable events for a blocked call, a failed tool and the answer", async () => {
  await using server = await startFakeOpenAI();
  await using outside = await createTempWorkspace({ "secret.txt": "top secret" });
  await using ws = await createTempWorkspace({ "README.md": README });
  await using home = await createTempWorkspace();
  server.script(
    reply.toolCalls([
      { id: "call_blocked", name: "read", arguments: { path: outside.path("secret.txt") } },
      { id: "call_failed", name: "read", arguments: { path: "missing.txt" } },
    ]),
    reply.text("Done."),
  );
  const result = await runMoat(["--output", "jsonl", "look around"], {
    cwd: ws.dir,
    env: cliEnv(home.dir, { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: "k" }),
  });
  assert.equal(result.code, 0, result.stderr);
  const events = jsonLines(result.stdout);
  for (const e of events) {
    assert.equal(e.version, 1);
    assert.equal(typeof e.type, "string");
    assert.equal(typeof e.time, "string");
  }
  const types = events.map((e) => e.type);
  assert.equal(types[0], "run_start");
  assert.equal(types.at(-1), "run_end");
  const start = events[0] as Record<string, unknown>;
  assert.equal(start.cwd, ws.dir);
  assert.equal(typeof start.model, "string");
  assert.ok(typeof start.grants === "object" && start.grants !== null);

  const ends = events.filter((e) => e.type === "tool_end");
  const blocked = ends.find((e) => e.toolCallId === "call_blocked");
  assert.deepEqual((blocked?.blocked as { source: string })?.source, "permissions");
  assert.equal(blocked?.isError, true);
  assert.equal(blocked?.name, "read");
  assert.equal(typeof blocked?.durationMs, "number");
  const failed = ends.find((e) => e.toolCallId === "call_failed");
  assert.equal(failed?.isError, true);
  assert.equal(failed?.blocked, null);
  assert.deepEqual(failed?.args, { path: "missing.txt" });
  assert.ok(events.some((e) => e.type === "tool_start" && e.toolCallId === "call_failed"));

  const denial = events.find((e) => e.type === "permission" && e.outcome === "denied");
  assert.equal(denial?.toolCallId, "call_blocked");
  assert.equal(denial?.access, "read");

  const messageEnds = events.filter((e) => e.type === "message_end");
  assert.equal(messageEnds.length, 2);
  assert.equal(messageEnds[1]?.text, "Done.");
  assert.equal(typeof (messageEnds[1]?.usage as { totalTokens: number }).totalTokens, "number");
  assert.ok(!types.includes("text_delta"), "deltas only with --include-deltas");

  const end = events.at(-1) as Record<string, unknown>;
  assert.equal(end.stopReason, "completed");
  assert.equal(end.turns, 2);
  assert.equal(end.denied, 1);
  assert.deepEqual(
    (end.denials as Array<Record<string, unknown>>).map((d) => [d.toolCallId, d.access, d.by]),
    [["call_blocked", "read", denial?.by]],
  );
  assert.equal((end.denials as Array<Record<string, unknown>>)[0]?.target, denial?.target);
  assert.equal(end.failed, 1);
  assert.equal(end.toolCalls, 2);
  assert.equal(end.exitCode, 0);
  assert.ok(typeof end.usage === "object");
  // The model received the denial, and never the secret.
  const toolMessages = server.chatRequests[1]?.body?.messages.filter((m) => m.role === "tool");
  assert.match(String(toolMessages?.[0]?.content), /blocked by permissions/);
  assert.doesNotMatch(JSON.stringify(server.chatRequests[1]?.body), /top secret/);
});

Deno.test("moat --fail-on-deny exits 4 after a denied call; --output json summarises the run", async () => {
  await using server = await startFakeOpenAI();
  await using outside = await createTempWorkspace({ "x.txt": "x" });
  await using ws = await createTempWorkspace();
  await using home = await createTempWorkspace();
  server.script(
    reply.toolCalls([{ id: "c1", name: "read", arguments: { path: outside.path("x.txt") } }]),
    reply.text("I could not read it."),
  );
  const result = await runMoat(["--fail-on-deny", "--output", "json", "read it"], {
    cwd: ws.dir,
    env: cliEnv(home.dir, { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: "k" }),
  });
  assert.equal(result.code, 4, result.stderr);
  const [summary, ...rest] = jsonLines(result.stdout);
  assert.equal(rest.length, 0);
  assert.equal(summary?.text, "I could not read it.");
  assert.equal(summary?.stopReason, "completed");
  assert.equal(summary?.denied, 1);
  // Which call was denied, what it asked for, and the flag the model was told to add.
  const denials = summary?.denials as Array<Record<string, unknown>>;
  assert.equal(denials.length, 1);
  const [denial] = denials;
  const target = await Deno.realPath(outside.path("x.txt"));
  assert.deepEqual(
    { ...denial, hint: undefined, reason: undefined },
    {
      toolCallId: "c1",
      toolName: "read",
      access: "read",
      target,
      by: "no_prompt",
      hint: undefined,
      reason: undefined,
    },
  );
  assert.match(String(denial?.hint), /^--allow-read=\S*x\.txt$/);
  assert.ok(String(denial?.reason).includes(`(add ${denial?.hint})`), String(denial?.reason));
  assert.equal(summary?.exitCode, 4);
});

Deno.test("moat exits 3 when the model keeps calling tools past --max-turns", async () => {
  await using server = await startFakeOpenAI();
  await using ws = await createTempWorkspace({ "a.txt": "a" });
  await using home = await createTempWorkspace();
  let n = 0;
  server.script(
    repeat(() => reply.toolCalls([{ id: `c${++n}`, name: "read", arguments: { path: "a.txt" } }])),
  );
  const result = await runMoat(["--max-turns", "3", "loop"], {
    cwd: ws.dir,
    env: cliEnv(home.dir, { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: "k" }),
  });
  assert.equal(result.code, 3, result.stderr);
  // Three turns, then one request without tools for the model's report.
  assert.equal(server.chatRequests.length, 4);
  assert.equal(server.chatRequests[3]?.body?.tools, undefined);
  assert.match(result.stderr, /max-turns/);
});

Deno.test("moat exits 1 naming the cause when the server keeps answering 500", async () => {
  await using server = await startFakeOpenAI();
  await using ws = await createTempWorkspace();
  await using home = await createTempWorkspace();
  server.script(repeat(fault.status(500, { message: "the fake server is down" })));
  const result = await runMoat(["--output", "jsonl", "hello"], {
    cwd: ws.dir,
    env: cliEnv(home.dir, { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: "k" }),
  });
  assert.equal(result.code, 1, result.stderr);
  assert.match(result.stderr, /500/);
  assert.match(result.stderr, /server/);
  assert.doesNotMatch(result.stderr, /\n\s+at /);
  const events = jsonLines(result.stdout);
  const end = events.at(-1);
  assert.equal(end?.type, "run_end");
  assert.equal(end?.stopReason, "error");
  assert.equal(end?.exitCode, 1);
  assert.ok(events.some((e) => e.type === "error" && e.status === 500));
});

Deno.test("moat attaches piped stdin after the prompt", async () => {
  await using server = await startFakeOpenAI();
  await using ws = await createTempWorkspace();
  await using home = await createTempWorkspace();
  server.script(reply.text("Looks fine."));
  const result = await runMoat(["-p", "review this diff", "--no-session"], {
    cwd: ws.dir,
    env: cliEnv(home.dir, { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: "k" }),
    stdin: "+added line\n",
  });
  assert.equal(result.code, 0, result.stderr);
  const user = server.chatRequests[0]?.body?.messages.find((m) => m.role === "user");
  assert.match(String(user?.content), /^review this diff\n\n<stdin>\n\+added line\n<\/stdin>$/);
});

Deno.test("moat --sandbox=require exits 2 naming the cause when bubblewrap cannot be used", async () => {
  await using server = await startFakeOpenAI();
  await using ws = await createTempWorkspace();
  await using home = await createTempWorkspace();
  const result = await runMoat(["--sandbox=require", "hello"], {
    cwd: ws.dir,
    // No bwrap on this PATH.
    env: cliEnv(home.dir, {
      OPENAI_BASE_URL: server.baseURL,
      OPENAI_API_KEY: "k",
      PATH: home.path("empty-bin"),
    }),
  });
  assert.equal(result.code, 2, result.stderr);
  assert.match(result.stderr, /--sandbox=require/);
  assert.match(result.stderr, /bwrap|bubblewrap/);
  assert.equal(server.chatRequests.length, 0, "nothing was sent to the model");
});

Deno.test("moat names the key variable on a 401 and still ends --output json with a result, exit 1", async () => {
  await using server = await startFakeOpenAI();
  await using ws = await createTempWorkspace();
  await using home = await createTempWorkspace();
  server.script(fault.unauthorized());
  const result = await runMoat(["--output", "json", "--api-key-env", "MY_KEY", "hello"], {
    cwd: ws.dir,
    env: cliEnv(home.dir, { OPENAI_BASE_URL: server.baseURL, MY_KEY: "wrong" }),
  });
  assert.equal(result.code, 1, result.stderr);
  assert.match(result.stderr, /rejected the API key \(HTTP 401\).*MY_KEY/);
  assert.equal(result.stderr.trim().split("\n").length, 1, result.stderr);
  const [summary, ...rest] = jsonLines(result.stdout);
  assert.equal(rest.length, 0);
  assert.equal(summary?.exitCode, 1);
  assert.equal(summary?.stopReason, "error");
  assert.equal((summary?.error as { kind: string }).kind, "auth");
});

Deno.test("moat exits 1 with a clear message when the model server is down; jsonl still ends with run_end", async () => {
  // A port nothing listens on.
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  await using ws = await createTempWorkspace();
  await using home = await createTempWorkspace();
  const result = await runMoat(["-o", "jsonl", "--no-session", "hello"], {
    cwd: ws.dir,
    env: cliEnv(home.dir, { OPENAI_BASE_URL: `http://127.0.0.1:${port}/v1`, OPENAI_API_KEY: "k" }),
  });
  assert.equal(result.code, 1, result.stderr);
  assert.match(
    result.stderr,
    new RegExp(`Could not reach the model server at "http://127\\.0\\.0\\.1:${port}/v1"`),
  );
  assert.doesNotMatch(result.stderr, /\n\s+at /);
  const events = jsonLines(result.stdout);
  assert.equal(events[0]?.type, "run_start");
  const end = events.at(-1);
  assert.equal(end?.type, "run_end");
  assert.equal(end?.exitCode, 1);
  assert.equal((end?.error as { kind: string }).kind, "network");
});

Deno.test("moat exits 143 at once on SIGTERM while waiting for piped stdin, without a model request", async () => {
  await using server = await startFakeOpenAI();
  await using ws = await createTempWorkspace();
  await using home = await createTempWorkspace();
  const child = await spawnMoat([], {
    cwd: ws.dir,
    env: cliEnv(home.dir, { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: "k" }),
    openStdin: true,
  });
  const output = child.output();
  // stdin is an open pipe nobody writes to; once moat reads it (its own SIGTERM listener is
  // there by then), terminate it.
  await waitUntil("moat to read stdin", () => readsStdin(child.pid));
  child.kill("SIGTERM");
  const out = await output;
  await child.stdin.close().catch(() => {});
  assert.equal(out.code, 143, new TextDecoder().decode(out.stderr));
  assert.match(new TextDecoder().decode(out.stderr), /terminated before the run started/);
  assert.equal(server.requests.length, 0);
});

Deno.test("moat with an endless piped stdin attaches its first 4 MiB with a note and warns", async () => {
  await using server = await startFakeOpenAI();
  await using ws = await createTempWorkspace();
  server.script(reply.text("Summarised."));
  const env = cliEnv(ws.dir, { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: "k" });
  const child = await spawnMoat(["--no-session", "summarise this"], {
    cwd: ws.dir,
    env,
    openStdin: true,
  });
  const output = child.output();
  // Like `yes | moat …`: the producer never ends; it stops when moat stops reading and exits.
  const writer = child.stdin.getWriter();
  const chunk = new TextEncoder().encode("y\n".repeat(256 * 1024));
  try {
    for (;;) await writer.write(chunk);
  } catch {
    // The pipe closed: moat exited.
  }
  const out = await output;
  const stderr = new TextDecoder().decode(out.stderr);
  assert.equal(out.code, 0, stderr);
  assert.equal(new TextDecoder().decode(out.stdout), "Summarised.\n");
  assert.match(stderr, /warning: stdin is larger than 4 MiB; only its first 4 MiB were sent/);
  const prompt = String(server.chatRequests[0]?.body?.messages[1]?.content);
  assert.ok(prompt.startsWith("summarise this\n\n<stdin>\ny\ny\n"));
  assert.ok(prompt.endsWith("\n[stdin was cut: only its first 4 MiB are included]\n</stdin>"));
  assert.ok(prompt.length < 4 * 1024 * 1024 + 200, `${prompt.length} characters`);
});
