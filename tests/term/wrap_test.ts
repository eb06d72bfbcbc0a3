import assert from "node:assert/strict";
import { charWidth, displayWidth, stripEscapes, wrapText } from "../../src/term/wrap.ts";

const words = (lines: string[]) => lines.join(" ").split(/\s+/).filter((w) => w !== "");

Deno.test("wrapText() breaks at spaces, keeps every word and no line is wider than the width", () => {
  const text = "moat works with any OpenAI-compatible API: set the key, or a base URL and a model.";
  const lines = wrapText(text, { width: 24 });
  assert.deepEqual(lines, [
    "moat works with any",
    "OpenAI-compatible API:",
    "set the key, or a base",
    "URL and a model.",
  ]);
  assert.deepEqual(words(lines), words([text]));
});

Deno.test("wrapText() keeps the newlines it is given and wraps each line on its own", () => {
  assert.deepEqual(wrapText("one two three\n\nfour five", { width: 8 }), [
    "one two",
    "three",
    "",
    "four",
    "five",
  ]);
});

Deno.test("wrapText() puts the indent before the first line and the hanging indent before the rest", () => {
  assert.deepEqual(
    wrapText("alpha beta gamma delta", { width: 14, indent: "- ", hangingIndent: "  " }),
    ["- alpha beta", "  gamma delta"],
  );
  assert.deepEqual(wrapText("alpha beta gamma", { width: 12, indent: "  " }), [
    "  alpha beta",
    "  gamma",
  ]);
});

Deno.test("wrapText() moves a path or URL that fits to a line of its own, and cuts a longer word", () => {
  const url = "http://localhost:11434/v1/chat";
  assert.deepEqual(wrapText(`Set it to ${url} first`, { width: 32 }), [
    "Set it to",
    url,
    "first",
  ]);
  assert.deepEqual(wrapText("ab abcdefghij", { width: 4 }), ["ab", "abcd", "efgh", "ij"]);
});

Deno.test("wrapText() counts colour codes as no column and never breaks inside one", () => {
  const red = (t: string) => `\x1b[31m${t}\x1b[39m`;
  const lines = wrapText(`${red("error")} one two ${red("three")}`, { width: 13 });
  assert.deepEqual(lines, [`${red("error")} one two`, red("three")]);
  for (const line of lines) assert.ok(displayWidth(line) <= 13);
  // A word longer than the width is cut between characters, not inside the escape.
  const cut = wrapText(red("abcdef"), { width: 3 });
  assert.deepEqual(cut.map(stripEscapes), ["abc", "def"]);
  for (const line of cut) {
    assert.ok(!line.replaceAll("\x1b[31m", "").replaceAll("\x1b[39m", "").includes("\x1b"), line);
  }
  // A hyperlink (OSC 8) takes no column either.
  assert.equal(displayWidth("\x1b]8;;http://x.test/a b\x1b\\link\x1b]8;;\x1b\\"), 4);
});

Deno.test("wide characters and emoji take two columns, combining marks none", () => {
  assert.equal(charWidth("中"), 2);
  assert.equal(charWidth("😀"), 2);
  assert.equal(charWidth("e\u0301"), 1);
  assert.equal(charWidth("❤\ufe0f"), 2);
  assert.equal(charWidth("✓"), 1);
  assert.equal(displayWidth("中文 ok"), 7);
  assert.deepEqual(wrapText("中文中文 中文", { width: 8 }), ["中文中文", "中文"]);
  assert.deepEqual(wrapText("中文中文中", { width: 5 }), ["中文", "中文", "中"]);
  // A family emoji (joined by U+200D) is one character: never cut apart.
  const family = "\u{1f468}\u200d\u{1f469}\u200d\u{1f467}";
  assert.deepEqual(wrapText(`${family}${family}`, { width: 3 }), [family, family]);
});

Deno.test("wrapText() drops the spaces where it breaks a line", () => {
  assert.deepEqual(wrapText("one   two", { width: 4 }), ["one", "two"]);
  assert.deepEqual(wrapText("one two  ", { width: 20 }), ["one two"]);
});
