import assert from "node:assert/strict";
import { candidateFinder, type Needle } from "../../../src/tools/grep/pattern.ts";
import { LineMatcher, type MatchRow } from "../../../src/tools/grep/line_matcher.ts";
import { BINARY_SNIFF_BYTES } from "../../../src/tools/lines.ts";
import { prng } from "../_helpers.ts";

const encoder = new TextEncoder();

/** The line-at-a-time semantics LineMatcher must reproduce (the former grep scan loop). */
function reference(
  text: string,
  line: RegExp,
  o: { context: number; cap: number; maxChars: number },
): MatchRow[] {
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  const fmt = (t: string) => {
    const s = t.endsWith("\r") ? t.slice(0, -1) : t;
    return `${s.slice(0, o.maxChars)}|${s.length}`;
  };
  const rows: MatchRow[] = [];
  const before: Array<{ line: number; text: string }> = [];
  let matches = 0;
  let after = 0;
  let lastRow = 0;
  for (let i = 0; i < lines.length; i++) {
    const n = i + 1;
    const raw = lines[i] as string;
    const stripped = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    const isMatch = matches < o.cap && line.test(stripped.slice(0, o.maxChars));
    if (isMatch) {
      const first = before[0]?.line ?? n;
      if (o.context > 0 && lastRow > 0 && first > lastRow + 1) rows.push({ kind: "sep" });
      for (const b of before) rows.push({ kind: "context", ...b });
      before.length = 0;
      rows.push({ kind: "match", line: n, text: fmt(raw) });
      matches++;
      lastRow = n;
      after = o.context;
    } else if (after > 0) {
      rows.push({ kind: "context", line: n, text: fmt(raw) });
      lastRow = n;
      after--;
    } else if (matches >= o.cap) {
      break;
    } else if (o.context > 0) {
      before.push({ line: n, text: fmt(raw) });
      if (before.length > o.context) before.shift();
    }
  }
  return rows;
}

function run(
  bytes: Uint8Array,
  pattern: { source: string; flags?: string; needle?: Needle },
  o: { context: number; cap: number; maxChars: number; chunk: number },
): LineMatcher {
  const flags = pattern.flags ?? "";
  const m = new LineMatcher({
    line: new RegExp(pattern.source, flags),
    finder: candidateFinder(pattern.source, flags.includes("i")),
    needle: pattern.needle ?? null,
    context: o.context,
    cap: o.cap,
    maxChars: o.maxChars,
    format: (t, len) => `${t}|${len}`,
  });
  // A reused buffer, like the grep tool's: the matcher must copy what it keeps.
  const buf = new Uint8Array(o.chunk);
  for (let at = 0; at < bytes.length && !m.done; at += o.chunk) {
    const part = bytes.subarray(at, at + o.chunk);
    buf.set(part);
    m.push(buf.subarray(0, part.length));
    buf.fill(0x21);
  }
  m.end();
  return m;
}

const PIECES = ["foo", "bar", " ", "x", "é", "😀", "\t", "needle", "Needle", "(", "\r", "ab"];

function randomText(rand: () => number, lines: number): string {
  const out: string[] = [];
  for (let i = 0; i < lines; i++) {
    let line = "";
    const words = Math.floor(rand() * 8);
    for (let w = 0; w < words; w++) line += PIECES[Math.floor(rand() * PIECES.length)];
    out.push(line + (rand() < 0.3 ? "\r" : ""));
  }
  // Sometimes no newline after the last line.
  return out.join("\n") + (rand() < 0.5 ? "\n" : "");
}

const PATTERNS = [
  { source: "needle" },
  { source: "needle", flags: "i" },
  { source: "^foo" },
  { source: "bar$" },
  { source: "\\bx\\b" },
  { source: "o\\s+b" },
  { source: "é+😀" },
  { source: "^$" },
  { source: "x*" },
  { source: "foo(?!\\s)" },
  { source: "\\(" },
  { source: "[^o]+o" },
  { source: "x\\W+f" },
  { source: "\\s$" },
  { source: "a\\nb" },
];

Deno.test("LineMatcher finds the same rows as a line-by-line scan for any chunking", () => {
  const rand = prng(42);
  for (let round = 0; round < 40; round++) {
    const text = randomText(rand, 1 + Math.floor(rand() * 60));
    const bytes = encoder.encode(text);
    for (const pattern of PATTERNS) {
      for (const chunk of [1, 3, 7, 64, 100_000]) {
        const o = {
          context: Math.floor(rand() * 4),
          cap: rand() < 0.3 ? 1 + Math.floor(rand() * 4) : 1000,
          maxChars: rand() < 0.2 ? 6 : 1000,
          chunk,
        };
        const expected = reference(text, new RegExp(pattern.source, pattern.flags ?? ""), o);
        const got = run(bytes, pattern, o);
        assert.deepEqual(
          got.rows,
          expected,
          `${JSON.stringify(text)} /${pattern.source}/ ${JSON.stringify(o)}`,
        );
        assert.equal(got.matches, expected.filter((r) => r.kind === "match").length);
      }
    }
  }
});

/** Patterns with a literal every matching line contains, as compileSearch finds them. */
const NEEDLED = [
  { source: "needle", needle: "needle" },
  { source: "é😀", needle: "é😀" },
  { source: "o\\(", needle: "o(" },
  { source: "ab\\r", needle: "ab\r" }, // a line's trailing CR is not in the line: never a match
  { source: "^foo\\s*bar$", needle: "foo" },
  { source: "fo{1,2}bar", needle: "bar" },
  { source: "x\\W+foo(?!\\s)", needle: "foo" },
  { source: RegExp.escape("( é.*"), needle: "( é.*" },
];

Deno.test("LineMatcher finds the same rows with a needle, searched by any of its characters", () => {
  const rand = prng(7);
  const pieces = [...PIECES, "( é.*", "é😀", "o(", "ab\r", "foobar", "fooo bar", "x-foo"];
  for (let round = 0; round < 30; round++) {
    const lines: string[] = [];
    for (let i = 0; i < 1 + Math.floor(rand() * 40); i++) {
      let line = "";
      for (let w = Math.floor(rand() * 6); w > 0; w--) {
        line += pieces[Math.floor(rand() * pieces.length)];
      }
      lines.push(line + (rand() < 0.3 ? "\r" : ""));
    }
    const text = lines.join("\n") + (rand() < 0.5 ? "\n" : "");
    const bytes = encoder.encode(rand() < 0.2 ? `\uFEFF${text}` : text);
    for (const { source, needle } of NEEDLED) {
      for (let rare = 0; rare < needle.length; rare++) {
        for (const chunk of [1, 5, 100_000]) {
          const o = {
            context: Math.floor(rand() * 3),
            cap: rand() < 0.3 ? 1 + Math.floor(rand() * 3) : 1000,
            maxChars: rand() < 0.2 ? 6 : 1000,
            chunk,
          };
          const expected = reference(text, new RegExp(source), o);
          const got = run(bytes, { source, needle: { text: needle, rare } }, o);
          const what = `${JSON.stringify(text)} /${source}/ @${rare} ${JSON.stringify(o)}`;
          assert.deepEqual(got.rows, expected, what);
        }
      }
    }
  }
});

Deno.test("LineMatcher takes its candidates from the needle when it has one", () => {
  // A finder that never matches: only the needle can find the lines.
  const m = new LineMatcher({
    line: /handle_[a-z]+_[0-9]{3}\(/,
    finder: /(?!)/gm,
    needle: { text: "handle_", rare: 6 },
    context: 0,
    cap: 10,
    maxChars: 100,
    format: (t) => t,
  });
  m.push(encoder.encode("handle_x\n  handle_io_042(y) é\nhandle handle_\r\nhandle_ab_123(\n"));
  m.end();
  assert.deepEqual(m.rows, [
    { kind: "match", line: 2, text: "  handle_io_042(y) é" },
    { kind: "match", line: 4, text: "handle_ab_123(" },
  ]);
});

Deno.test("LineMatcher finds a match spanning a chunk boundary and on a last line without LF", () => {
  const text = "alpha\nbeta gamma\nlast needle";
  const bytes = encoder.encode(text);
  const at = text.indexOf("gamma") + 2; // the chunk edge falls inside "gamma"
  const m = new LineMatcher({
    line: /gamma|needle/,
    finder: /gamma|needle/gm,
    context: 0,
    cap: 10,
    maxChars: 100,
    format: (t) => t,
  });
  m.push(bytes.subarray(0, at));
  m.push(bytes.subarray(at));
  m.end();
  assert.deepEqual(m.rows, [
    { kind: "match", line: 2, text: "beta gamma" },
    { kind: "match", line: 3, text: "last needle" },
  ]);
});

Deno.test("LineMatcher takes context lines from earlier and later chunks", () => {
  const text = "one\ntwo\nthree\nHIT\nfive\nsix\nseven\n";
  const bytes = encoder.encode(text);
  const m = new LineMatcher({
    line: /HIT/,
    finder: /HIT/gm,
    context: 2,
    cap: 10,
    maxChars: 100,
    format: (t) => t,
  });
  // Chunks end right before and right after the matching line.
  const hit = text.indexOf("HIT");
  m.push(bytes.subarray(0, hit));
  m.push(bytes.subarray(hit, hit + 4));
  m.push(bytes.subarray(hit + 4));
  m.end();
  assert.deepEqual(m.rows, [
    { kind: "context", line: 2, text: "two" },
    { kind: "context", line: 3, text: "three" },
    { kind: "match", line: 4, text: "HIT" },
    { kind: "context", line: 5, text: "five" },
    { kind: "context", line: 6, text: "six" },
  ]);
});

Deno.test("LineMatcher measures a line longer than its carry limit without keeping it", () => {
  // maxChars 10 → lines over 44 bytes are not kept whole.
  const long = "é".repeat(50) + "needle" + "z".repeat(30) + "\r";
  const text = `before\n${long}\nneedle after\n`;
  const bytes = encoder.encode(text);
  for (const chunk of [5, 16, 1000]) {
    const m = run(bytes, { source: "é|needle" }, { context: 1, cap: 10, maxChars: 10, chunk });
    assert.deepEqual(m.rows, [
      { kind: "context", line: 1, text: "before|6" },
      { kind: "match", line: 2, text: `${"é".repeat(10)}|86` },
      { kind: "match", line: 3, text: "needle aft|12" },
    ], `chunk ${chunk}`);
  }
  // Only the first maxChars characters of a line are searched.
  const hidden = run(encoder.encode(`${"a".repeat(100)}needle\n`), { source: "needle" }, {
    context: 0,
    cap: 10,
    maxChars: 10,
    chunk: 7,
  });
  assert.deepEqual(hidden.rows, []);
});

Deno.test("LineMatcher stops reading at the cap once the after-context is complete", () => {
  const text = "m1\nc\nm2\nc\nm3\n".repeat(1000);
  const m = new LineMatcher({
    line: /^m/,
    finder: /^m/gm,
    context: 1,
    cap: 2,
    maxChars: 100,
    format: (t) => t,
  });
  m.push(encoder.encode(text));
  assert.equal(m.done, true);
  assert.equal(m.matches, 2);
  assert.deepEqual(m.rows.map((r) => (r.kind === "sep" ? "--" : `${r.line}${r.kind[0]}`)), [
    "1m",
    "2c",
    "3m",
    "4c",
  ]);
});

Deno.test("LineMatcher.pushFirst() refuses a NUL in the first 8 KB and drops a leading BOM", () => {
  const make = () =>
    new LineMatcher({
      line: /x/,
      finder: /x/gm,
      context: 0,
      cap: 10,
      maxChars: 100,
      format: (t) => t,
    });
  assert.equal(make().pushFirst(new Uint8Array([120, 10, 0, 10])), false);
  // Multi-byte text puts a NUL at byte 9000 before character 8192: it is not in the first 8 KB.
  const late = encoder.encode(`${"é".repeat(4500)}\n\0x\n`);
  assert.ok(late.indexOf(0) >= BINARY_SNIFF_BYTES);
  const m = make();
  assert.equal(m.pushFirst(late), true);
  m.end();
  assert.deepEqual(m.rows, [{ kind: "match", line: 2, text: "\0x" }]);
  // A NUL with no newline in the first 8 KB is still found.
  assert.equal(make().pushFirst(encoder.encode(`${"a".repeat(5000)}\0${"a".repeat(5000)}`)), false);
  const bom = make();
  assert.equal(bom.pushFirst(encoder.encode("\uFEFFx\nx\n")), true);
  assert.deepEqual(bom.rows.map((r) => r.kind === "sep" ? "" : r.text), ["x", "x"]);
});
