/**
 * End-to-end: the CI contract — broken streams are retried visibly, every limit ends with an
 * answer and exit 3, --output-schema gives valid JSON or exit 7, usage is in every summary.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  type FakeChatBody,
  fault,
  repeat,
  reply,
  startFakeOpenAI,
} from "../support/fake_openai.ts";
import { createTempWorkspace } from "../support/workspace.ts";
import { cliEnv, jsonLines, runMoat } from "./_cli.ts";

async function setUp() {
  const server = await startFakeOpenAI();
  const ws = await createTempWorkspace({ "a.txt": "alpha\n" });
  const home = await createTempWorkspace();
  const env = cliEnv(home.dir, { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: "k" });
  return {
    server,
    ws,
    home,
    env,
    run: (args: string[]) => runMoat(args, { cwd: ws.dir, env }),
    async [Symbol.asyncDispose]() {
      await server.close();
      await ws[Symbol.asyncDispose]();
      await home[Symbol.asyncDispose]();
    },
  };
}

const noTools = (body: FakeChatBody | undefined) => (body?.tools ?? []).length === 0;
/** The model: reads a.txt forever, and reports when asked without tools. */
const keepsReading = () => {
  let n = 0;
  return repeat((request) =>
    noTools(request.body)
      ? reply.text("I read a.txt several times; what remains: everything else.")
      : reply.toolCalls([{ id: `c${++n}`, name: "read", arguments: { path: "a.txt" } }])
  );
};

Deno.test("a mid-stream disconnect and a malformed chunk end in a completed run after visible retries", async () => {
  await using t = await setUp();
  t.server.script(
    fault.disconnect(reply.text("half a rep"), { afterChunks: 2 }),
    fault.malformed(reply.text("a b c"), { afterChunks: 2 }),
    reply.text("All good."),
  );
  const run = await t.run(["--output", "jsonl", "hi"]);
  assert.equal(run.code, 0, run.stderr);
  const events = jsonLines(run.stdout);
  const retries = events.filter((e) => e.type === "model_retry");
  assert.deepEqual(retries.map((r) => [r.attempt, r.cause, r.midStream]), [
    [1, "incomplete_stream", true],
    [2, "incomplete_stream", true],
  ]);
  const end = events.at(-1) as Record<string, unknown>;
  assert.equal(end.type, "run_end");
  assert.equal(end.stopReason, "completed");
  assert.equal(end.retries, 2);
  assert.equal(end.requests, 3);
  assert.equal(events.find((e) => e.type === "message_end")?.text, "All good.");

  // Text mode with --verbose: one line per retry, and the footer with usage.
  t.server.script(fault.status(429, { retryAfter: 0 }), reply.text("Fine."));
  const verbose = await t.run(["--verbose", "hi"]);
  assert.equal(verbose.code, 0, verbose.stderr);
  assert.equal(verbose.stdout, "Fine.\n");
  assert.match(verbose.stderr, /rate limiting.*Retrying in 0 ms \(retry 1 of 2\)/);
  assert.match(verbose.stderr, /tokens: [\d,]+ in, [\d,]+ out · 2 model request\(s\), 1 retried/);
});

Deno.test("every limit ends with the model's final answer and exit 3, naming the limit", async () => {
  await using t = await setUp();
  const cases: Array<[string[], string]> = [
    [["--max-turns", "2"], "max_turns"],
    [["--max-tool-calls", "3"], "max_tool_calls"],
    [["--max-tokens-total", "1"], "max_tokens_total"],
  ];
  for (const [flags, limit] of cases) {
    t.server.script(keepsReading());
    const before = t.server.chatRequests.length;
    const run = await t.run([...flags, "--output", "json", "read forever"]);
    assert.equal(run.code, 3, `${limit}: ${run.stderr}`);
    const result = JSON.parse(run.stdout);
    assert.equal(result.limit, limit);
    assert.equal(result.stopReason, limit === "max_turns" ? "maxIterations" : "limitReached");
    assert.equal(result.finalAnswer, true);
    // The flag's number is the number of turns, whose calls all ran (the report is no turn).
    if (limit === "max_turns") assert.deepEqual([result.turns, result.failed], [2, 0]);
    assert.equal(result.text, "I read a.txt several times; what remains: everything else.");
    const last = t.server.chatRequests.at(-1)?.body;
    assert.ok(noTools(last), `${limit}: the final request has no tools`);
    assert.match(String(last?.messages.at(-1)?.content), /reached its .*limit/);
    assert.ok(t.server.chatRequests.length > before);
    // The script step repeats forever: replace it for the next case.
    t.server.script(reply.text("unused"));
    await t.run(["--no-session", "drain"]);
  }
});

Deno.test("--max-turns N runs N turns' calls, then prints the model's report on stdout in text mode", async () => {
  await using t = await setUp();
  t.server.script(keepsReading());
  const run = await t.run(["--max-turns", "2", "read forever"]);
  assert.equal(run.code, 3, run.stderr);
  assert.equal(run.stdout, "I read a.txt several times; what remains: everything else.\n");
  assert.match(
    run.stderr,
    /stopped after 2 turn\(s\): the turn limit was reached \(raise it with --max-turns\); the answer above is the model's report/,
  );
  // Both turns' calls ran: the report request carries two real results, nothing refused.
  assert.equal(t.server.chatRequests.length, 3);
  const results = t.server.chatRequests[2]?.body?.messages.filter((m) => m.role === "tool");
  assert.deepEqual(results?.map((m) => String(m.content).includes("alpha")), [true, true]);
  assert.doesNotMatch(run.stderr, /not executed/);

  // A model that never reports: stdout gets moat's summary of the work instead.
  await using t2 = await setUp();
  let n = 0;
  t2.server.script(
    repeat(() => reply.toolCalls([{ id: `s${++n}`, name: "read", arguments: { path: "a.txt" } }])),
  );
  const silent = await t2.run(["--max-turns", "2", "--no-session", "read forever"]);
  assert.equal(silent.code, 3, silent.stderr);
  assert.match(
    silent.stdout,
    /^moat stopped the run at its turn limit \(--max-turns\) after 2 turn\(s\) and 2 tool call\(s\)/,
  );
  assert.match(silent.stderr, /the summary above is moat's/);
});

Deno.test("--max-wall-time stops a long command and ends with a report on stdout, exit 3", async () => {
  await using t = await setUp();
  // One long command; a request with tools after it means the command was not stopped in time,
  // and the run then completes (exit 0), which fails the test with the output to look at.
  t.server.script(
    repeat(
      (request) =>
        noTools(request.body)
          ? reply.text("I was waiting for sleep; nothing else is done.")
          : reply.toolCalls([{ id: "w1", name: "bash", arguments: { command: "sleep 30" } }]),
      1,
    ),
    repeat((request) =>
      noTools(request.body)
        ? reply.text("I was waiting for sleep; nothing else is done.")
        : reply.text("The command ended before the limit.")
    ),
  );
  const session = t.home.path("wall.jsonl");
  const run = await t.run([
    "--max-wall-time",
    "4",
    "--allow-run=sleep",
    "--session",
    session,
    "wait",
  ]);
  assert.equal(run.code, 3, `${run.stdout}\n${run.stderr}`);
  assert.match(run.stderr, /the wall-time limit was reached \(raise it with --max-wall-time\)/);
  // On a loaded machine the report may not fit in the time left: then moat summarises.
  assert.match(
    run.stdout,
    /^(I was waiting for sleep; nothing else is done\.|moat stopped the run at its wall-time limit)/,
  );
  // The command did not run to its end: if it started at all, it was aborted.
  const results = (await Deno.readTextFile(session)).trim().split("\n").map((l) => JSON.parse(l))
    .flatMap((l) => l.message?.role === "toolResult" ? l.message.results : []);
  for (const r of results) assert.match(JSON.stringify(r.content), /aborted/);
});

Deno.test("--max-cost stops once the run costs that much, and needs pricing", async () => {
  await using t = await setUp();
  const noPrices = await t.run(["--max-cost", "0.01", "hi"]);
  assert.equal(noPrices.code, 2, noPrices.stderr);
  assert.match(noPrices.stderr, /--max-cost needs the token prices of the model "gpt-4\.1"/);
  assert.equal(t.server.chatRequests.length, 0);

  await Deno.mkdir(join(t.home.dir, "config", "moat"), { recursive: true });
  await Deno.writeTextFile(
    join(t.home.dir, "config", "moat", "config.json"),
    JSON.stringify({ pricing: { "gpt-4.1": { inputPerMTok: 1_000_000, outputPerMTok: 0 } } }),
  );
  t.server.script(keepsReading());
  const run = await t.run(["--max-cost", "50", "--output", "json", "read"]);
  assert.equal(run.code, 3, run.stderr);
  const result = JSON.parse(run.stdout);
  assert.equal(result.limit, "max_cost");
  assert.ok(result.cost >= 50);
});

const SCHEMA = {
  type: "object",
  properties: { verdict: { enum: ["pass", "fail"] }, reasons: { type: "array" } },
  required: ["verdict", "reasons"],
  additionalProperties: false,
};

Deno.test("--output-schema prints only the JSON the model gave through final_answer", async () => {
  await using t = await setUp();
  await Deno.writeTextFile(t.ws.path("schema.json"), JSON.stringify(SCHEMA));
  t.server.script(
    // First a wrong shape (refused by validation), then a valid one.
    reply.toolCalls([{ id: "f1", name: "final_answer", arguments: { verdict: "maybe" } }]),
    reply.toolCalls([{
      id: "f2",
      name: "final_answer",
      arguments: { verdict: "pass", reasons: ["tests green"] },
    }]),
  );
  const run = await t.run(["--output-schema", "schema.json", "review"]);
  assert.equal(run.code, 0, run.stderr);
  assert.deepEqual(JSON.parse(run.stdout), { verdict: "pass", reasons: ["tests green"] });
  assert.equal(run.stdout.trim().split("\n").length, 1, "stdout holds only the JSON");
  const first = t.server.chatRequests[0]?.body;
  assert.ok(first?.tools?.some((tool) => tool.function.name === "final_answer"));
  const refused = t.server.chatRequests[1]?.body?.messages.find((m) => m.role === "tool");
  assert.match(String(refused?.content), /invalid arguments for tool "final_answer"/);
  assert.equal(t.server.chatRequests.length, 2, "the valid answer ended the run");

  // --output json carries it as `structured`.
  t.server.script(
    reply.text('```json\n{"verdict": "fail", "reasons": []}\n```'),
  );
  const json = await t.run(["--output-schema", "schema.json", "--output", "json", "again"]);
  assert.equal(json.code, 0, json.stderr);
  assert.deepEqual(JSON.parse(json.stdout).structured, { verdict: "fail", reasons: [] });
});

Deno.test("--output-schema: a valid final_answer on the first try is an answer, with no warning", async () => {
  await using t = await setUp();
  await Deno.writeTextFile(t.ws.path("schema.json"), JSON.stringify(SCHEMA));
  const answer = { verdict: "pass", reasons: ["tests green"] };
  const valid = () =>
    t.server.script(
      reply.toolCalls([{ id: "f1", name: "final_answer", arguments: answer }]),
    );
  valid();
  const text = await t.run(["--output-schema", "schema.json", "--no-session", "review"]);
  assert.equal(text.code, 0, text.stderr);
  assert.deepEqual(JSON.parse(text.stdout), answer);
  assert.doesNotMatch(text.stderr, /warning/);

  valid();
  const json = await t.run(["--output-schema", "schema.json", "-o", "json", "--no-session", "r"]);
  assert.equal(json.code, 0, json.stderr);
  const result = JSON.parse(json.stdout);
  assert.deepEqual(result.structured, answer);
  assert.deepEqual(result.warnings, []);
  assert.doesNotMatch(json.stderr, /warning/);

  valid();
  const jsonl = await t.run(["--output-schema", "schema.json", "-o", "jsonl", "--no-session", "r"]);
  assert.equal(jsonl.code, 0, jsonl.stderr);
  const events = jsonLines(jsonl.stdout);
  assert.deepEqual(events.filter((e) => e.type === "warning"), []);
  assert.deepEqual(events.at(-1)?.structured, answer);
  assert.doesNotMatch(jsonl.stderr, /warning/);
});

Deno.test("--output-schema asks again twice, then exits 7", async () => {
  await using t = await setUp();
  await Deno.writeTextFile(t.ws.path("schema.json"), JSON.stringify(SCHEMA));
  t.server.script(repeat(reply.text("It passes, I think.")));
  const run = await t.run(["--output-schema", "schema.json", "--output", "json", "review"]);
  assert.equal(run.code, 7, run.stderr);
  assert.equal(t.server.chatRequests.length, 3);
  const corrections = t.server.chatRequests.slice(1).map((r) =>
    String(r.body?.messages.at(-1)?.content)
  );
  for (const c of corrections) assert.match(c, /does not match the required JSON Schema/);
  const result = JSON.parse(run.stdout);
  assert.equal(result.stopReason, "schemaMismatch");
  assert.equal(result.error.kind, "schema_mismatch");
  assert.equal(result.exitCode, 7);
});

Deno.test("--output-schema uses response_format where compat.structuredOutput says so", async () => {
  await using t = await setUp();
  await Deno.writeTextFile(t.ws.path("schema.json"), JSON.stringify(SCHEMA));
  await Deno.mkdir(join(t.home.dir, "config", "moat"), { recursive: true });
  await Deno.writeTextFile(
    join(t.home.dir, "config", "moat", "config.json"),
    JSON.stringify({ compat: { structuredOutput: true } }),
  );
  t.server.script(reply.text('{"verdict":"pass","reasons":["ok"]}'));
  const run = await t.run(["--output-schema", "schema.json", "review"]);
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.stdout, '{"verdict":"pass","reasons":["ok"]}\n');
  const body = t.server.chatRequests[0]?.body as Record<string, unknown>;
  assert.deepEqual(body.response_format, {
    type: "json_schema",
    json_schema: { name: "answer", schema: SCHEMA, strict: false },
  });
  assert.ok(
    !(body.tools as Array<{ function: { name: string } }>).some((x) =>
      x.function.name === "final_answer"
    ),
  );

  await Deno.writeTextFile(t.ws.path("bad.json"), '{"type": "nonsense"}');
  const bad = await t.run(["--output-schema", "bad.json", "review"]);
  assert.equal(bad.code, 2, bad.stderr);
  assert.match(bad.stderr, /The output schema "bad\.json" is not a valid JSON Schema/);
});
