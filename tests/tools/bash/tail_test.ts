import assert from "node:assert/strict";
import { countNewlines, TailBuffer, tailBytes } from "../../../src/tools/bash/tail.ts";
import { prng } from "../_helpers.ts";
import { numbered } from "./_helpers.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();

Deno.test("TailBuffer keeps everything while under capacity and counts lines", () => {
  const buf = new TailBuffer(64);
  buf.push(enc.encode("a\nb"));
  buf.push(enc.encode("c\n"));
  const v = buf.view();
  assert.deepEqual(v, {
    text: "a\nbc\n",
    complete: true,
    lineCut: false,
    totalBytes: 5,
    totalLines: 2,
  });
  assert.equal(buf.droppedBytes, 0);
});

Deno.test("TailBuffer counts a final line without newline", () => {
  const buf = new TailBuffer(8);
  buf.push(enc.encode("x\ny"));
  assert.equal(buf.totalLines, 2);
  assert.equal(new TailBuffer(8).totalLines, 0);
});

Deno.test("TailBuffer retains only the last capacity bytes across wrap-around", () => {
  const buf = new TailBuffer(10);
  const all = "0123456789abcdefghijklmnopqrstuvwxyz";
  // Odd chunk sizes exercise every wrap position.
  for (let i = 0; i < all.length; i += 3) buf.push(enc.encode(all.slice(i, i + 3)));
  assert.equal(dec.decode(buf.bytes()), all.slice(-10));
  assert.equal(buf.retainedBytes, 10);
  assert.equal(buf.totalBytes, all.length);
});

Deno.test("TailBuffer keeps the end of a chunk larger than its capacity", () => {
  const buf = new TailBuffer(4);
  buf.push(enc.encode("ab"));
  buf.push(enc.encode("cdefgh"));
  assert.equal(dec.decode(buf.bytes()), "efgh");
});

Deno.test("TailBuffer.view() drops the partial first line once bytes fell out", () => {
  const buf = new TailBuffer(8);
  buf.push(enc.encode("line1\nline2\nl3\n"));
  // Retained: "ine2\nl3\n" → "ine2" is a fragment and is dropped.
  const v = buf.view();
  assert.equal(v.text, "l3\n");
  assert.equal(v.complete, false);
  assert.equal(v.lineCut, false);
  assert.equal(v.totalLines, 3);
});

Deno.test("TailBuffer.view() keeps the first line when the dropped byte was a newline", () => {
  const buf = new TailBuffer(6);
  buf.push(enc.encode("aaaaa\nbb\ncc\n"));
  // Retained: "bb\ncc\n"; the last dropped byte is the newline after "aaaaa".
  assert.equal(buf.view().text, "bb\ncc\n");
});

Deno.test("TailBuffer.view() returns the end of one line longer than the buffer", () => {
  const buf = new TailBuffer(5);
  buf.push(enc.encode("x".repeat(100)));
  const v = buf.view();
  assert.equal(v.text, "xxxxx");
  assert.equal(v.lineCut, true);
  assert.equal(v.totalLines, 1);
});

Deno.test("TailBuffer.view() never starts inside a multi-byte character", () => {
  const buf = new TailBuffer(5);
  buf.push(enc.encode("ééééé")); // 10 bytes, the window starts on a continuation byte
  const v = buf.view();
  assert.ok(!v.text.includes("\ufffd"), v.text);
  assert.equal(v.text, "éé");
});

Deno.test("TailBuffer memory stays at its capacity for 50 MB of input", () => {
  const buf = new TailBuffer(4096);
  const chunk = enc.encode(numbered(1, 10_000));
  let pushed = 0;
  while (pushed < 50 * 1024 * 1024) {
    buf.push(chunk);
    pushed += chunk.length;
    assert.ok(buf.retainedBytes <= 4096);
  }
  assert.equal(buf.totalBytes, pushed);
  assert.ok(buf.view().text.endsWith("9999\n10000\n"));
});

Deno.test("tailBytes() keeps whole characters", () => {
  assert.equal(tailBytes("abc", 10), "abc");
  assert.equal(tailBytes("aé", 2), "é");
  assert.equal(tailBytes("aéb", 2), "b");
});

Deno.test("countNewlines() counts LF bytes at any offset and length", () => {
  const rand = prng(7);
  const data = new Uint8Array(300);
  for (let i = 0; i < data.length; i++) data[i] = rand() < 0.2 ? 10 : Math.floor(rand() * 256);
  for (let start = 0; start < 9; start++) {
    for (const len of [0, 1, 3, 4, 5, 17, 200, 291 - start]) {
      const part = data.subarray(start, start + len);
      let naive = 0;
      for (const b of part) if (b === 10) naive++;
      assert.equal(countNewlines(part), naive, `start ${start} len ${len}`);
    }
  }
});
