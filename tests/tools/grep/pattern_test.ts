import assert from "node:assert/strict";
import {
  candidateFinder,
  compileSearch,
  rarestIndex,
  requiredLiteral,
} from "../../../src/tools/grep/pattern.ts";

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

Deno.test("requiredLiteral() finds the longest run of plain characters every match contains", () => {
  const cases: Array<[string, string | null]> = [
    ["handle_[a-z]+_[0-9]{3}\\(", "handle_"],
    ["foo\\.bar\\(", "foo.bar("],
    ["abc*", "ab"], // a quantifier drops the character it repeats
    ["abcd?e", "abc"],
    ["ab{2,3}c", "a"], // the quantifier's digits are no literal
    ["ab{x}cd", "x}cd"], // a "{" that is no quantifier is itself, after the run it ends
    ["x\\x41bc", "bc"], // the hex digits belong to the escape
    ["\\u0041bcd", "bcd"],
    ["(?:zz)+yy", "yy"], // groups are skipped, what follows them stays required
    ["a(b|c)d", "a"],
    ["[abc(]xyz", "xyz"],
    ["[]]ab", "]ab"], // "[]" is a (never matching) class of its own in JavaScript
    ["(?<=pre)post", "post"],
    ["foo\\bbar1", "bar1"],
    ["\\d+\\s", null],
    ["^$", null],
    ["foo|barbaz", null], // a top-level alternation: no literal is required
    ["\\qfoo", null], // an escape this does not know: the regex is searched as it is
    ["a\\1bc", "bc"],
  ];
  for (const [source, expected] of cases) assert.equal(requiredLiteral(source), expected, source);
});

Deno.test("compileSearch() searches a needle by its rarest character, only when case matters", () => {
  const search = (pattern: string, o: { literal?: boolean; ignoreCase?: boolean } = {}) =>
    compileSearch({
      pattern,
      literal: o.literal ?? false,
      ignoreCase: o.ignoreCase ?? false,
      context: 0,
    }).needle;
  assert.deepEqual(search("handle_[a-z]+_[0-9]{3}\\("), { text: "handle_", rare: 6 });
  assert.deepEqual(search("ZQX_RARE", { literal: true }), { text: "ZQX_RARE", rare: 0 });
  assert.deepEqual(search("a.b(c", { literal: true }), { text: "a.b(c", rare: 3 });
  assert.equal(search("needle", { ignoreCase: true }), null);
  assert.equal(search("Needle", { literal: true, ignoreCase: true }), null);
  assert.equal(search("ab[0-9]"), null); // two characters find too many candidates
  assert.equal(search("a\nb", { literal: true }), null); // no line holds an LF
  assert.equal(rarestIndex("tez"), 2);
  assert.equal(rarestIndex("xé"), 1);
});
