import assert from "node:assert/strict";
import {
  type ContextState,
  createContextKeeper,
  createContextState,
  requestBudget,
} from "../../../src/agent/compaction/keeper.ts";
import {
  estimateFixedTokens,
  estimateMessagesTokens,
} from "../../../src/agent/compaction/estimate.ts";
import { isPrunedResult } from "../../../src/agent/compaction/prune.ts";
import { isSummaryMessage, SUMMARY_INSTRUCTIONS } from "../../../src/agent/compaction/summary.ts";
import { summaryTokens } from "../../../src/agent/compaction/compact.ts";
import {
  type AssistantMessage,
  emptyUsage,
  type Message,
  ModelError,
  type ModelRequest,
  type Usage,
} from "../../../src/model/types.ts";
import type { OverflowInfo } from "../../../src/model/context_window.ts";
import { assertHistoryAcceptable } from "../../support/history_check.ts";
import { createManualClock } from "../../support/manual_clock.ts";
import { scripted, ScriptedModelClient } from "../../support/scripted_model.ts";
import { eventLog, until } from "../_helpers.ts";
import { codeText, readingHistory, resultsOf, says, turn, user } from "./_fixtures.ts";

const SYSTEM = "You are a test.";
const FIXED = estimateFixedTokens(SYSTEM, []);

function setup(state: ContextState, model = new ScriptedModelClient()) {
  const log = eventLog();
  const clock = createManualClock();
  const keeper = createContextKeeper({
    state,
    model,
    system: SYSTEM,
    tools: [],
    clock,
    emit: log.onEvent,
  });
  return { keeper, log, clock, model };
}

const raw = (history: readonly Message[]) => FIXED + estimateMessagesTokens(history);

function usage(input: number, output = 50): Usage {
  return { ...emptyUsage(), inputTokens: input, outputTokens: output, totalTokens: input + output };
}

function replyWith(inputTokens: number): AssistantMessage {
  return scripted.toolCalls([{ id: "next", name: "read", args: { path: "next.ts" } }], {
    usage: usage(inputTokens),
  });
}

/** Twelve exchanges of a request and a long text answer: nothing for pruning to remove. */
function talkHistory(): Message[] {
  const history: Message[] = [];
  for (let i = 1; i <= 12; i++) {
    history.push(user(`Request ${i}: ${"r".repeat(300)}`), says(`Answer ${i}: ${codeText(2000)}`));
  }
  return history;
}

function overflow(info: OverflowInfo, message = "too long"): ModelError {
  return new ModelError("context_overflow", message, { status: 400, overflow: info });
}

function requestText(request: ModelRequest | undefined): string {
  const first = request?.messages[0];
  assert.ok(first?.role === "user" && typeof first.content === "string");
  return first.content;
}

const SUMMARY = '## User requests\n"Request 1"\n## Next step\nAnswer request 11.';

Deno.test("requestBudget() leaves room for the reply and a margin", () => {
  // A fifth of the window (at most 16 384) for the reply, 2 % (at least 128) as a margin.
  assert.equal(requestBudget(8000), 8000 - 1600 - 160);
  assert.equal(requestBudget(4000), 4000 - 800 - 128);
  assert.equal(requestBudget(100_000), 100_000 - 16_384 - 2000);
  assert.equal(requestBudget(200_000), 200_000 - 16_384 - 4000);
  // A given output budget is reserved instead, up to half the window.
  assert.equal(requestBudget(8000, 1000), 8000 - 1000 - 160);
  assert.equal(requestBudget(8000, 10_000), 8000 - 4000 - 160);
  assert.equal(requestBudget(128_000, 32_000), 128_000 - 32_000 - 2560);
});

Deno.test("createContextState() starts uncalibrated, with the window when known", () => {
  assert.deepEqual(createContextState(), { calibration: 1 });
  assert.deepEqual(createContextState({ window: 8000, source: "flag" }), {
    calibration: 1,
    window: 8000,
    source: "flag",
  });
});

Deno.test("tokens() is the calibrated estimate of system prompt and messages before any reply", () => {
  const state = createContextState();
  const { keeper } = setup(state);
  const history = readingHistory(2, 3000);
  assert.equal(keeper.tokens(history), raw(history));
  state.calibration = 1.5;
  assert.equal(keeper.tokens(history), Math.ceil(raw(history) * 1.5));
});

Deno.test("tokens() is anchored on the prompt tokens reported for the last reply", () => {
  const state = createContextState({ window: 100_000, source: "flag" });
  const { keeper } = setup(state);
  const history = readingHistory(2, 3000);
  const sent = raw(history);
  const reply = replyWith(Math.round(sent * 1.25));
  history.push(reply);
  keeper.observeReply(history, reply);

  assert.equal(state.calibration, Math.round(sent * 1.25) / sent);
  assert.equal(
    keeper.tokens(history),
    Math.round(sent * 1.25) + Math.ceil(estimateMessagesTokens([reply]) * state.calibration),
  );
  const [, result] = turn({ id: "next", content: codeText(1500) });
  history.push(result);
  assert.equal(
    keeper.tokens(history),
    Math.round(sent * 1.25) +
      Math.ceil(estimateMessagesTokens([reply, result]) * state.calibration),
  );
  // Another array (another run's history) is not what was reported: the estimate counts it.
  const copy = [...history];
  assert.equal(keeper.tokens(copy), Math.ceil(raw(copy) * state.calibration));
});

Deno.test("observeReply() without reported prompt tokens keeps the estimate; calibration never drops below 1", () => {
  const state = createContextState({ window: 100_000, source: "flag" });
  const { keeper } = setup(state);
  const history = readingHistory(2, 3000);
  const silent = replyWith(0);
  history.push(silent);
  keeper.observeReply(history, silent);
  assert.equal(state.anchor, undefined);
  assert.equal(state.calibration, 1);

  const low = replyWith(100);
  history.push(...turn({ id: "next", content: "ok" }).slice(1), low);
  keeper.observeReply(history, low);
  assert.equal(state.calibration, 1);
  const anchor = (s: ContextState) => s.anchor;
  assert.equal(anchor(state)?.tokens, 100);
  assert.equal(anchor(state)?.messages, history.length - 1);
});

Deno.test("tokens() falls back to the calibrated estimate once a compaction replaced the history", async () => {
  const state = createContextState({ window: 8000, source: "flag" });
  const { keeper } = setup(state);
  const history = readingHistory(6, 3000);
  const sent = raw(history);
  // The server counted 10 % more than the estimate.
  const reply = replyWith(Math.round(sent * 1.1));
  history.push(reply);
  keeper.observeReply(history, reply);
  history.push(turn({ id: "next", content: codeText(3000) })[1]);
  const calibration = state.calibration;
  assert.ok(calibration > 1.05);

  const fit = await keeper.fit(history, {
    reason: "threshold",
    signal: new AbortController().signal,
  });
  assert.equal(fit.type, "fits");
  assert.equal(state.anchor, undefined);
  assert.equal(state.calibration, calibration);
  assert.equal(keeper.tokens(history), Math.ceil(raw(history) * calibration));
});

Deno.test("fit() does nothing while the window is unknown", async () => {
  const { keeper, log, model } = setup(createContextState());
  const history = readingHistory(40, 3000);
  const before = [...history];
  const fit = await keeper.fit(history, {
    reason: "threshold",
    signal: new AbortController().signal,
  });
  assert.deepEqual(fit, { type: "fits", modelCalls: 0, usage: emptyUsage() });
  assert.deepEqual(history, before);
  assert.equal(log.events.length, 0);
  assert.equal(model.requests.length, 0);
});

Deno.test("fit() with reason threshold does nothing below the budget", async () => {
  const { keeper, log } = setup(createContextState({ window: 8000, source: "flag" }));
  const history = readingHistory(5, 3000);
  assert.ok(keeper.tokens(history) <= requestBudget(8000));
  const before = [...history];
  const fit = await keeper.fit(history, {
    reason: "threshold",
    signal: new AbortController().signal,
  });
  assert.deepEqual(fit, { type: "fits", modelCalls: 0, usage: emptyUsage() });
  history.forEach((m, i) => assert.equal(m, before[i]));
  assert.equal(log.events.length, 0);
});

Deno.test("fit() prunes old tool results in place, without a model call, when that is enough", async () => {
  const { keeper, log, model } = setup(createContextState({ window: 8000, source: "flag" }));
  const history = readingHistory(6, 3000);
  const original = [...history];
  const tokensBefore = keeper.tokens(history);
  assert.ok(tokensBefore > requestBudget(8000));

  const fit = await keeper.fit(history, {
    reason: "threshold",
    signal: new AbortController().signal,
  });
  assert.deepEqual(fit, { type: "fits", modelCalls: 0, usage: emptyUsage() });
  assert.equal(model.requests.length, 0);
  assert.equal(history.length, original.length);
  assert.deepEqual(resultsOf(history).map(isPrunedResult), [true, true, true, true, false, false]);
  assert.equal(history[12], original[12]);
  assertHistoryAcceptable(history);
  assert.ok(keeper.tokens(history) <= requestBudget(8000));

  assert.deepEqual(log.events.map((e) => e.type), ["compaction_start", "compaction_end"]);
  assert.deepEqual(log.of("compaction_start")[0], {
    type: "compaction_start",
    reason: "threshold",
    tokens: tokensBefore,
    window: 8000,
  });
  const end = log.of("compaction_end")[0];
  assert.deepEqual(end, {
    type: "compaction_end",
    reason: "threshold",
    outcome: "compacted",
    method: "prune",
    modelCalls: 0,
    usage: emptyUsage(),
    tokensBefore,
    tokensAfter: keeper.tokens(history),
    messagesBefore: 13,
    messagesAfter: 13,
    durationMs: 0,
    window: 8000,
    messages: history,
  });
  assert.ok(end.tokensBefore > end.tokensAfter);
  // The event holds a copy: later pushes do not change what a session recorded.
  assert.notEqual(end.messages, history);
});

Deno.test("fit() summarises with one tool-less request when pruning is not enough", async () => {
  const replyUsage = usage(3000, 120);
  const state = createContextState({ window: 8000, source: "flag" });
  const { keeper, log, clock, model } = setup(
    state,
    new ScriptedModelClient([() => {
      clock.tick(250);
      return scripted.text(SUMMARY, { usage: replyUsage });
    }]),
  );
  const history = talkHistory();
  const original = [...history];
  const tokensBefore = keeper.tokens(history);

  const fit = await keeper.fit(history, {
    reason: "threshold",
    signal: new AbortController().signal,
  });
  assert.deepEqual(fit, { type: "fits", modelCalls: 1, usage: replyUsage });

  // The one request: the summary instructions, no tools, the head of the history as transcript.
  assert.equal(model.requests.length, 1);
  const request = model.requests[0];
  assert.deepEqual(request?.tools, []);
  assert.equal(request?.system, SUMMARY_INSTRUCTIONS);
  assert.equal(request?.maxOutputTokens, summaryTokens(8000));
  assert.match(requestText(request), /\[User\]\nRequest 1: r+/);
  assert.doesNotMatch(requestText(request), /Request 12:/);

  // Kept user messages, the summary, then the tail exactly as it was.
  const at = history.findIndex(isSummaryMessage);
  assert.ok(at >= 1);
  const summary = history[at];
  assert.ok(summary !== undefined && isSummaryMessage(summary));
  assert.ok(String(summary.content).endsWith(SUMMARY));
  const kept = history.slice(0, at);
  assert.equal(kept[0], original[0]);
  assert.ok(kept.every((m) => m.role === "user"));
  const positions = kept.map((m) => original.indexOf(m));
  assert.deepEqual(positions, [...positions].sort((a, b) => a - b));
  assert.ok(kept.length < 11, "older requests beyond the budget are left to the summary");
  const tail = history.slice(at + 1);
  assert.ok(tail.length >= 1);
  assert.equal(summary.compaction.messages + tail.length, original.length);
  assert.equal(
    summary.compaction.tokens,
    estimateMessagesTokens(original.slice(0, summary.compaction.messages)),
  );
  tail.forEach((m, i) => assert.equal(m, original[summary.compaction.messages + i]));
  assert.ok(keeper.tokens(history) <= requestBudget(8000));

  const end = log.of("compaction_end")[0];
  assert.equal(end?.outcome, "compacted");
  assert.equal(end?.method, "summary");
  assert.equal(end?.summary, SUMMARY);
  assert.equal(end?.modelCalls, 1);
  assert.deepEqual(end?.usage, replyUsage);
  assert.equal(end?.tokensBefore, tokensBefore);
  assert.ok((end?.tokensBefore ?? 0) > (end?.tokensAfter ?? Infinity));
  assert.equal(end?.messagesBefore, 24);
  assert.equal(end?.messagesAfter, history.length);
  assert.equal(end?.durationMs, 250);
  assert.deepEqual(end?.messages, history);
});

/** Old big results and long answers: pruning helps, but not enough. */
function mixedHistory(): Message[] {
  return [...readingHistory(3, 3000), ...talkHistory()];
}

Deno.test("fit() aborted during the summary request leaves the history unchanged and returns aborted", async () => {
  const { keeper, log, model } = setup(
    createContextState({ window: 8000, source: "flag" }),
    new ScriptedModelClient([scripted.hang()]),
  );
  const history = mixedHistory();
  const snapshot = structuredClone(history);
  const items = [...history];
  const controller = new AbortController();

  const pending = keeper.fit(history, { reason: "threshold", signal: controller.signal });
  await until(() => model.requests.length === 1, "the summary request");
  controller.abort();
  const fit = await pending;

  assert.deepEqual(fit, { type: "aborted", modelCalls: 1, usage: emptyUsage() });
  assert.deepEqual(history, snapshot);
  history.forEach((m, i) => assert.equal(m, items[i]));
  assertHistoryAcceptable(history);
  const end = log.of("compaction_end")[0];
  assert.equal(end?.outcome, "aborted");
  assert.equal(end?.messages, undefined);
  assert.equal(end?.messagesAfter, history.length);
});

Deno.test("fit() rejects with the summary request's ModelError and leaves the history unchanged", async () => {
  const error = new ModelError("server", "The server had an error (HTTP 502).", { status: 502 });
  const { keeper, log } = setup(
    createContextState({ window: 8000, source: "flag" }),
    new ScriptedModelClient([scripted.fail(error)]),
  );
  const history = mixedHistory();
  const snapshot = structuredClone(history);

  await assert.rejects(
    keeper.fit(history, { reason: "threshold", signal: new AbortController().signal }),
    (e) => e === error,
  );
  assert.deepEqual(history, snapshot);
  assertHistoryAcceptable(history);
  // The compaction still ends, so a UI never waits for it.
  assert.deepEqual(log.events.map((e) => e.type), ["compaction_start", "compaction_end"]);
  assert.equal(log.of("compaction_end")[0]?.outcome, "unchanged");
});

Deno.test("fit() retries a summary request that overflowed once, with half the transcript", async () => {
  const { keeper, model } = setup(
    createContextState({ window: 8000, source: "flag" }),
    new ScriptedModelClient([
      scripted.fail(overflow({ window: 8000, promptTokens: 9100 })),
      scripted.text(SUMMARY, { usage: usage(2000) }),
    ]),
  );
  const history = talkHistory();
  const fit = await keeper.fit(history, {
    reason: "threshold",
    signal: new AbortController().signal,
  });

  assert.equal(fit.type, "fits");
  assert.equal(fit.modelCalls, 2);
  assert.deepEqual(fit.usage, usage(2000));
  assert.equal(model.requests.length, 2);
  const first = requestText(model.requests[0]).length;
  const second = requestText(model.requests[1]).length;
  assert.ok(second < first * 0.6, `${second} vs ${first} characters`);
  assert.deepEqual(model.requests[1]?.tools, []);
  assert.ok(history.some(isSummaryMessage));
  assertHistoryAcceptable(history);
});

Deno.test("learnOverflow() takes the window from the error and raises the calibration from its prompt tokens", () => {
  const state = createContextState();
  const { keeper } = setup(state);
  const history = readingHistory(3, 3000);
  keeper.learnOverflow(history, overflow({ window: 8000, promptTokens: raw(history) * 2 }));
  assert.equal(state.window, 8000);
  assert.equal(state.source, "error");
  assert.ok(Math.abs(state.calibration - 2.1) < 1e-9, `${state.calibration}`);
  // A lower count never lowers the calibration.
  keeper.learnOverflow(history, overflow({ window: 8000, promptTokens: raw(history) }));
  assert.ok(Math.abs(state.calibration - 2.1) < 1e-9, `${state.calibration}`);
});

Deno.test("learnOverflow() keeps the smaller of a known window and the error's", () => {
  const history = readingHistory(3, 3000);
  const larger = createContextState({ window: 10_000, source: "flag" });
  setup(larger).keeper.learnOverflow(history, overflow({ window: 12_000 }));
  assert.equal(larger.window, 10_000);
  assert.equal(larger.source, "flag");
  const smaller = createContextState({ window: 10_000, source: "flag" });
  setup(smaller).keeper.learnOverflow(history, overflow({ window: 8000 }));
  assert.equal(smaller.window, 8000);
  assert.equal(smaller.source, "error");
});

Deno.test("learnOverflow() puts the window at what was sent minus the excess tokens", () => {
  const history = readingHistory(3, 3000);
  const state = createContextState();
  state.calibration = 1.2;
  setup(state).keeper.learnOverflow(history, overflow({ excessTokens: 500 }));
  assert.equal(state.window, Math.ceil(raw(history) * 1.2) - 500);
  assert.equal(state.source, "error");
  assert.equal(state.calibration, 1.2);
});

Deno.test("learnOverflow() with excess tokens below a flag's window says the window came from the error", async () => {
  const history = readingHistory(3, 3000);
  const flagged = createContextState({ window: 100_000, source: "flag" });
  const { keeper } = setup(flagged);
  keeper.learnOverflow(history, overflow({ excessTokens: 500 }));
  assert.equal(flagged.window, raw(history) - 500);
  assert.equal(flagged.source, "error");
  // So an exhausted run does not blame --context-window for a window the server implied.
  const fit = await keeper.fit([user("z".repeat(30_000))], {
    reason: "overflow",
    level: 1,
    signal: new AbortController().signal,
  });
  assert.ok(fit.type === "exhausted");
  assert.match(fit.message, /\(from the server's error\)/);

  // An excess that implies a larger window than the flag's changes nothing.
  const small = createContextState({ window: 1000, source: "config" });
  setup(small).keeper.learnOverflow(history, overflow({ excessTokens: 500 }));
  assert.equal(small.window, 1000);
  assert.equal(small.source, "config");
});

Deno.test("learnOverflow() without numbers guesses a window below what was sent", () => {
  const history = readingHistory(3, 3000);
  const unknown = createContextState();
  setup(unknown).keeper.learnOverflow(history, overflow({}));
  assert.equal(unknown.window, Math.floor(raw(history) * 0.75));
  assert.equal(unknown.source, "guess");

  // A window believed larger than the request was wrong.
  const believed = createContextState({ window: 100_000, source: "flag" });
  setup(believed).keeper.learnOverflow(history, overflow({}));
  assert.ok((believed.window ?? Infinity) < raw(history));
  assert.equal(believed.source, "guess");

  // Each further overflow guesses lower again, never below 256.
  const again = createContextState();
  const { keeper } = setup(again);
  keeper.learnOverflow(history, overflow({}));
  const first = again.window ?? 0;
  keeper.learnOverflow(history, overflow({}));
  assert.ok((again.window ?? Infinity) < first);
  const tiny = createContextState();
  setup(tiny).keeper.learnOverflow([user("hi")], overflow({}));
  assert.equal(tiny.window, 256);
});

Deno.test("learnOverflow() drops the anchor of the last reply", () => {
  const state = createContextState({ window: 100_000, source: "flag" });
  const { keeper } = setup(state);
  const history = readingHistory(2, 3000);
  const reply = replyWith(5000);
  history.push(reply);
  keeper.observeReply(history, reply);
  assert.ok(state.anchor !== undefined);
  keeper.learnOverflow(history, overflow({ window: 4000 }));
  assert.equal(state.anchor, undefined);
  assert.equal(keeper.tokens(history), Math.ceil(raw(history) * state.calibration));
});

Deno.test("fit() with reason overflow compacts even when the estimate says the request fits", async () => {
  const { keeper, log, model } = setup(createContextState({ window: 8000, source: "flag" }));
  const history = readingHistory(3, 3000);
  assert.ok(keeper.tokens(history) <= requestBudget(8000));
  const fit = await keeper.fit(history, {
    reason: "overflow",
    level: 1,
    signal: new AbortController().signal,
  });
  assert.deepEqual(fit, { type: "fits", modelCalls: 0, usage: emptyUsage() });
  assert.equal(model.requests.length, 0);
  assert.ok(resultsOf(history).some(isPrunedResult));
  assert.equal(log.of("compaction_end")[0]?.outcome, "compacted");
  assert.equal(log.of("compaction_end")[0]?.reason, "overflow");
});

Deno.test("fit() with reason overflow and nothing to remove is exhausted, naming the window", async () => {
  const { keeper, log, model } = setup(createContextState({ window: 4000, source: "flag" }));
  const history: Message[] = [user("x".repeat(30_000))];
  const fit = await keeper.fit(history, {
    reason: "overflow",
    level: 1,
    signal: new AbortController().signal,
  });
  assert.equal(fit.type, "exhausted");
  assert.ok(fit.type === "exhausted");
  assert.match(fit.message, /context window of 4,000 tokens \(from --context-window\)/);
  assert.match(fit.message, /about 10,0\d\d tokens by moat's estimate/);
  assert.match(fit.message, /set --context-window/);
  assert.equal(fit.modelCalls, 0);
  assert.equal(model.requests.length, 0);
  assert.equal(history.length, 1);
  const end = log.of("compaction_end")[0];
  assert.equal(end?.outcome, "exhausted");
  assert.equal(end?.method, undefined);
  assert.equal(end?.messages, undefined);
});

Deno.test("fit() with reason overflow is exhausted when even the compacted history is over the budget", async () => {
  const { keeper, log, model } = setup(
    createContextState({ window: 8000, source: "error" }),
    new ScriptedModelClient([scripted.text(SUMMARY), scripted.text(SUMMARY)]),
  );
  // The last message (waiting for its answer) alone is over the window.
  const history: Message[] = [...mixedHistory(), user("y".repeat(30_000))];
  const fit = await keeper.fit(history, {
    reason: "overflow",
    level: 1,
    signal: new AbortController().signal,
  });
  assert.equal(fit.type, "exhausted");
  assert.ok(fit.type === "exhausted");
  assert.match(fit.message, /context window of 8,000 tokens \(from the server's error\)/);
  assert.equal(fit.modelCalls, model.requests.length);
  assert.ok(fit.modelCalls >= 1);
  // What was compacted stays compacted, and valid; the pending message is kept.
  assert.ok(history.some(isSummaryMessage));
  assert.equal(history.at(-1)?.role, "user");
  assert.equal(String((history.at(-1) as { content: string }).content).length, 30_000);
  assertHistoryAcceptable(history);
  const end = log.of("compaction_end")[0];
  assert.equal(end?.outcome, "exhausted");
  assert.equal(end?.method, "summary");
  assert.deepEqual(end?.messages, history);
});

Deno.test("fit() with reason manual summarises even when pruning would do, with the focus", async () => {
  const { keeper, log, model } = setup(
    createContextState({ window: 8000, source: "flag" }),
    new ScriptedModelClient([scripted.text(SUMMARY)]),
  );
  const history: Message[] = [...readingHistory(3, 3000), says("Read them all.")];
  const fit = await keeper.fit(history, {
    reason: "manual",
    focus: "the read results",
    signal: new AbortController().signal,
  });
  assert.equal(fit.type, "fits");
  assert.equal(model.requests.length, 1);
  assert.match(requestText(model.requests[0]), /focus on: the read results/);
  assert.ok(history.some(isSummaryMessage));
  assertHistoryAcceptable(history);
  const end = log.of("compaction_end")[0];
  assert.equal(end?.reason, "manual");
  assert.equal(end?.method, "summary");
});

Deno.test("fit() with reason manual and an unknown window aims at 128 000 tokens", async () => {
  const { keeper, log, model } = setup(
    createContextState(),
    new ScriptedModelClient([scripted.text(SUMMARY)]),
  );
  const history: Message[] = [...readingHistory(40, 3000), says("Read them all.")];
  const fit = await keeper.fit(history, {
    reason: "manual",
    signal: new AbortController().signal,
  });
  assert.equal(fit.type, "fits");
  assert.equal(model.requests.length, 1);
  assert.ok(history.some(isSummaryMessage));
  const end = log.of("compaction_end")[0];
  assert.equal(end?.reason, "manual");
  assert.equal(end?.method, "summary");
  assert.equal(end?.window, 128_000);
});

Deno.test("fit() never makes the history larger: a summary longer than what it replaces is dropped", async () => {
  const { keeper, log } = setup(
    createContextState({ window: 128_000, source: "flag" }),
    new ScriptedModelClient([scripted.text("A long summary. ".repeat(500))]),
  );
  const history: Message[] = [user("remember 7"), says("Noted."), user("and 8"), says("Noted.")];
  const before = structuredClone(history);
  const fit = await keeper.fit(history, { reason: "manual", signal: new AbortController().signal });
  assert.equal(fit.type, "fits");
  assert.deepEqual(history, before);
  const end = log.of("compaction_end")[0];
  assert.equal(end?.outcome, "unchanged");
  assert.ok(end?.tokensAfter === end?.tokensBefore);
  assert.ok((end?.summaryLarger?.summaryTokens ?? 0) > (end?.summaryLarger?.replacedTokens ?? 0));
});
