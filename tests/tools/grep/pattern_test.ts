import assert from "node:assert/strict";
import { candidateFinder } from "../../../src/tools/grep/pattern.ts";

Deno.test("candidateFinder() searches whole chunks with patterns that cannot cross a line", () => {
  const first = (source: string, text: string) => {
    const finder = candidateFinder(source, false);
    assert.ok(finder !== null, source);
    finder.lastIndex = 0;
    return finder.exec(text)?.[0] ?? null;
  };
  assert.equal(first("handle_[a-z]+_[0-9]{3}\\(", "x handle_io_042(y"), "handle_io_042(");
  assert.equal(first("foo\\.bar|\\bword\\b", "a word"), "word");
  // A negated class, \s, \W and \D no longer match the LF, so no match spans lines...
  assert.equal(first("[^;]*;", "abc\nd;"), "d;");
  assert.equal(first("a\\s+b", "a\nb a \t\rb"), "a \t\rb");
  assert.equal(first("x\\W+y", "x\ny x-y"), "x-y");
  assert.equal(first("1\\D2", "1\n2 1a2"), "1a2");
  assert.equal(first("[^]x", "\nx ax"), "ax");
  // ...but they match everything else they matched before.
  assert.equal(first("[^a]+", "\u2028b c"), "\u2028b c");
  assert.equal(candidateFinder("abc", true)?.flags, "gim");
  // A literal pattern (escaped by RegExp.escape, which writes \xHH) keeps the fast path.
  assert.equal(first(RegExp.escape("call(x-y"), "a call(x-y) b"), "call(x-y");
  assert.equal(first("\\x41\\x2d", "zA-z"), "A-");
  const lineByLine = [
    "a\\nb",
    "\\x0a",
    "\\u000A",
    "[\\s,]",
    "[\\b-~]",
    "[\\x00-\\x7f]",
    "(a)\\1",
    "a\tb",
    "foo(?!\\s)",
    "(?<=x)y",
  ];
  for (const source of lineByLine) assert.equal(candidateFinder(source, false), null, source);
});
