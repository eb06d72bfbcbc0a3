// deno-lint-ignore-file no-control-regex
import assert from "node:assert/strict";
import type { AgentEvent } from "../../src/agent/mod.ts";
import type { TextRendererOptions } from "../../src/term/render/mod.ts";
import { capturedRenderer, summary as answered } from "./_renderer.ts";
import * as markdown from "../../src/term/markdown.ts";
import type { RunSummary } from "../../src/report/mod.ts";
import { emptyUsage } from "../../src/model/types.ts";
import { createManualClock } from "../cli/_fakes.ts";

const strip = (text: string): string => text.replace(/\x1b\[[0-9;]*m/g, "");

const ANSWER = "# Plan\n\nSome **bold** words.\n\n- first item\n- second item\n\n```ts\n" +
  'const a = "x";\n```\n\nDone.\n';

const END: AgentEvent = {
  type: "message_end",
  message: { role: "assistant", blocks: [], stopReason: "stop", usage: emptyUsage() },
};

// The spinner is on the terminal: its last draw was not cleared.
const spinnerShown = (stderr: string): boolean => /\r\x1b\[K[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] [^\n\r]*$/.test(stderr);

const summary = (text: string): RunSummary => answered({ text });

/** An interactive renderer on a terminal (stdout a TTY) whose answers are rendered as markdown. */
function renderer(
  over: Partial<TextRendererOptions> = {},
  md: { color?: boolean; module?: Promise<typeof markdown> } = {},
) {
  return capturedRenderer({
    stdoutIsTty: true,
    interactive: true,
    columns: () => 60,
    markdown: { module: md.module ?? Promise.resolve(markdown), color: md.color ?? true },
    ...over,
  });
}

/** The answer in small pieces (cut inside words, markers and fences). */
function pieces(text: string, size = 3): AgentEvent[] {
  const events: AgentEvent[] = [];
  for (let i = 0; i < text.length; i += size) {
    events.push({ type: "text_delta", delta: text.slice(i, i + size) });
  }
  return events;
}

/** Lets the renderer see a module that has just loaded (its handler runs before this resolves). */
const loaded = () => Promise.resolve(markdown).then(() => {});

Deno.test("an interactive answer on a terminal streams rendered as markdown: heading, list, code", async () => {
  const { r, out } = renderer();
  await loaded();
  r.event({ type: "turn_start", turn: 1 });
  r.event({ type: "message_start" });
  for (const e of pieces(ANSWER)) r.event(e);
  r.event(END);
  r.end(summary(ANSWER));
  r.dispose();
  const whole = markdown.renderMarkdown(ANSWER, { width: 60, color: true });
  assert.equal(out.stdout, `${whole.join("\n")}\n`);
  const lines = strip(out.stdout).split("\n");
  assert.equal(lines[0], "Plan");
  assert.ok(lines.includes("Some bold words."), out.stdout);
  assert.ok(lines.includes("• first item") && lines.includes("• second item"), out.stdout);
  assert.ok(lines.includes('const a = "x";'), out.stdout);
  assert.match(out.stdout, /\x1b\[1m.*Plan/);
  assert.match(out.stdout, /\x1b\[35mconst\x1b\[39m/);
  assert.ok(!out.stdout.includes("**") && !out.stdout.includes("# "), out.stdout);
});

Deno.test("an answer rendered under NO_COLOR holds no escape byte but is still laid out", async () => {
  const { r, out } = renderer({}, { color: false });
  await loaded();
  for (const e of pieces(ANSWER, 5)) r.event(e);
  r.event(END);
  r.end(summary(ANSWER));
  assert.ok(!out.stdout.includes("\x1b"), JSON.stringify(out.stdout));
  assert.equal(
    out.stdout,
    `${markdown.renderMarkdown(ANSWER, { width: 60, color: false }).join("\n")}\n`,
  );
  assert.match(out.stdout, /^• first item$/m);
});

Deno.test("text that arrives before the markdown module has loaded waits for it, then is rendered", async () => {
  let resolve!: (m: typeof markdown) => void;
  const module = new Promise<typeof markdown>((r) => resolve = r);
  const clock = createManualClock();
  const { r, out } = renderer({ stderrIsTty: true, clock }, { module });
  r.event({ type: "turn_start", turn: 1 });
  for (const e of pieces("# Title\n\n- one\n- tw")) r.event(e);
  assert.equal(out.stdout, "");
  assert.ok(spinnerShown(out.stderr), "the spinner stays while nothing is written");
  resolve(markdown);
  await module;
  assert.equal(strip(out.stdout), "Title\n");
  r.event({ type: "text_delta", delta: "o\n" });
  assert.equal(strip(out.stdout), "Title\n\n• one\n");
  r.event(END);
  assert.equal(strip(out.stdout), "Title\n\n• one\n• two\n");
  r.dispose();
});

Deno.test("an answer that ends before the markdown module has loaded is written as the model wrote it", async () => {
  let resolve!: (m: typeof markdown) => void;
  const module = new Promise<typeof markdown>((r) => resolve = r);
  const { r, out } = renderer({}, { module });
  for (const e of pieces("# Title\n\n- one")) r.event(e);
  r.event(END);
  assert.equal(out.stdout, "# Title\n\n- one\n");
  resolve(markdown);
  await module;
  // The next message is rendered.
  for (const e of pieces("## Next\n")) r.event(e);
  r.event(END);
  assert.equal(strip(out.stdout), "# Title\n\n- one\nNext\n");
  r.dispose();
});

Deno.test("the spinner stays until the first rendered line; a note never cuts a rendered line", async () => {
  const clock = createManualClock();
  const { r, out } = renderer({ stderrIsTty: true, clock });
  await loaded();
  r.event({ type: "turn_start", turn: 1 });
  r.event({ type: "text_delta", delta: "A paragraph that is not" });
  // Nothing is on stdout's line yet: the note shows at once, and the spinner again after it.
  r.note?.("queued: next request");
  assert.match(out.stderr, /queued: next request\n/);
  assert.ok(spinnerShown(out.stderr), JSON.stringify(out.stderr));
  r.event({ type: "text_delta", delta: " complete yet" });
  assert.equal(out.stdout, "");
  assert.ok(spinnerShown(out.stderr), JSON.stringify(out.stderr));
  const before = out.stderr.length;
  r.event({ type: "text_delta", delta: ".\n\nSecond" });
  assert.equal(strip(out.stdout), "A paragraph that is not complete yet.\n");
  assert.ok(out.stderr.slice(before).endsWith("\r\x1b[K"), "the spinner is cleared for the line");
  r.note?.("another");
  assert.ok(out.stderr.endsWith("another\n"), JSON.stringify(out.stderr));
  r.event({ type: "text_delta", delta: " one.\n" });
  r.event(END);
  assert.equal(strip(out.stdout), "A paragraph that is not complete yet.\n\nSecond one.\n");
  r.dispose();
});

Deno.test("streamed thinking stays dimmed on stderr before a rendered answer", async () => {
  const { r, out } = renderer({ color: true });
  await loaded();
  r.event({ type: "thinking_delta", delta: "let me see" });
  r.event({ type: "text_delta", delta: "- a\n" });
  r.event(END);
  assert.equal(out.stderr, "\x1b[2mlet me see\x1b[0m\n");
  assert.equal(strip(out.stdout), "• a\n");
  r.dispose();
});
