import assert from "node:assert/strict";
import {
  argumentsPreview,
  isPrunedResult,
  type PrunedDetails,
  pruneToolResults,
} from "../../../src/agent/compaction/prune.ts";
import {
  estimateMessagesTokens,
  estimateMessageTokens,
} from "../../../src/agent/compaction/estimate.ts";
import type { Message, ToolCallBlock, ToolResult } from "../../../src/model/types.ts";
import { repairHistory } from "../../../src/session/store.ts";
import { assertHistoryAcceptable } from "../../support/history_check.ts";
import { codeText, readingHistory, resultsOf, says, turn, user } from "./_fixtures.ts";

const DEFAULT_HINT = "Call the tool again if you need its output.";

function textOf(result: ToolResult | undefined): string {
  assert.ok(result !== undefined);
  assert.equal(typeof result.content, "string");
  return result.content as string;
}

Deno.test("pruneToolResults() stubs the oldest results first and stops once under targetTokens", () => {
  const history = readingHistory(6, 3000);
  const before = estimateMessagesTokens(history);
  const out = pruneToolResults(history, { keepRecentTokens: 0, targetTokens: 4000 });

  assert.ok(before > 6000);
  assert.equal(out.pruned, 3);
  assert.ok(out.tokens <= 4000, `${out.tokens} tokens`);
  assert.equal(out.tokens, estimateMessagesTokens(out.messages));
  const results = resultsOf(out.messages);
  assert.deepEqual(results.map(isPrunedResult), [true, true, true, false, false, false]);
  // With the third result unpruned the messages would still be over the target.
  const twoStubs = out.messages.with(6, history[6] as Message);
  assert.ok(estimateMessagesTokens(twoStubs) > 4000);
  // What was not pruned is the very same message.
  assert.equal(out.messages[7], history[7]);
  assert.equal(out.messages[12], history[12]);
});

Deno.test("pruneToolResults() keeps the newest results within keepRecentTokens even above the target", () => {
  const history = readingHistory(6, 3000);
  const perResult = estimateMessageTokens(history[2] as Message);
  const out = pruneToolResults(history, {
    keepRecentTokens: 2 * perResult + 10,
    targetTokens: 0,
  });
  assert.equal(out.pruned, 4);
  assert.deepEqual(resultsOf(out.messages).map(isPrunedResult), [
    true,
    true,
    true,
    true,
    false,
    false,
  ]);
  assert.ok(out.tokens > 0);
});

Deno.test("pruneToolResults() keeps the newest result even when it alone exceeds keepRecentTokens; 0 protects none", () => {
  const history = readingHistory(3, 3000);
  const some = pruneToolResults(history, { keepRecentTokens: 10, targetTokens: 0 });
  assert.deepEqual(resultsOf(some.messages).map(isPrunedResult), [true, true, false]);
  const none = pruneToolResults(history, { keepRecentTokens: 0, targetTokens: 0 });
  assert.deepEqual(resultsOf(none.messages).map(isPrunedResult), [true, true, true]);
});

Deno.test("pruneToolResults() leaves results under 600 characters alone", () => {
  const history: Message[] = [
    user("go"),
    ...turn({ id: "small", content: "x".repeat(599) }),
    ...turn({ id: "edge", content: "x".repeat(600) }),
    ...turn({ id: "tiny", content: "ok" }),
  ];
  const out = pruneToolResults(history, { keepRecentTokens: 0, targetTokens: 0 });
  assert.equal(out.pruned, 1);
  assert.deepEqual(resultsOf(out.messages).map((r) => [r.toolCallId, isPrunedResult(r)]), [
    ["small", false],
    ["edge", true],
    ["tiny", false],
  ]);
  assert.equal(out.messages[2], history[2]);
});

Deno.test("pruneToolResults() stubs keep the tool name, an argument preview and the default hint", () => {
  const content = "line\n".repeat(199) + "end";
  const history: Message[] = [
    user("go"),
    ...turn({ id: "c1", name: "grep", args: { pattern: "TODO", path: "src" }, content }),
    says("found them"),
  ];
  const out = pruneToolResults(history, { keepRecentTokens: 0, targetTokens: 0 });
  const text = textOf(resultsOf(out.messages)[0]);
  assert.equal(
    text,
    '[Result removed to keep the conversation within the context window: grep({"pattern":"TODO",' +
      `"path":"src"}) returned 200 line(s), ${content.length} characters. ${DEFAULT_HINT}]`,
  );
  const stub = resultsOf(out.messages)[0];
  assert.equal(stub?.toolCallId, "c1");
  assert.equal(stub?.toolName, "grep");
  assert.equal(stub?.isError, false);
});

Deno.test("pruneToolResults() puts the tool's hint in the stub and falls back to the default without one", () => {
  const history: Message[] = [
    user("go"),
    ...turn(
      { id: "c1", args: { path: "a.ts" }, content: codeText(2000) },
      { id: "c2", args: { path: "b.ts" }, content: codeText(2000) },
    ),
  ];
  const seen: Array<[ToolCallBlock, ToolResult]> = [];
  const out = pruneToolResults(history, {
    keepRecentTokens: 0,
    targetTokens: 0,
    hint: (call, result) => {
      seen.push([call, result]);
      const path = (call.arguments as { path: string }).path;
      return path === "a.ts" ? `Read ${path} again with offset 40 for the rest.` : undefined;
    },
  });
  const [first, second] = resultsOf(out.messages).map(textOf);
  assert.match(first ?? "", /Read a\.ts again with offset 40 for the rest\.\]$/);
  assert.ok(!(first ?? "").includes(DEFAULT_HINT));
  assert.ok((second ?? "").endsWith(`${DEFAULT_HINT}]`));
  // The hint sees the call and the original result.
  assert.deepEqual(seen.map(([c, r]) => [c.id, r.content === codeText(2000)]), [
    ["c1", true],
    ["c2", true],
  ]);
});

Deno.test("pruneToolResults() keeps isError and says the call failed", () => {
  const history: Message[] = [
    user("go"),
    ...turn({
      id: "c1",
      name: "bash",
      args: { command: "make" },
      content: "E".repeat(900),
      isError: true,
    }),
  ];
  const out = pruneToolResults(history, { keepRecentTokens: 0, targetTokens: 0 });
  const stub = resultsOf(out.messages)[0];
  assert.equal(stub?.isError, true);
  assert.match(
    textOf(stub),
    /^\[Result removed .*: bash\(\{"command":"make"\}\) failed with 1 line\(s\), 900 characters\./,
  );
});

Deno.test("pruneToolResults() keeps the original details under `details` of the PrunedDetails", () => {
  const original = { exitCode: 2, savedTo: "/tmp/out.log" };
  const history: Message[] = [
    user("go"),
    ...turn({ id: "c1", content: "a\nb\n" + "x".repeat(1000), details: original }),
    ...turn({ id: "c2", content: "y".repeat(1000) }),
  ];
  const out = pruneToolResults(history, { keepRecentTokens: 0, targetTokens: 0 });
  const [withDetails, without] = resultsOf(out.messages);
  assert.deepEqual(
    withDetails?.details,
    {
      pruned: { chars: 1004, lines: 3 },
      details: original,
    } satisfies PrunedDetails,
  );
  assert.deepEqual(without?.details, { pruned: { chars: 1000, lines: 1 } });
  assert.ok(!Object.hasOwn(without?.details as object, "details"));
  assert.ok(isPrunedResult(withDetails as ToolResult));
  assert.ok(!isPrunedResult(resultsOf(history)[0] as ToolResult));
  // A tool's own details that merely look like an object are not a stub.
  assert.ok(
    !isPrunedResult({ toolCallId: "x", toolName: "t", content: "", isError: false, details: {} }),
  );
});

Deno.test("pruneToolResults() does not prune a stub again, even a stub of 600 characters or more", () => {
  // A long hint and long arguments make stubs as long as results worth pruning.
  const hint = () => `Read it again with the offsets you need; ${"the file is long. ".repeat(25)}`;
  const history: Message[] = [user("go")];
  for (let i = 1; i <= 4; i++) {
    history.push(
      ...turn({
        id: `c${i}`,
        args: { path: `${"dir/".repeat(40)}f${i}.ts` },
        content: codeText(3000),
      }),
    );
  }
  const once = pruneToolResults(history, { keepRecentTokens: 0, targetTokens: 0, hint });
  assert.equal(once.pruned, 4);
  assert.ok(resultsOf(once.messages).every((r) => textOf(r).length >= 600));
  const twice = pruneToolResults(once.messages, { keepRecentTokens: 0, targetTokens: 0, hint });
  assert.equal(twice.pruned, 0);
  assert.equal(twice.tokens, once.tokens);
  twice.messages.forEach((message, i) => assert.equal(message, once.messages[i]));
  assert.deepEqual(resultsOf(twice.messages)[0]?.details, {
    pruned: { chars: 3000, lines: codeText(3000).split("\n").length },
  });
});

Deno.test("pruneToolResults() shortens long string arguments of old calls, not of protected turns", () => {
  const content = "export const x = 1;\n".repeat(250);
  const history: Message[] = [
    user("write the files"),
    ...turn({ id: "w1", name: "write", args: { path: "a.ts", content }, content: "Wrote a.ts" }),
    ...turn({ id: "w2", name: "write", args: { path: "b.ts", content }, content: "Wrote b.ts" }),
  ];
  const protectedTokens = estimateMessageTokens(history[4] as Message);
  const out = pruneToolResults(history, {
    keepRecentTokens: protectedTokens,
    targetTokens: 0,
  });
  const old = out.messages[1];
  assert.ok(old?.role === "assistant");
  const args = (old.blocks[0] as ToolCallBlock).arguments as { path: string; content: string };
  assert.equal(args.path, "a.ts");
  assert.equal(
    args.content,
    `${content.slice(0, 200)}… (${content.length - 200} more characters removed to keep the ` +
      "conversation within the context window)",
  );
  // The small result itself stays; the newest turn is untouched.
  assert.equal(out.pruned, 0);
  assert.equal(out.messages[2], history[2]);
  assert.equal(out.messages[3], history[3]);
  assert.ok(out.tokens < estimateMessagesTokens(history));
  assert.equal(out.tokens, estimateMessagesTokens(out.messages));
});

Deno.test("pruneToolResults() keeps exactly one result per call, in order, in a mixed history", () => {
  const image = { type: "image" as const, data: "A".repeat(4000), mimeType: "image/png" };
  const history: Message[] = [
    user("go"),
    ...turn(
      { id: "a", content: codeText(5000) },
      { id: "b", content: "small" },
      { id: "c", name: "bash", args: { command: "ls" }, content: "E".repeat(700), isError: true },
    ),
    says("Let me look at the screenshot."),
    ...turn({
      id: "d",
      name: "screenshot",
      args: {},
      content: [{ type: "text", text: "shot" }, image],
    }),
    user("and now?"),
    ...turn({ id: "e", content: codeText(8000) }, { id: "f", content: codeText(8000) }),
    says("done"),
  ];
  const out = pruneToolResults(history, { keepRecentTokens: 0, targetTokens: 0 });
  assert.equal(out.pruned, 5);
  assertHistoryAcceptable(out.messages);
  assert.equal(repairHistory(out.messages).changes, 0);
  assert.deepEqual(resultsOf(out.messages).map((r) => r.toolCallId), [
    "a",
    "b",
    "c",
    "d",
    "e",
    "f",
  ]);
  assert.deepEqual(out.messages.map((m) => m.role), history.map((m) => m.role));
});

Deno.test("pruneToolResults() does not change the messages it is given", () => {
  const history: Message[] = [
    user("go"),
    ...turn({
      id: "w",
      name: "write",
      args: { path: "a", content: "z".repeat(5000) },
      content: codeText(3000),
    }),
    ...turn({ id: "r", content: codeText(3000), details: { lines: 60 } }),
  ];
  const snapshot = structuredClone(history);
  const items = [...history];
  const out = pruneToolResults(history, { keepRecentTokens: 0, targetTokens: 0 });
  assert.equal(out.pruned, 2);
  assert.notEqual(out.messages, history);
  assert.deepEqual(history, snapshot);
  history.forEach((message, i) => assert.equal(message, items[i]));
});

Deno.test("argumentsPreview() clips long strings at 120 characters and the whole at 300", () => {
  assert.equal(argumentsPreview({ path: "a.ts" }), '{"path":"a.ts"}');
  assert.equal(argumentsPreview({ text: "x".repeat(200) }), `{"text":"${"x".repeat(120)}…"}`);
  const many = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`k${i}`, "y".repeat(100)]));
  const preview = argumentsPreview(many);
  assert.equal(preview.length, 301);
  assert.ok(preview.endsWith("…"));
  assert.equal(argumentsPreview(undefined), "");
});
