import assert from "node:assert/strict";
import {
  charsForTokens,
  isSummaryMessage,
  keptUserMessages,
  SUMMARY_INSTRUCTIONS,
  summaryMessage,
  summaryRequest,
  tailStart,
  transcriptOf,
} from "../../../src/agent/compaction/summary.ts";
import {
  estimateMessagesTokens,
  estimateMessageTokens,
} from "../../../src/agent/compaction/estimate.ts";
import type { Message, UserMessage } from "../../../src/model/types.ts";
import { toChatParams } from "../../../src/model/openai/wire.ts";
import { codeText, says, turn, user } from "./_fixtures.ts";

const WIDE = { maxResultChars: 100_000, maxChars: 1_000_000 };

Deno.test("transcriptOf() writes users, replies, calls and results as labelled text", () => {
  const earlier = summaryMessage("## Done\nRead the README.", { messages: 4, tokens: 900 });
  const history: Message[] = [
    earlier,
    user("Fix the failing test"),
    {
      role: "assistant",
      blocks: [
        { type: "text", text: "Running it first." },
        { type: "toolCall", id: "c1", name: "bash", arguments: { command: "deno test" } },
      ],
      stopReason: "toolUse",
      usage: { inputTokens: 0, outputTokens: 0, cachedTokens: 0, totalTokens: 0 },
    },
    {
      role: "toolResult",
      results: [{ toolCallId: "c1", toolName: "bash", content: "1 failed", isError: true }],
    },
    says("   "),
    ...turn({
      id: "c2",
      name: "screenshot",
      args: {},
      content: [{ type: "text", text: "the page" }, {
        type: "image",
        data: "AAAA",
        mimeType: "image/png",
      }],
    }),
    user([{ type: "text", text: "Look at this" }, {
      type: "image",
      data: "BB",
      mimeType: "image/png",
    }]),
  ];
  assert.equal(
    transcriptOf(history, WIDE),
    [
      `[Summary of the conversation before this point]\n${earlier.content}`,
      "[User]\nFix the failing test",
      "[Assistant]\nRunning it first.",
      '[Tool call bash] {"command":"deno test"}',
      "[Tool result bash, error]\n1 failed",
      "[Tool call screenshot] {}",
      "[Tool result screenshot]\nthe page\n[image]",
      "[User]\nLook at this\n[image]",
    ].join("\n\n"),
  );
});

Deno.test("transcriptOf() clips each result to maxResultChars, keeping its head and tail", () => {
  const result = "HEAD" + "m".repeat(5000) + "TAIL";
  const text = transcriptOf([user("go"), ...turn({ id: "c1", content: result })], {
    maxResultChars: 1000,
    maxChars: 1_000_000,
  });
  assert.match(text, /\[Tool result read\]\nHEADm+\n\[… 4008 characters left out …\]\nm+TAIL$/);
  const kept = text.slice(text.indexOf("[Tool result read]\n") + 19).replace(/\n\[….*…\]\n/, "");
  assert.equal(kept.length, 1000);
});

Deno.test("transcriptOf() leaves out the middle when the whole is longer than maxChars", () => {
  const history: Message[] = [user("FIRST REQUEST")];
  for (let i = 0; i < 20; i++) history.push(...turn({ id: `c${i}`, content: codeText(900) }));
  history.push(says("LAST REPLY"));
  const full = transcriptOf(history, WIDE);
  const text = transcriptOf(history, { maxResultChars: 100_000, maxChars: 4000 });
  assert.ok(full.length > 4000);
  assert.ok(text.startsWith("[User]\nFIRST REQUEST"));
  assert.ok(text.endsWith("[Assistant]\nLAST REPLY"));
  assert.match(text, new RegExp(`\\[… ${full.length - 4000} characters left out …\\]`));
  assert.ok(text.length <= 4000 + 60, `${text.length} characters`);
});

/** A history of turns with results of different sizes, and text replies in between. */
function workHistory(): Message[] {
  return [
    user("Refactor the parser"),
    ...turn({ id: "a", content: codeText(3000) }),
    says("The parser is in src/parse.ts."),
    ...turn({ id: "b", content: codeText(600) }, { id: "c", content: codeText(1200) }),
    user("Keep the public API"),
    ...turn({ id: "d", content: codeText(2400) }),
    ...turn({ id: "e", content: codeText(300) }),
    says("Done."),
  ];
}

Deno.test("tailStart() never starts the tail on a tool result, and the tail fits keepTokens", () => {
  const history = workHistory();
  const total = estimateMessagesTokens(history);
  let starts = 0;
  for (let keep = 0; keep <= total + 10; keep += 7) {
    const start = tailStart(history, keep);
    assert.ok(start >= 0 && start <= history.length, `start ${start} for ${keep}`);
    if (start < history.length) {
      assert.notEqual(history[start]?.role, "toolResult", `start ${start} for ${keep}`);
      starts++;
    }
    assert.ok(estimateMessagesTokens(history.slice(start)) <= keep, `start ${start} for ${keep}`);
    // The earliest boundary that fits: the boundary before it would not.
    const previous = history.slice(0, start).findLastIndex((m) => m.role !== "toolResult");
    if (previous >= 0) assert.ok(estimateMessagesTokens(history.slice(previous)) > keep);
  }
  assert.ok(starts > 5);
  assert.equal(tailStart(history, total), 0);
  assert.equal(tailStart(history, 0), history.length);
});

Deno.test("tailStart() always keeps a user message at the end, whatever its size", () => {
  const history: Message[] = [...workHistory(), user("x".repeat(30_000))];
  assert.equal(tailStart(history, 0), history.length - 1);
  assert.equal(tailStart(history, 100), history.length - 1);
  // Room for more: the tail grows to earlier boundaries as usual.
  const withReply = tailStart(history, estimateMessagesTokens(history.slice(-2)));
  assert.equal(withReply, history.length - 2);
});

Deno.test("tailStart() does not start the tail on an earlier summary message", () => {
  const history: Message[] = [
    user("task"),
    summaryMessage("## Done\nmost of it", { messages: 10, tokens: 5000 }),
    says("Continuing."),
  ];
  assert.equal(tailStart(history, estimateMessagesTokens(history.slice(1))), 2);
  assert.equal(tailStart(history, estimateMessagesTokens(history)), 0);
});

Deno.test("keptUserMessages() keeps the first and the most recent messages that fit, in order", () => {
  const u = (n: number) => user(`request ${n}: ${"w".repeat(290)}`);
  const users = [1, 2, 3, 4, 5].map(u);
  const head: Message[] = [];
  users.forEach((message, i) => head.push(message, ...turn({ id: `c${i}`, content: "ok" })));
  const each = estimateMessageTokens(users[0] as UserMessage);
  assert.deepEqual(keptUserMessages(head, 3 * each), [users[0], users[3], users[4]]);
  assert.deepEqual(keptUserMessages(head, 3 * each - 1), [users[0], users[4]]);
  assert.deepEqual(keptUserMessages(head, 100 * each), users);
  // The first one (the task) stays even when nothing fits.
  assert.deepEqual(keptUserMessages(head, 0), [users[0]]);
  assert.deepEqual(keptUserMessages([says("hi")], 1000), []);
});

Deno.test("keptUserMessages() skips summary messages", () => {
  const old = summaryMessage('## User requests\n"do it"', { messages: 8, tokens: 4000 });
  const task = user("do it");
  const later = user("also this");
  const head: Message[] = [
    old,
    task,
    says("ok"),
    summaryMessage("again", { messages: 3, tokens: 10 }),
    later,
  ];
  const kept = keptUserMessages(head, 10_000);
  assert.deepEqual(kept, [task, later]);
  assert.ok(kept.every((m) => !isSummaryMessage(m)));
});

Deno.test("summaryRequest() asks without tools, with the instructions and the transcript", () => {
  const request = summaryRequest("[User]\nhello", { maxOutputTokens: 800 });
  assert.deepEqual(request.tools, []);
  assert.equal(request.system, SUMMARY_INSTRUCTIONS);
  assert.equal(request.maxOutputTokens, 800);
  assert.ok(!Object.hasOwn(request, "temperature"));
  assert.equal(request.messages.length, 1);
  const content = request.messages[0]?.role === "user" ? request.messages[0].content : undefined;
  assert.equal(
    content,
    "Summarise this conversation with the sections given.\n\n<conversation>\n[User]\nhello\n" +
      "</conversation>",
  );
  // On the wire: no tools at all.
  const wire = toChatParams(request, { model: "m" });
  assert.equal(wire.tools, undefined);
  assert.equal(wire.max_completion_tokens, 800);
});

Deno.test("summaryRequest() includes the focus, and the temperature when given", () => {
  const focused = summaryRequest("t", {
    maxOutputTokens: 512,
    focus: "  the parser API ",
    temperature: 0.2,
  });
  const text = focused.messages[0]?.role === "user" ? focused.messages[0].content : "";
  assert.match(
    String(text),
    /\n\nThe user asked the summary to focus on: the parser API\n\n<conversation>/,
  );
  assert.equal(focused.temperature, 0.2);
  const blank = summaryRequest("t", { maxOutputTokens: 512, focus: "   " });
  assert.doesNotMatch(
    String(blank.messages[0]?.role === "user" && blank.messages[0].content),
    /focus/,
  );
});

Deno.test("summaryMessage() is a user message marked as a compaction", () => {
  const message = summaryMessage("\n## Done\nAll of it.\n\n", { messages: 12, tokens: 3456 });
  assert.equal(message.role, "user");
  assert.deepEqual(message.compaction, { messages: 12, tokens: 3456 });
  assert.ok(
    String(message.content).endsWith("Continue the task from here.\n\n## Done\nAll of it."),
  );
  assert.ok(isSummaryMessage(message));
  assert.ok(!isSummaryMessage(user("## Done")));
  assert.ok(!isSummaryMessage(says("## Done")));
});

Deno.test("charsForTokens() is three characters a token, never negative", () => {
  assert.equal(charsForTokens(1000), 3000);
  assert.equal(charsForTokens(0.5), 1);
  assert.equal(charsForTokens(-5), 0);
});
