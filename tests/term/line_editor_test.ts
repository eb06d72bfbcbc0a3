import assert from "node:assert/strict";
import type { RawTerminal } from "../../src/cli/io.ts";
import {
  cleanPaste,
  createLineEditor,
  createPasteSplitter,
  type LineEditor,
} from "../../src/term/line_editor.ts";

/**
 * What a terminal shows after `text`: line breaks, carriage returns and the cursor movements and
 * erasures readline uses (CSI n A/B/C/D/G, J, K), wrapping at `width`; lines joined with "\n",
 * trailing blanks cut.
 */
function render(text: string, width = 80): string {
  const lines: string[][] = [[]];
  let row = 0;
  let col = 0;
  const line = () => lines[row] ??= [];
  // deno-lint-ignore no-control-regex
  const tokens = text.match(/\x1b\[[0-9;]*[A-Za-z]|[\s\S]/gu) ?? [];
  for (const token of tokens) {
    // deno-lint-ignore no-control-regex
    const csi = /^\x1b\[([0-9;]*)([A-Za-z])$/.exec(token);
    if (csi !== null) {
      const n = Number(csi[1] || "1");
      switch (csi[2]) {
        case "A":
          row = Math.max(0, row - n);
          break;
        case "B":
          row += n;
          break;
        case "C":
          col += n;
          break;
        case "D":
          col = Math.max(0, col - n);
          break;
        case "G":
          col = n - 1;
          break;
        case "J":
          line().length = Math.min(line().length, col);
          lines.length = row + 1;
          break;
        case "K":
          line().length = Math.min(line().length, col);
          break;
      }
      continue;
    }
    if (token === "\r") col = 0;
    else if (token === "\n") {
      row++;
      col = 0;
    } else {
      if (col >= width) {
        row++;
        col = 0;
      }
      const current = line();
      while (current.length < col) current.push(" ");
      current[col++] = token;
    }
    line();
  }
  return Array.from(lines, (l) => (l ?? []).join("").trimEnd()).join("\n");
}

/** A raw terminal whose input the test types and whose screen it reads. */
function fakeRaw(width = 80) {
  let input: (text: string | null) => void = () => {};
  let output: (text: string) => void = () => {};
  const state = { screen: "", interrupts: 0, suspends: 0, closed: false };
  const raw: RawTerminal = {
    onInput: (listener) => input = listener,
    onOutput: (listener) => output = listener,
    write: (text) => void (state.screen += text),
    columns: () => width,
    interrupt: () => void state.interrupts++,
    suspend() {
      state.suspends++;
      // The shell's own lines while moat was stopped.
      state.screen += "\n[1]+ Stopped\n$ fg\n";
    },
    close: () => void (state.closed = true),
  };
  return {
    raw,
    state,
    type: (text: string | null) => input(text),
    /** What the program itself writes (a prompt, a question). */
    print(text: string) {
      state.screen += text;
      output(text);
    },
    /** The screen as a terminal shows it. */
    plain: () => render(state.screen, width),
  };
}

/** Reads entered lines one at a time. */
function reader(editor: LineEditor) {
  const it = editor.lines[Symbol.asyncIterator]();
  return async () => {
    const next = await it.next();
    return next.done ? null : next.value;
  };
}

Deno.test("createPasteSplitter() separates keys from pastes, even with markers cut between reads", () => {
  const split = createPasteSplitter();
  assert.deepEqual(split("ab\x1b[20"), [{ type: "keys", text: "ab" }]);
  assert.deepEqual(split("0~one\r\ntwo\x1b"), []);
  assert.deepEqual(split("[201~\x1b[A"), [
    { type: "paste", text: "one\ntwo" },
    { type: "keys", text: "\x1b[A" },
  ]);
  // A lone Escape between keys is a key, not the start of a marker to wait for.
  assert.deepEqual(split("x\x1b"), [{ type: "keys", text: "x\x1b" }]);
});

Deno.test("cleanPaste() keeps text, tabs and line breaks, and drops escape sequences and controls", () => {
  assert.equal(
    cleanPaste("a\r\nb\rc\td\x1b[31mred\x1b[0m\x07\x1b]0;title\x07!\x1bc"),
    "a\nb\nc\tdred!",
  );
});

Deno.test("createLineEditor() edits with arrows, Home/End, Ctrl-W and Ctrl-U, and sends on Enter", async () => {
  const term = fakeRaw();
  const editor = createLineEditor(term.raw);
  const next = reader(editor);
  term.print("› ");
  editor.attend({ remember: true });
  term.type("helo\x1b[D\x1b[Dl\x1b[F world\r");
  assert.equal(await next(), "hello world");
  term.type("drop these words\x17\x17it\r");
  assert.equal(await next(), "drop it");
  term.type("gone\x15kept\r");
  assert.equal(await next(), "kept");
  assert.match(term.plain(), /› hello world\n/);
  editor.close();
  assert.equal(term.state.closed, true);
  assert.equal(await next(), null);
});

Deno.test("createLineEditor() inserts a bracketed paste whole and shows it; Enter sends it as one line", async () => {
  const term = fakeRaw();
  const editor = createLineEditor(term.raw);
  const next = reader(editor);
  term.print("› ");
  editor.attend({ remember: true });
  term.type("see: \x1b[200~line 1\rline 2\r");
  term.type("\rline 4\x1b[201~");
  assert.match(term.plain(), /› see: line 1\nline 2\n\nline 4$/);
  term.type("\r");
  assert.equal(await next(), "see: line 1\nline 2\n\nline 4");
  editor.close();
});

Deno.test("createLineEditor() continues a line ending in a backslash, and Alt-Enter inserts a newline", async () => {
  const term = fakeRaw();
  const editor = createLineEditor(term.raw);
  const next = reader(editor);
  editor.attend({ remember: true });
  term.type("first \\\rsecond\x1b\rthird\r");
  assert.equal(await next(), "first \nsecond\nthird");
  // A backslash inside the line is text.
  term.type("a\\b\r");
  assert.equal(await next(), "a\\b");
  editor.close();
});

Deno.test("createLineEditor() recalls entries with the up arrow; answers to questions stay out of the history", async () => {
  const term = fakeRaw();
  const remembered: string[] = [];
  let loaded!: (entries: string[]) => void;
  const editor = createLineEditor(term.raw, {
    history: new Promise((resolve) => loaded = resolve),
    onRemember: (entry) => remembered.push(entry),
  });
  const next = reader(editor);
  editor.attend({ remember: true });
  // Keys typed before the history file was read wait for it.
  term.type("\x1b[A\x1b[A\r");
  loaded(["from last time", "older", "from last time"]);
  assert.equal(await next(), "older");
  editor.attend({ remember: true });
  term.type("new request\r");
  assert.equal(await next(), "new request");
  editor.attend({ remember: false });
  term.type("y\r");
  assert.equal(await next(), "y");
  editor.attend({ remember: true });
  term.type("\x1b[A\x1b[A\x1b[A\x1b[B\r");
  assert.equal(await next(), "older");
  // Newest first, each entry once: three entries, so a fourth up arrow finds nothing.
  editor.attend({ remember: true });
  term.type("\x1b[A\x1b[A\x1b[A\x1b[A\r");
  assert.equal(await next(), "");
  assert.deepEqual(remembered, ["older", "new request", "older"]);
  editor.close();
});

Deno.test("createLineEditor() keeps text typed during a busy run undrawn, and draws it after the next prompt", async () => {
  const term = fakeRaw();
  const editor = createLineEditor(term.raw);
  const next = reader(editor);
  editor.setBusy(true);
  term.print("streamed answer ");
  term.type("also this\rand th");
  assert.equal(await next(), "also this");
  assert.equal(term.plain(), "streamed answer");
  // The run ended: nothing is drawn before the program's prompt.
  editor.setBusy(false);
  assert.equal(term.plain(), "streamed answer");
  term.print("\n› ");
  editor.attend({ remember: true });
  assert.match(term.plain(), /\n› and th$/);
  term.type("at\r");
  assert.equal(await next(), "and that");
  // A question asked during the run shows the answer as it is typed.
  term.print("Allow? [y/n/a] ");
  editor.attend({ remember: false });
  term.type("n");
  assert.match(term.plain(), /Allow\? \[y\/n\/a\] n$/);
  term.type("\r");
  assert.equal(await next(), "n");
  editor.close();
});

Deno.test("createLineEditor() turns Ctrl-C into an interrupt that drops the line, and Ctrl-D on an empty line ends input", async () => {
  const term = fakeRaw();
  const editor = createLineEditor(term.raw);
  const next = reader(editor);
  editor.attend({ remember: true });
  term.type("half typed\x03");
  assert.equal(term.state.interrupts, 1);
  term.type("x\x04\x04\r");
  assert.equal(await next(), "x");
  term.type("\x04");
  assert.equal(await next(), null);
  // Ctrl-C still interrupts a run after input ended.
  term.type("\x03");
  assert.equal(term.state.interrupts, 2);
  editor.close();
});

Deno.test("createLineEditor() ends its lines when the terminal's input ends", async () => {
  const term = fakeRaw();
  const editor = createLineEditor(term.raw);
  const next = reader(editor);
  term.type("last\r");
  term.type(null);
  assert.equal(await next(), "last");
  assert.equal(await next(), null);
  editor.close();
});

Deno.test("createLineEditor() redraws an answer after a question longer than the terminal is wide", async () => {
  const term = fakeRaw(20);
  const editor = createLineEditor(term.raw);
  const next = reader(editor);
  editor.setBusy(true);
  term.print("output\nmoat wants to read /a/b/c. Allow? ");
  editor.attend({ remember: false });
  term.type("yx\x7f");
  assert.equal(term.plain(), "output\nmoat wants to read /\na/b/c. Allow? y");
  term.type("\r");
  assert.equal(await next(), "y");
  editor.close();
});

Deno.test("createLineEditor() suspends on Ctrl-Z and draws the prompt and the line again when continued", async () => {
  const term = fakeRaw();
  const editor = createLineEditor(term.raw);
  const next = reader(editor);
  term.print("› ");
  editor.attend({ remember: true });
  term.type("ab\x1a");
  assert.equal(term.state.suspends, 1);
  assert.match(term.plain(), /\$ fg\n› ab$/);
  term.type("c\r");
  assert.equal(await next(), "abc");
  editor.close();
});

Deno.test("createLineEditor() sets text typed for the prompt aside while a question is answered", async () => {
  const term = fakeRaw();
  const editor = createLineEditor(term.raw);
  const next = reader(editor);
  editor.setBusy(true);
  term.type("note for la");
  term.print("Allow? ");
  editor.attend({ remember: false });
  term.type("y\r");
  assert.equal(await next(), "y");
  term.print("Allow? ");
  editor.attend({ remember: false });
  editor.detach();
  term.print("\n› ");
  editor.attend({ remember: true });
  assert.match(term.plain(), /Allow\? y\nAllow\?\n› note for la$/);
  term.type("ter\r");
  assert.equal(await next(), "note for later");
  editor.close();
});

Deno.test("createLineEditor() readKey() takes one key without Enter, keeps it from the line, and Ctrl-C still interrupts", async () => {
  const term = fakeRaw();
  const editor = createLineEditor(term.raw);
  const next = reader(editor);
  term.print("Allow? ");
  const first = editor.readKey();
  term.type("y");
  assert.equal(await first, "y");
  const second = editor.readKey();
  term.type("\r");
  assert.equal(await second, "enter");
  const third = editor.readKey();
  term.type("\x03");
  assert.equal(term.state.interrupts, 1);
  // The interrupt's handlers cancel the question (the source's cancelWaiters detaches).
  editor.detach();
  assert.equal(await third, null);
  // The keys answered the questions: none of them is on the prompt's line or entered.
  editor.attend({ remember: true });
  term.type("hello\r");
  assert.equal(await next(), "hello");
  editor.close();
});

Deno.test("createLineEditor() drops the Enter typed together with a key that answered a question", async () => {
  const term = fakeRaw();
  const editor = createLineEditor(term.raw);
  const next = reader(editor);
  const key = editor.readKey();
  term.type("y\r");
  assert.equal(await key, "y");
  // The next Enter, typed on its own, is a line again.
  editor.attend({ remember: true });
  term.type("go\r");
  assert.equal(await next(), "go");
  editor.close();
});

Deno.test("createLineEditor() stops a running turn on Escape, not on an arrow key's sequence or at the prompt", async () => {
  const term = fakeRaw();
  const editor = createLineEditor(term.raw);
  const next = reader(editor);
  // At the prompt, Escape does nothing (and is not typed into the line).
  editor.attend({ remember: true });
  term.type("\x1b");
  assert.equal(term.state.interrupts, 0);
  term.type("ok\r");
  assert.equal(await next(), "ok");
  editor.setBusy(true);
  // Arrow keys arrive as one read starting with ESC: not the Escape key.
  term.type("\x1b[A");
  term.type("\x1bOB");
  assert.equal(term.state.interrupts, 0);
  term.type("\x1b");
  assert.equal(term.state.interrupts, 1);
  // While an approval question waits for its key, too.
  const key = editor.readKey();
  term.type("\x1b");
  assert.equal(term.state.interrupts, 2);
  editor.detach();
  assert.equal(await key, null);
  editor.close();
});
