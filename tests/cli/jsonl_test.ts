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
