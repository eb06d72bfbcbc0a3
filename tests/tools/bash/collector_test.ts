import assert from "node:assert/strict";
import { StreamCollector } from "../../../src/tools/bash/collector.ts";
import { FsError, type SpillFile } from "../../../src/tools/ops.ts";
import { concatBytes } from "../_helpers.ts";
import { numbered } from "./_helpers.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();

/** An in-memory spill file; `failAfter` bytes makes writes fail like a full disk. */
function memorySpill(path: string, options: { failAfter?: number } = {}) {
  const chunks: Uint8Array[] = [];
  let written = 0;
  let closed = false;
  const file: SpillFile = {
    path,
    write(bytes) {
      if (options.failAfter !== undefined && written + bytes.length > options.failAfter) {
        return Promise.reject(new FsError("io", path, `No space left writing "${path}"`));
      }
      chunks.push(bytes.slice());
      written += bytes.length;
      return Promise.resolve();
    },
    close() {
      closed = true;
      return Promise.resolve();
    },
  };
  return {
    file,
    get written() {
      return written;
    },
    get closed() {
      return closed;
    },
    text: () => dec.decode(concatBytes(chunks)),
  };
}

Deno.test("StreamCollector holds small output in memory and spills nothing", async () => {
  let opened = 0;
  const c = new StreamCollector({
    openSpill: () => {
      opened++;
      return Promise.resolve(memorySpill("/spill/x").file);
    },
  });
  await c.push(enc.encode("small\n"));
  await c.close();
  assert.equal(opened, 0);
  assert.equal(c.spillPath, null);
});

Deno.test("StreamCollector spills the whole stream once it exceeds the threshold", async () => {
  const spill = memorySpill("/spill/out.log");
  const c = new StreamCollector({
    openSpill: () => Promise.resolve(spill.file),
    spillThreshold: { maxLines: 3, maxBytes: 1000 },
  });
  for (let i = 1; i <= 10; i++) await c.push(enc.encode(`${i}\n`));
  await c.close();
  assert.equal(spill.text(), numbered(1, 10));
  assert.equal(c.spillPath, "/spill/out.log");
  assert.equal(c.spillCapped, false);
  assert.equal(spill.closed, true);
});

Deno.test("StreamCollector.ensureSpilled() writes a small stream on request", async () => {
  const spill = memorySpill("/spill/err.log");
  const c = new StreamCollector({ openSpill: () => Promise.resolve(spill.file) });
  await c.push(enc.encode("a\n"));
  await c.push(enc.encode("b\n"));
  await c.ensureSpilled();
  await c.close();
  assert.equal(spill.text(), "a\nb\n");
});

Deno.test("StreamCollector saves only the first spillLimit bytes and bounds memory", async () => {
  const spill = memorySpill("/spill/big.log");
  const c = new StreamCollector({
    openSpill: () => Promise.resolve(spill.file),
    spillLimit: 10 * 1024 * 1024,
  });
  const chunk = enc.encode(numbered(1, 9000)); // ~43 KB of numbered lines
  let pushed = 0;
  let peak = 0;
  while (pushed < 100 * 1024 * 1024) {
    await c.push(chunk);
    pushed += chunk.length;
    peak = Math.max(peak, c.retainedBytes);
  }
  await c.close();
  assert.equal(spill.written, 10 * 1024 * 1024);
  assert.equal(c.spillCapped, true);
  assert.ok(spill.text().startsWith("1\n2\n3\n"));
  // Tail ring (64 KiB) plus at most the in-memory head before spilling (50 KB).
  assert.ok(peak <= 64 * 1024 + 51_200, `peak ${peak}`);
  assert.equal(c.tail.totalBytes, pushed);
});

Deno.test("StreamCollector records a spill failure and keeps collecting the tail", async () => {
  const spill = memorySpill("/spill/full.log", { failAfter: 100_000 });
  const c = new StreamCollector({ openSpill: () => Promise.resolve(spill.file) });
  for (let i = 0; i < 50; i++) await c.push(enc.encode("q".repeat(9_999) + "\n"));
  await c.close();
  assert.match(c.spillError ?? "", /No space left/);
  assert.equal(c.tail.totalBytes, 500_000);
  assert.ok(spill.written <= 100_000);
});

Deno.test("StreamCollector reports a spill file that cannot be created", async () => {
  const c = new StreamCollector({
    openSpill: () => Promise.reject(new FsError("permission_denied", "/ro/x", "Permission denied")),
  });
  await c.push(enc.encode("x".repeat(60_000)));
  await c.close();
  assert.equal(c.spillPath, null);
  assert.equal(c.spillError, "Permission denied");
});
