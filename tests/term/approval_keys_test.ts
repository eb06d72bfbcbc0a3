import assert from "node:assert/strict";
import { createKeyPrompter, wrapWords } from "../../src/term/approval_keys.ts";
import { createLineSource, createReplPrompter } from "../../src/cli/repl.ts";
import { approvalQuestion } from "../../src/policy/approve.ts";
import { createFakeTerminal } from "../cli/_fakes.ts";

const request = {
  toolName: "edit",
  location: { access: "write" as const, path: "/w/src/hello.txt" },
  question: approvalQuestion("edit", { access: "write", path: "/w/src/hello.txt" }),
};

/** A key prompter whose keys the test presses, at `width` columns. */
function keys(width = 80) {
  const pressed: Array<string | null> = [];
  let wake: (() => void) | undefined;
  const state = { out: "", width };
  const resized = new Set<() => void>();
  const prompter = createKeyPrompter({
    onResize(listener) {
      resized.add(listener);
      return () => resized.delete(listener);
    },
    async readKey() {
      while (pressed.length === 0) await new Promise<void>((resolve) => wake = resolve);
      return pressed.shift() as string | null;
    },
    write: (text) => void (state.out += text),
    columns: () => state.width,
  });
  const press = (key: string | null) => {
    pressed.push(key);
    wake?.();
  };
  /** The window is now `columns` wide (SIGWINCH). */
  const resize = (columns: number) => {
    state.width = columns;
    for (const listener of resized) listener();
  };
  return { prompter, press, state, resize, listening: () => resized.size };
}

Deno.test("createKeyPrompter() answers with one key, ignores other keys and echoes the choice", async () => {
  for (
    const [key, answer, echo] of [
      ["y", "once", "yes, once"],
      ["a", "always", "always"],
      ["d", "directory", "directory"],
      ["n", "deny", "no"],
      ["enter", "deny", "no"],
      ["A", "always", "always"],
    ] as const
  ) {
    const k = keys();
    const asked = k.prompter.ask(request);
    // Keys that answer nothing are ignored, whatever they are.
    k.press("x");
    k.press(" ");
    k.press(key);
    assert.equal(await asked, answer, key);
    assert.ok(k.state.out.endsWith(`[N]o (Enter) → ${echo}\n`), JSON.stringify(k.state.out));
  }
});

Deno.test("createKeyPrompter() denies at end of input and offers d only for a path", async () => {
  const k = keys();
  const ended = k.prompter.ask(request);
  k.press(null);
  assert.equal(await ended, "deny");
  const run = keys();
  const asked = run.prompter.ask({
    toolName: "bash",
    location: { access: "run", program: "curl" },
    question: approvalQuestion("bash", { access: "run", program: "curl" }),
  });
  run.press("d");
  run.press("y");
  assert.equal(await asked, "once");
});

Deno.test("createKeyPrompter() wraps the question at word boundaries to the terminal width", async () => {
  const k = keys(40);
  const asked = k.prompter.ask(request);
  k.press("n");
  await asked;
  const lines = k.state.out.split("\n").filter((l) => l !== "");
  assert.ok(lines.length > 2, k.state.out);
  for (const line of lines.slice(0, -1)) assert.ok(line.length <= 40, line);
  // No word is cut: the lines joined again are the question.
  assert.equal(lines.join(" ").replace(/ → no$/, ""), `${request.question}`);
  assert.equal(wrapWords("a b c", 0), "a b c");
});

Deno.test("createReplPrompter() asks for one key on a line editor and for a typed line when piped", async () => {
  // On a line editor: the source gives keys.
  const terminal = createFakeTerminal();
  const pressed = ["a"];
  const control = {
    attend: () => {},
    detach: () => {},
    setBusy: () => {},
    close: () => {},
    readKey: () => Promise.resolve(pressed.shift() ?? null),
  };
  let out = "";
  const tty = createReplPrompter(
    createLineSource(terminal.readLines(), control),
    (t) => void (out += t),
  );
  assert.equal(await tty.ask(request), "always");
  assert.match(out, /→ always\n$/);
  terminal.endInput();
  // Piped: a typed line answers, as before (a lone "a" then Enter).
  const piped = createFakeTerminal();
  let said = "";
  const lines = createReplPrompter(createLineSource(piped.readLines()), (t) => void (said += t));
  const answer = lines.ask(request);
  await new Promise((resolve) => setTimeout(resolve, 1));
  piped.typeLine("always");
  assert.equal(await answer, "always");
  assert.doesNotMatch(said, /→/);
  piped.endInput();
});

Deno.test("createKeyPrompter() wraps the question anew when the window is resized", async () => {
  const k = keys(100);
  const asked = k.prompter.ask(request);
  await new Promise((resolve) => setTimeout(resolve, 1));
  const first = k.state.out;
  assert.equal(first.split("\n").length, 2, first);
  k.resize(40);
  const redraw = k.state.out.slice(first.length);
  // Back to the question's first row (a terminal reflows its 2 lines to 40 columns), erased,
  // drawn again.
  const rows = first.split("\n").reduce((n, line) => n + Math.ceil(line.length / 40), 0);
  assert.ok(rows > 2);
  const esc = String.fromCharCode(0x1b);
  const moved = new RegExp(`^\\r${esc}\\[(\\d+)A${esc}\\[J`).exec(redraw);
  assert.equal(moved?.[1], String(rows - 1), JSON.stringify(redraw));
  const lines = redraw.slice(moved?.[0].length).split("\n");
  for (const line of lines) assert.ok(line.trimEnd().length <= 40, line);
  assert.equal(lines.join(" ").trim(), request.question);
  k.press("y");
  assert.equal(await asked, "once");
  // Answered: resizes are nothing to this question any more.
  assert.equal(k.listening(), 0);
});

Deno.test("createReplPrompter() shows the preview's lines before the key question, and none when piped", async () => {
  const terminal = createFakeTerminal();
  const control = {
    attend: () => {},
    detach: () => {},
    setBusy: () => {},
    close: () => {},
    readKey: () => Promise.resolve("n"),
  };
  let out = "";
  const preview = () => Promise.resolve(["  1 -old", "  1 +new"]);
  const tty = createReplPrompter(
    createLineSource(terminal.readLines(), control),
    (t) => void (out += t),
    { preview },
  );
  assert.equal(await tty.ask(request), "deny");
  assert.ok(out.startsWith("  1 -old\n  1 +new\nmoat wants to write"), out);
  terminal.endInput();
  // Piped: the question alone, as before.
  const piped = createFakeTerminal();
  let said = "";
  const lines = createReplPrompter(
    createLineSource(piped.readLines()),
    (t) => void (said += t),
    { preview },
  );
  const answer = lines.ask(request);
  await new Promise((resolve) => setTimeout(resolve, 1));
  piped.typeLine("n");
  assert.equal(await answer, "deny");
  assert.ok(said.startsWith("moat wants to write"), said);
  piped.endInput();
});
