import assert from "node:assert/strict";
import { formatSize, truncateHead, truncateLine, truncateTail } from "../../src/tools/truncate.ts";

const lines = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}`).join("\n") + "\n";
Deno.test("truncateHead() keeps the first lines up to the line limit", () => {
  const r = truncateHead(lines(10), { maxLines: 3 });
  assert.equal(r.content, "line 1\nline 2\nline 3");
  assert.equal(r.truncated, true);
  assert.equal(r.truncatedBy, "lines");
  assert.equal(r.totalLines, 10);
  assert.equal(r.outputLines, 3);
});

Deno.test("truncateHead() stops at the byte limit without cutting a line", () => {
  // "line 1\nline 2" is 13 bytes; a third line would need 7 more.
  const r = truncateHead(lines(10), { maxBytes: 15 });
  assert.equal(r.content, "line 1\nline 2");
  assert.equal(r.truncatedBy, "bytes");
  assert.equal(r.outputBytes, 13);
});

Deno.test("truncateTail() keeps the last lines in their original order", () => {
  const r = truncateTail(lines(10), { maxLines: 2 });
  assert.equal(r.content, "line 9\nline 10");
  assert.equal(r.truncatedBy, "lines");
});

Deno.test("truncateHead() and truncateTail() report no truncation when everything fits", () => {
  for (const r of [truncateHead(lines(3)), truncateTail(lines(3))]) {
    assert.equal(r.content, "line 1\nline 2\nline 3");
    assert.equal(r.truncated, false);
    assert.equal(r.truncatedBy, null);
    assert.equal(r.totalBytes, 21);
  }
});

Deno.test("truncateHead() counts multi-byte characters in bytes", () => {
  const r = truncateHead("ééé\nabc\n", { maxBytes: 6 });
  assert.equal(r.content, "ééé");
  assert.equal(r.totalBytes, 11);
});

Deno.test("truncateLine() shortens long lines with their full length", () => {
  assert.deepEqual(truncateLine("abc", 5), { text: "abc", truncated: false });
  const r = truncateLine("x".repeat(10), 4);
  assert.equal(r.text, "xxxx… [line truncated, 10 characters in full]");
  assert.equal(r.truncated, true);
});

Deno.test("formatSize() picks a readable unit", () => {
  assert.equal(formatSize(512), "512 B");
  assert.equal(formatSize(51_200), "50.0 KB");
  assert.equal(formatSize(5 * 1024 * 1024), "5.0 MB");
});
