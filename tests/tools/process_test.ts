import assert from "node:assert/strict";
import { join } from "node:path";
import {
  fitTails,
  looksLikeBinaryText,
  splitBudget,
  StreamCollector,
  TailBuffer,
  tailBytes,
  type TailView,
} from "../../src/tools/_process.ts";
import { FsError, type SpillFile } from "../../src/tools/ops.ts";
import {
  createDenoProcessOps,
  createProcessRegistry,
  DEFAULT_PATH,
} from "../../src/sys/process.ts";
import { createTempWorkspace } from "../support/workspace.ts";
import { concatBytes, isAlive, survivors } from "./_helpers.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();

function view(text: string): TailView {
  const buf = new TailBuffer(1 << 20);
  buf.push(enc.encode(text));
  return buf.view();
}

function numbered(from: number, to: number): string {
  let s = "";
  for (let i = from; i <= to; i++) s += `${i}\n`;
  return s;
}

async function readAll(stream: ReadableStream<Uint8Array>): Promise<string> {
  let out = "";
  for await (const chunk of stream) out += dec.decode(chunk, { stream: true });
  return out;
}

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

Deno.test("tailBytes() keeps whole characters", () => {
  assert.equal(tailBytes("abc", 10), "abc");
  assert.equal(tailBytes("aé", 2), "é");
  assert.equal(tailBytes("aéb", 2), "b");
});

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

Deno.test("createDenoProcessOps() passes only the given environment, PATH defaulted", async () => {
  const ops = createDenoProcessOps();
  assert.ok(Deno.env.get("HOME") !== undefined, "test precondition: HOME is set");
  const spawned = ops.spawn("bash", ["-c", 'echo "$PATH|${HOME-unset}|$ONLY"'], {
    cwd: "/",
    env: { ONLY: "given" },
  });
  assert.ok(spawned.ok);
  const [out, err, status] = await Promise.all([
    readAll(spawned.child.stdout),
    readAll(spawned.child.stderr),
    spawned.child.status,
  ]);
  assert.equal(out, `${DEFAULT_PATH}|unset|given\n`);
  assert.equal(err, "");
  assert.deepEqual(status, { code: 0, signal: null });
});

Deno.test("createDenoProcessOps() reports a missing working directory as not_found", () => {
  const spawned = createDenoProcessOps().spawn("bash", ["-c", "true"], {
    cwd: "/nonexistent-moat-dir",
    env: {},
  });
  assert.equal(spawned.ok, false);
  if (!spawned.ok) {
    assert.equal(spawned.reason, "not_found");
    assert.match(spawned.message, /nonexistent-moat-dir/);
  }
});

Deno.test("createDenoProcessOps() starts the child as leader of its own process group", async () => {
  const spawned = createDenoProcessOps().spawn("bash", ["-c", "ps -o pgid= -p $$"], {
    cwd: "/",
    env: {},
  });
  assert.ok(spawned.ok);
  const [out] = await Promise.all([
    readAll(spawned.child.stdout),
    readAll(spawned.child.stderr),
    spawned.child.status,
  ]);
  assert.equal(Number(out.trim()), spawned.child.pid);
});

Deno.test("killGroup() kills grandchildren and reports the signal", async () => {
  const spawned = createDenoProcessOps().spawn(
    "bash",
    ["-c", "sleep 300 & echo $!; sleep 300 & echo $!; wait"],
    { cwd: "/", env: {} },
  );
  assert.ok(spawned.ok);
  const child = spawned.child;
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (text.split("\n").length < 3) {
    const { value, done } = await reader.read();
    if (done) break;
    text += value;
  }
  const pids = text.trim().split("\n").map(Number);
  assert.equal(pids.length, 2);
  assert.ok(pids.every(isAlive));
  await child.killGroup();
  assert.deepEqual(await child.status, { code: null, signal: "SIGKILL" });
  await reader.cancel();
  await child.stderr.cancel();
  await child.killGroup(); // repeating is harmless
  // SIGKILL is delivered asynchronously; the group is gone within moments.
  assert.deepEqual(await survivors(pids), []);
});

Deno.test("createSpillFile() creates parents and refuses to overwrite", async () => {
  await using ws = await createTempWorkspace();
  const ops = createDenoProcessOps();
  const path = join(ws.dir, "spill", "deep", "a.log");
  const file = await ops.createSpillFile(path);
  await file.write(enc.encode("hello "));
  await file.write(enc.encode("world"));
  await file.close();
  await file.close();
  assert.equal(await Deno.readTextFile(path), "hello world");
  await assert.rejects(() => ops.createSpillFile(path), FsError);
});

Deno.test("createProcessRegistry().killAll() kills every tracked group", async () => {
  await using ws = await createTempWorkspace();
  const ops = createDenoProcessOps();
  const registry = createProcessRegistry();
  const children = [];
  for (let i = 0; i < 2; i++) {
    const spawned = ops.spawn("bash", ["-c", `sleep 300 & echo $! > pid${i}; wait`], {
      cwd: ws.dir,
      env: {},
    });
    assert.ok(spawned.ok);
    children.push(spawned.child);
    registry.add(spawned.child);
  }
  assert.deepEqual(registry.pids(), children.map((c) => c.pid));
  const pidFiles = [ws.path("pid0"), ws.path("pid1")];
  for (let i = 0; i < 100; i++) {
    const ready = await Promise.all(
      pidFiles.map((p) => Deno.readTextFile(p).then((t) => t.endsWith("\n"), () => false)),
    );
    if (ready.every(Boolean)) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  const grandchildren = await Promise.all(
    pidFiles.map(async (p) => Number(await Deno.readTextFile(p))),
  );
  assert.ok(grandchildren.every(isAlive));
  await registry.killAll();
  assert.deepEqual(registry.pids(), []);
  for (const c of children) {
    assert.equal((await c.status).signal, "SIGKILL");
    await c.stdout.cancel();
    await c.stderr.cancel();
  }
  assert.deepEqual(await survivors(grandchildren), []);
});

Deno.test("createProcessRegistry() stops tracking a group when told", () => {
  const registry = createProcessRegistry();
  const stop = registry.add({ pid: 4242, killGroup: () => Promise.resolve() });
  assert.deepEqual(registry.pids(), [4242]);
  stop();
  stop();
  assert.deepEqual(registry.pids(), []);
});

Deno.test("killGroup() still kills the group inside a Worker with scoped run permission", async () => {
  await using ws = await createTempWorkspace();
  const moduleUrl = new URL("../../src/sys/process.ts", import.meta.url).href;
  const code = `
    import { createDenoProcessOps } from ${JSON.stringify(moduleUrl)};
    const spawned = createDenoProcessOps().spawn("bash", ["-c", "sleep 300 & echo $!; wait"], {
      cwd: "/", env: {},
    });
    if (!spawned.ok) { self.postMessage({ error: spawned.message }); } else {
      const c = spawned.child;
      const reader = c.stdout.pipeThrough(new TextDecoderStream()).getReader();
      let text = "";
      while (!text.includes("\\n")) { const r = await reader.read(); if (r.done) break; text += r.value; }
      let denied = false;
      try { Deno.kill(-c.pid, "SIGKILL"); } catch (e) { denied = e instanceof Deno.errors.NotCapable; }
      await c.killGroup();
      const status = await c.status;
      await reader.cancel(); await c.stderr.cancel();
      self.postMessage({ grandchild: Number(text.trim()), denied, status });
    }
  `;
  const blobUrl = URL.createObjectURL(new Blob([code], { type: "text/javascript" }));
  const worker = new Worker(blobUrl, {
    type: "module",
    deno: {
      permissions: {
        run: ["bash"],
        read: [ws.dir],
        write: false,
        net: false,
        env: false,
        ffi: false,
        sys: false,
        import: true,
      },
    },
  });
  try {
    const result = await new Promise<
      { grandchild: number; denied: boolean; status: unknown; error?: string }
    >((resolve, reject) => {
      worker.onmessage = (e) => resolve(e.data);
      worker.onerror = (e) => {
        e.preventDefault();
        reject(new Error(e.message));
      };
    });
    assert.equal(result.error, undefined);
    assert.equal(result.denied, true, "Deno.kill on a group must be refused under scoped run");
    assert.deepEqual(result.status, { code: null, signal: "SIGKILL" });
    assert.deepEqual(await survivors([result.grandchild]), []);
  } finally {
    worker.terminate();
    URL.revokeObjectURL(blobUrl);
  }
});

Deno.test("looksLikeBinaryText() tells binary noise from text with colours and tabs", () => {
  assert.equal(looksLikeBinaryText(""), false);
  assert.equal(looksLikeBinaryText("plain\ttext\r\n\x1b[31mred\x1b[0m ✓ ünïcödé"), false);
  assert.equal(looksLikeBinaryText("PK\x03\x04\0\0 archive"), true, "a NUL byte");
  assert.equal(looksLikeBinaryText("ab\uFFFD\uFFFD\x01\x02cdefgh"), true);
  assert.equal(looksLikeBinaryText("one bad byte \uFFFD in a long enough line of text"), false);
});
