import assert from "node:assert/strict";
import { fitTails, splitBudget } from "../../../src/tools/bash/fit.ts";
import { TailBuffer, type TailView } from "../../../src/tools/bash/tail.ts";
import { numbered } from "./_helpers.ts";

const enc = new TextEncoder();

function view(text: string): TailView {
  const buf = new TailBuffer(1 << 20);
  buf.push(enc.encode(text));
  return buf.view();
}

Deno.test("splitBudget() meets both needs when they fit, else shares", () => {
  assert.deepEqual(splitBudget(10, 20, 100), [10, 20]);
  assert.deepEqual(splitBudget(10, 500, 100), [10, 90]);
  assert.deepEqual(splitBudget(500, 10, 100), [90, 10]);
  assert.deepEqual(splitBudget(500, 500, 101), [51, 50]);
  assert.deepEqual(splitBudget(0, 0, 100), [0, 0]);
});

Deno.test("fitTails() keeps both streams whole when they fit the shared budget", () => {
  const fitted = fitTails(view("a\nb\n"), view("err\n"));
  assert.equal(fitted.stdout.text, "a\nb");
  assert.equal(fitted.stderr.text, "err");
  assert.equal(fitted.stdout.truncated, false);
  assert.equal(fitted.stderr.truncated, false);
});

Deno.test("fitTails() shares 2000 lines between two long streams", () => {
  const fitted = fitTails(view(numbered(1, 5000)), view(numbered(1, 3000)));
  assert.equal(fitted.stdout.shownLines + fitted.stderr.shownLines, 2000);
  assert.equal(fitted.stdout.shownLines, 1000);
  assert.ok(fitted.stdout.text.endsWith("\n5000"));
  assert.ok(fitted.stdout.text.startsWith("4001\n"));
  assert.equal(fitted.stdout.truncated, true);
  assert.equal(fitted.stderr.totalLines, 3000);
});

Deno.test("fitTails() gives a short stream all it needs and the long one the rest", () => {
  const fitted = fitTails(view(numbered(1, 5000)), view("only error\n"));
  assert.equal(fitted.stderr.text, "only error");
  assert.equal(fitted.stderr.truncated, false);
  assert.equal(fitted.stdout.shownLines, 1999);
});

Deno.test("fitTails() keeps the shared byte budget", () => {
  const line = "y".repeat(99);
  const big = `${line}\n`.repeat(1000); // 100,000 bytes
  const fitted = fitTails(view(big), view(big), { maxLines: 2000, maxBytes: 51_200 });
  const bytes = enc.encode(fitted.stdout.text).length + enc.encode(fitted.stderr.text).length;
  assert.ok(bytes <= 51_200, `${bytes}`);
  assert.ok(fitted.stdout.shownLines > 200 && fitted.stderr.shownLines > 200);
});

Deno.test("fitTails() cuts a single overlong last line to its end", () => {
  const fitted = fitTails(view(`head\n${"z".repeat(100_000)}end`), view(""));
  assert.equal(fitted.stdout.lineCut, true);
  assert.equal(fitted.stdout.truncated, true);
  assert.ok(fitted.stdout.text.endsWith("zzzend"));
  assert.ok(enc.encode(fitted.stdout.text).length <= 51_200);
});
