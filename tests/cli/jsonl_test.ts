import assert from "node:assert/strict";
import {
  createJsonlReporter,
  createJsonReporter,
  EVENTS_SCHEMA_VERSION,
} from "../../src/cli/jsonl.ts";
import { emptyUsage } from "../../src/model/types.ts";

const info = {
  model: "m",
  cwd: "/w",
  grants: { read: ["/w"] },
  grantsSummary: "read: /w",
  sandbox: "bwrap",
  tools: ["read"],
  session: null,
  moatVersion: "0.0.0",
};
const summary = {
  stopReason: "completed" as const,
  turns: 1,
  usage: emptyUsage(),
  requests: 1,
  retries: 0,
  toolCalls: 1,
  failed: 0,
  denied: 1,
  exitCode: 0,
  text: "done",
};

Deno.test("createJsonlReporter() writes one versioned object per line, deltas only when asked", () => {
  for (const includeDeltas of [false, true]) {
    let out = "";
    const r = createJsonlReporter({ writeStdout: (t) => void (out += t), includeDeltas });
    r.start(info);
    r.event({ type: "turn_start", turn: 1 });
    r.event({ type: "text_delta", delta: "hi" });
    r.event({
      type: "message_end",
      message: {
        role: "assistant",
        blocks: [{ type: "text", text: "hi" }],
        stopReason: "stop",
        usage: emptyUsage(),
      },
    });
    r.event({ type: "message_saved", message: { role: "user", content: "x" } });
    r.event({
      type: "tool_end",
      toolCallId: "c1",
      name: "write",
      args: { path: "a", content: "y".repeat(1000) },
      result: { toolCallId: "c1", toolName: "write", content: "z".repeat(600), isError: true },
      durationMs: 2.4,
      blocked: { source: "permissions", reason: "no" },
    });
    r.end(summary);
    const lines = out.trimEnd().split("\n").map((l) => JSON.parse(l));
    for (const l of lines) assert.equal(l.version, EVENTS_SCHEMA_VERSION);
    assert.deepEqual(
      lines.map((l) => l.type),
      includeDeltas
        ? ["run_start", "turn_start", "text_delta", "message_end", "tool_end", "run_end"]
        : ["run_start", "turn_start", "message_end", "tool_end", "run_end"],
    );
    const toolEnd = lines.find((l) => l.type === "tool_end");
    assert.equal(toolEnd.durationMs, 2);
    assert.deepEqual(toolEnd.blocked, { source: "permissions", reason: "no" });
    assert.match(toolEnd.args.content, /… \[1000 chars\]$/);
    assert.match(toolEnd.output, /… \[600 chars\]$/);
    assert.equal(lines.at(-1).denied, 1);
  }
});

Deno.test("createJsonReporter() writes a single result object with the final text", () => {
  let out = "";
  let err = "";
  const r = createJsonReporter({
    writeStdout: (t) => void (out += t),
    writeStderr: (t) => void (err += t),
  });
  r.start(info);
  r.warning("careful");
  r.end({
    ...summary,
    stopReason: "error",
    exitCode: 1,
    error: { kind: "server", message: "down" },
  });
  const lines = out.trimEnd().split("\n");
  assert.equal(lines.length, 1);
  const result = JSON.parse(lines[0] as string);
  assert.equal(result.type, "result");
  assert.equal(result.text, "done");
  assert.equal(result.exitCode, 1);
  assert.deepEqual(result.warnings, ["careful"]);
  assert.match(err, /moat: error: down/);
});

/** The fields docs/events.md promises for each event (beyond version, type and time). */
const DOCUMENTED_FIELDS: Record<string, { always: string[]; optional?: string[] }> = {
  run_start: {
    always: [
      "moatVersion",
      "model",
      "baseUrl",
      "cwd",
      "grants",
      "grantsSummary",
      "sandbox",
      "tools",
      "session",
    ],
    optional: ["replay"],
  },
  warning: { always: ["message"] },
  turn_start: { always: ["turn"] },
  message_start: { always: [] },
  text_delta: { always: ["delta"] },
  thinking_delta: { always: ["delta"] },
  message_end: {
    always: ["text", "toolCalls", "stopReason", "usage"],
    optional: ["model", "thinking"],
  },
  tool_start: { always: ["toolCallId", "name", "args"] },
  tool_running: { always: ["toolCallId", "name"] },
  permission: {
    always: ["toolCallId", "toolName", "access", "target", "outcome", "by"],
    optional: ["reason", "hint"],
  },
  tool_update: { always: ["toolCallId", "name", "text"] },
  tool_end: {
    always: ["toolCallId", "name", "args", "durationMs", "isError", "blocked", "output"],
  },
  health: { always: ["signal", "message", "count"] },
  job_start: { always: ["id", "command", "toolCallId"] },
  job_exit: {
    always: ["id", "command", "toolCallId", "end", "exitCode", "signal", "lastLines"],
  },
  model_retry: {
    always: ["attempt", "maxRetries", "cause", "message", "status", "waitMs", "midStream"],
  },
  compaction_start: { always: ["reason", "tokens", "window"] },
  compaction_end: {
    always: [
      "reason",
      "outcome",
      "method",
      "modelCall",
      "modelCalls",
      "tokensBefore",
      "tokensAfter",
      "messagesBefore",
      "messagesAfter",
      "durationMs",
      "usage",
      "window",
    ],
  },
  error: { always: ["kind", "message"], optional: ["status"] },
  report_start: { always: ["limit"] },
  run_end: {
    always: [
      "stopReason",
      "limit",
      "turns",
      "usage",
      "requests",
      "retries",
      "toolCalls",
      "failed",
      "denied",
      "denials",
      "exitCode",
      "truncated",
    ],
    optional: ["error", "replay", "cost", "finalAnswer"],
  },
};

/** The text of the docs/events.md section whose heading names `type`. */
function docSection(doc: string, type: string): string {
  const sections = doc.split(/\n(?=#{2,3} )/);
  const found = sections.find((s) => /^#{2,3} .*/.exec(s)?.[0].includes(`\`${type}\``));
  assert.ok(found !== undefined, `docs/events.md documents "${type}"`);
  return found;
}

Deno.test("createJsonlReporter() emits exactly the fields docs/events.md documents for every event", async () => {
  const doc = await Deno.readTextFile(new URL("../../docs/events.md", import.meta.url));
  let out = "";
  let err = "";
  const r = createJsonlReporter({
    writeStdout: (t) => void (out += t),
    writeStderr: (t) => void (err += t),
    includeDeltas: true,
  });
  const call = { toolCallId: "c1", name: "read" };
  r.start({
    ...info,
    replay: {
      file: "/w/run.jsonl",
      recordedModel: "gpt-x",
      recordedAt: "2026-01-01T00:00:00.000Z",
      replies: 2,
      check: true,
    },
  });
  r.warning("heads up");
  r.event({ type: "turn_start", turn: 1 });
  r.event({ type: "compaction_start", reason: "threshold", tokens: 9000, window: 8000 });
  r.event({
    type: "compaction_end",
    reason: "threshold",
    outcome: "compacted",
    method: "summary",
    modelCalls: 1,
    usage: emptyUsage(),
    tokensBefore: 9000,
    tokensAfter: 2000,
    messagesBefore: 40,
    messagesAfter: 5,
    durationMs: 12,
    window: 8000,
    summary: "not in the JSONL line",
    messages: [],
  });
  r.event({ type: "message_start" });
  r.event({
    type: "model_retry",
    attempt: 1,
    maxRetries: 2,
    cause: "incomplete_stream",
    message: "The stream broke off.",
    waitMs: 500,
    midStream: true,
  });
  r.event({ type: "message_start" });
  r.event({ type: "thinking_delta", delta: "Read a." });
  r.event({ type: "text_delta", delta: "x" });
  r.event({
    type: "message_end",
    message: {
      role: "assistant",
      blocks: [{ type: "toolCall", id: "c1", name: "read", arguments: { path: "a" } }],
      stopReason: "toolUse",
      usage: emptyUsage(),
      model: "served-model",
      thinking: "Read a.",
      echo: { origin: "http://x/v1", fields: { reasoning_content: "Read a." } },
    },
  });
  r.event({ type: "tool_start", ...call, args: { path: "a" } });
  r.permission?.({
    toolCallId: "c1",
    toolName: "read",
    access: "read",
    target: "/w/a",
    outcome: "denied",
    by: "no_prompt",
    reason: "not granted (add --allow-read=/w/a)",
    hint: "--allow-read=/w/a",
  });
  r.event({ type: "tool_running", ...call });
  r.event({ type: "tool_update", ...call, update: { text: "partial" }, elapsedMs: 5 });
  r.event({
    type: "tool_end",
    ...call,
    args: { path: "a" },
    result: { toolCallId: "c1", toolName: "read", content: "x", isError: false },
    durationMs: 1,
  });
  r.event({ type: "health", signal: "repeated_calls", message: "stuck", count: 3 });
  r.job?.({ type: "job_start", id: "1", command: "serve", toolCallId: "c1" });
  r.job?.({
    type: "job_exit",
    id: "1",
    command: "serve",
    toolCallId: "c1",
    end: "run_end",
    exitCode: null,
    signal: "SIGKILL",
    lastLines: "ready",
  });
  r.event({ type: "report_start", limit: "max_turns" });
  r.end({
    ...summary,
    cost: 0.0123,
    finalAnswer: false,
    stopReason: "error",
    exitCode: 1,
    error: { kind: "server", message: "down", status: 500 },
    replay: {
      file: "/w/run.jsonl",
      played: 2,
      replies: 2,
      check: { compared: 1, differing: 0, unrecorded: 0 },
    },
  });
  const lines = out.trimEnd().split("\n").map((l) => JSON.parse(l) as Record<string, unknown>);
  const seen = new Set<string>();
  for (const line of lines) {
    const type = String(line.type);
    seen.add(type);
    const spec = DOCUMENTED_FIELDS[type];
    assert.ok(spec !== undefined, `"${type}" is a documented event`);
    const keys = Object.keys(line).filter((k) => !["version", "type", "time"].includes(k));
    for (const field of spec.always) assert.ok(keys.includes(field), `${type} has ${field}`);
    for (const key of keys) {
      assert.ok(
        spec.always.includes(key) || (spec.optional ?? []).includes(key),
        `${type}.${key} is documented`,
      );
    }
    const section = docSection(doc, type);
    for (const field of [...spec.always, ...(spec.optional ?? [])]) {
      assert.ok(
        section.includes(`\`${field}\``) || section.includes(`.${field}\``),
        `docs/events.md names ${type}.${field}`,
      );
    }
    assert.equal(typeof line.time, "string");
    assert.equal(line.version, EVENTS_SCHEMA_VERSION);
  }
  assert.deepEqual([...seen].sort(), Object.keys(DOCUMENTED_FIELDS).sort());
  assert.equal(lines[0]?.type, "run_start");
  assert.equal(lines.at(-1)?.type, "run_end");
  // Warnings and errors also reach a human on stderr.
  assert.match(err, /moat: warning: heads up/);
  assert.match(err, /moat: error: down/);
});

const replayStartInfo = {
  ...info,
  replay: {
    file: "/w/tour.jsonl",
    recordedModel: "gpt-x",
    recordedAt: "2025-01-01T00:00:00.000Z",
    replies: 2,
    check: true,
  },
};
const checkedSummary = {
  ...summary,
  exitCode: 5,
  replay: {
    file: "/w/tour.jsonl",
    played: 2,
    replies: 2,
    check: {
      compared: 1,
      differing: 1,
      unrecorded: 0,
      first: {
        toolName: "ls",
        toolCallId: "c1",
        args: { path: "." },
        replyLine: 3,
        resultLine: 4,
        aspect: "content" as const,
        recorded: "a",
        live: "b",
        diff: "--- recorded\n+++ live\n@@ -1,1 +1,1 @@\n-a\n+b",
      },
    },
  },
};

Deno.test("createJsonlReporter() carries the replay in run_start and run_end and the check on stderr", () => {
  let out = "";
  let err = "";
  const r = createJsonlReporter({
    writeStdout: (t) => void (out += t),
    writeStderr: (t) => void (err += t),
  });
  r.start(replayStartInfo);
  r.end(checkedSummary);
  const [start, end] = out.trimEnd().split("\n").map((l) => JSON.parse(l));
  assert.equal(start.type, "run_start");
  assert.deepEqual(start.replay, replayStartInfo.replay);
  assert.equal(end.type, "run_end");
  assert.deepEqual(end.replay, checkedSummary.replay);
  assert.equal(end.exitCode, 5);
  assert.match(err, /^moat: replay check failed: 1 of 1 tool result\(s\) differ/);
  assert.match(err, / {2}-a\n {2}\+b\n$/);

  let plainOut = "";
  const plain = createJsonlReporter({ writeStdout: (t) => void (plainOut += t) });
  plain.start(info);
  plain.end(summary);
  const [plainStart, plainEnd] = plainOut.trimEnd().split("\n").map((l) => JSON.parse(l));
  assert.equal("replay" in plainStart, false);
  assert.equal("replay" in plainEnd, false);
});

Deno.test("createJsonReporter() puts the replay in the result and the check's verdict on stderr", () => {
  let out = "";
  let err = "";
  const r = createJsonReporter({
    writeStdout: (t) => void (out += t),
    writeStderr: (t) => void (err += t),
  });
  r.start(replayStartInfo);
  r.end({
    ...summary,
    replay: {
      file: "/w/tour.jsonl",
      played: 2,
      replies: 2,
      check: { compared: 2, differing: 0, unrecorded: 0 },
    },
  });
  const result = JSON.parse(out);
  assert.equal(result.model, "m");
  assert.deepEqual(result.replay, {
    file: "/w/tour.jsonl",
    played: 2,
    replies: 2,
    check: { compared: 2, differing: 0, unrecorded: 0 },
  });
  assert.equal(err, "moat: replay check passed: 2 tool result(s) match the recording\n");
});

Deno.test("createJsonlReporter() marks the report request at a limit with report_start, not a turn", () => {
  let out = "";
  const r = createJsonlReporter({ writeStdout: (t) => void (out += t) });
  r.event({ type: "turn_start", turn: 2 });
  r.event({ type: "report_start", limit: "max_turns" });
  const lines = out.trimEnd().split("\n").map((l) => JSON.parse(l));
  assert.deepEqual(lines.map(({ type, turn, limit }) => ({ type, turn, limit })), [
    { type: "turn_start", turn: 2, limit: undefined },
    { type: "report_start", turn: undefined, limit: "max_turns" },
  ]);
});

Deno.test("the JSONL and JSON reporters tell a model client's warning as a warning, on stderr too", () => {
  let out = "";
  let err = "";
  const jsonl = createJsonlReporter({
    writeStdout: (t) => void (out += t),
    writeStderr: (t) => void (err += t),
  });
  jsonl.event({ type: "model_warning", message: "The server returned tool calls as text." });
  const line = JSON.parse(out);
  assert.equal(line.type, "warning");
  assert.equal(line.message, "The server returned tool calls as text.");
  assert.match(err, /moat: warning: The server returned tool calls as text\./);
  let json = "";
  const reporter = createJsonReporter({
    writeStdout: (t) => void (json += t),
    writeStderr: () => {},
  });
  reporter.start(info);
  reporter.event({ type: "model_warning", message: "told" });
  reporter.end(summary);
  assert.deepEqual(JSON.parse(json).warnings, ["told"]);
});
