import assert from "node:assert/strict";
import type { Message, ToolResult } from "../../src/model/types.ts";
import { assertHistoryAcceptable, historyProblems } from "../support/history_check.ts";
import { scripted } from "../support/scripted_model.ts";
import { user } from "./_helpers.ts";

const calls = scripted.toolCalls([
  { id: "a", name: "read", args: { path: "x" } },
  { id: "b", name: "read", args: { path: "y" } },
]);
const result = (id: string, extra: Record<string, unknown> = {}): ToolResult =>
  ({ toolCallId: id, toolName: "read", content: "ok", isError: false, ...extra }) as ToolResult;

Deno.test("assertHistoryAcceptable() accepts calls answered in order by the next message", () => {
  assertHistoryAcceptable([
    user("go"),
    calls,
    { role: "toolResult", results: [result("a"), result("b")] },
    scripted.text("done"),
  ]);
});

const bad: Array<[string, Message[], RegExp]> = [
  [
    "a missing result",
    [user("go"), calls, { role: "toolResult", results: [result("a")] }],
    /1 results for 2/,
  ],
  ["results out of order", [user("go"), calls, {
    role: "toolResult",
    results: [result("b"), result("a")],
  }], /answers "b"/],
  ["a duplicate answer", [user("go"), calls, {
    role: "toolResult",
    results: [result("a"), result("a")],
  }], /answers "a" but call 1/],
  ["unanswered calls at the end", [user("go"), calls], /never answered/],
  ["a message between calls and results", [user("go"), calls, user("hi"), {
    role: "toolResult",
    results: [result("a"), result("b")],
  }], /not answered by the next message/],
  [
    "an orphan result message",
    [user("go"), { role: "toolResult", results: [result("a")] }],
    /orphan/,
  ],
  ["a UI-only field in a result", [user("go"), calls, {
    role: "toolResult",
    results: [result("a", { display: "d" }), result("b")],
  }], /non-persistable field "display"/],
];

for (const [name, history, pattern] of bad) {
  Deno.test(`assertHistoryAcceptable() rejects ${name}`, () => {
    assert.match(historyProblems(history).join("\n"), pattern);
    assert.throws(() => assertHistoryAcceptable(history));
  });
}
