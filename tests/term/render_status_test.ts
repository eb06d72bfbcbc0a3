import assert from "node:assert/strict";
import type { AgentEvent } from "../../src/agent/mod.ts";
import { emptyUsage } from "../../src/model/types.ts";
import type { RunSummary } from "../../src/report/mod.ts";
import { formatElapsed, spinnerText } from "../../src/term/render/_screen.ts";
import { shortTokens, statusLine } from "../../src/term/render/_status.ts";
import type { TextRendererOptions } from "../../src/term/render/mod.ts";
import { capturedRenderer, summary as answered } from "./_renderer.ts";
import { createManualClock } from "../support/manual_clock.ts";

/** A renderer on a stderr TTY with a manual clock (stdout piped unless `over` says otherwise). */
function renderer(over: Partial<TextRendererOptions> = {}) {
  const clock = createManualClock();
  const { r, out } = capturedRenderer({ stderrIsTty: true, clock, ...over });
  /** The text of the spinner's last drawn frame (without its glyph). */
  const frame = () =>
    (out.stderr.split("\r\x1b[K").filter((f) => f !== "").at(-1) ?? "").replace(
      /^[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] /,
      "",
    );
  return { r, out, clock, frame };
}

const summary = (over: Partial<RunSummary> = {}): RunSummary =>
  answered({ text: "Done.", ...over });

const reply = (inputTokens: number, outputTokens: number, cachedTokens = 0): AgentEvent => ({
  type: "message_end",
  message: {
    role: "assistant",
    blocks: [{ type: "text", text: "Done." }],
    stopReason: "stop",
    usage: {
      inputTokens,
      outputTokens,
      cachedTokens,
      totalTokens: inputTokens + outputTokens,
    },
  },
});

Deno.test("the spinner shows how long the model has been thinking: 0s, then 1m 05s", () => {
  const { r, clock, frame } = renderer();
  clock.tick(1000);
  r.event({ type: "turn_start", turn: 1 });
  assert.equal(frame(), "thinking… · 0s");
  clock.tick(65_000);
  assert.equal(frame(), "thinking… · 1m 05s");
  r.dispose();
});

Deno.test("the spinner counts the tokens the model streams, and says it is answering", () => {
  const { r, clock, frame } = renderer();
  r.event({ type: "turn_start", turn: 1 });
  r.event({ type: "thinking_delta", delta: "x".repeat(40) });
  clock.tick(3000);
  assert.equal(frame(), "thinking… · 3s · ~10 tokens");
  r.event({ type: "text_delta", delta: "y".repeat(4000) });
  clock.tick(80);
  assert.equal(frame(), "answering… · 3s · ~1,010 tokens");
  // The next request starts again from nothing.
  r.event(reply(10, 10));
  r.event({ type: "turn_start", turn: 2 });
  assert.equal(frame(), "thinking… · 0s");
  r.dispose();
});

Deno.test("the spinner shows the running call and the time since it started running", () => {
  const { r, clock, frame } = renderer();
  r.event({ type: "turn_start", turn: 1 });
  clock.tick(2000);
  r.event({ type: "tool_start", toolCallId: "c1", name: "bash", args: { command: "npm test" } });
  clock.tick(80);
  assert.equal(frame(), "bash npm test · 0s");
  // Queued first: the time counts from its start.
  clock.tick(10_000);
  r.event({ type: "tool_running", toolCallId: "c1", name: "bash" });
  clock.tick(3000);
  assert.equal(frame(), "bash npm test · 3s");
  r.dispose();
});

Deno.test("spinnerText() cuts the label, not the time or the tokens", () => {
  const text = spinnerText(`bash echo ${"y".repeat(100)}`, { elapsedMs: 65_000, tokens: 12 }, 40);
  assert.equal([...text].length, 40);
  assert.match(text, /^bash echo y+… · 1m 05s · ~12 tokens$/);
  // Too narrow for both: one cut line.
  assert.equal([...spinnerText("thinking…", { elapsedMs: 0, tokens: 99_999 }, 17)].length, 17);
  assert.equal(formatElapsed(59_999), "59s");
  assert.equal(formatElapsed(3_725_000), "1h 02m");
});

const usage = { inputTokens: 3210, outputTokens: 420, cachedTokens: 1000, totalTokens: 3630 };

Deno.test("statusLine() tells model, context used, tokens, and the cost only when prices are set", () => {
  assert.equal(
    statusLine({ model: "gpt-4.1", window: 128_000, contextTokens: 15_360, usage, cost: 0.01234 }),
    "gpt-4.1 · context 12% of 128k · tokens: 3,210 in (1,000 cached) · 420 out · cost 0.01234",
  );
  assert.equal(
    statusLine({ model: "gpt-4.1", window: 1_047_576, contextTokens: 3630, usage }),
    "gpt-4.1 · context <1% of 1M · tokens: 3,210 in (1,000 cached) · 420 out",
  );
  // An unknown window: the tokens it holds.
  assert.equal(
    statusLine({ model: "local", contextTokens: 3630, usage: { ...usage, cachedTokens: 0 } }),
    "local · context 3,630 (window unknown) · tokens: 3,210 in · 420 out",
  );
  // No usage reported: the model alone; off a terminal (no model) nothing.
  assert.equal(
    statusLine({ model: "m", window: 8192, contextTokens: 0, usage: emptyUsage() }),
    "m",
  );
  assert.equal(statusLine({ contextTokens: 0, usage: emptyUsage() }), null);
  assert.deepEqual([900, 8192, 200_000, 1_500_000].map(shortTokens), ["900", "8k", "200k", "1.5M"]);
});

Deno.test("createTextRenderer() with statusLine ends each run with a dim status line", () => {
  const { r, out } = renderer({ statusLine: true, color: true });
  r.event({ type: "turn_start", turn: 1 });
  r.event(reply(10_000, 240));
  r.event({ type: "turn_start", turn: 2 });
  r.event(reply(12_000, 800, 9000));
  r.end(summary({ usage: usage, model: "gpt-4.1", contextWindow: 128_000, cost: 0.5 }));
  assert.ok(
    out.stderr.endsWith(
      "\x1b[2mgpt-4.1 · context 10% of 128k · tokens: 3,210 in (1,000 cached) · 420 out · " +
        "cost 0.5\x1b[0m\n",
    ),
    JSON.stringify(out.stderr.slice(-200)),
  );

  // Off a terminal the line is the usage alone, as before; without statusLine, no line.
  const plain = renderer({ statusLine: true, stderrIsTty: false });
  plain.r.event(reply(100, 5));
  plain.r.end(summary({ usage, model: "gpt-4.1", contextWindow: 128_000 }));
  assert.equal(plain.out.stderr, "tokens: 3,210 in (1,000 cached) · 420 out\n");
  const off = renderer({ stderrIsTty: false });
  off.r.end(summary({ usage, model: "gpt-4.1" }));
  assert.equal(off.out.stderr, "");
});
