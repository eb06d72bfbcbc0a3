import assert from "node:assert/strict";
import { createGrepTool } from "../../../src/tools/grep/mod.ts";
import {
  type ScanThread,
  type ScanThreads,
  serveScanThread,
  type ThreadPort,
  type ThreadRequest,
} from "../../../src/tools/grep/threads.ts";
import type { FsOps } from "../../../src/tools/ops.ts";
import { createDenoFsOps } from "../../../src/sys/fs.ts";
import { MemoryFs } from "../../support/memory_fs.ts";
import { createTempWorkspace, type TempWorkspace } from "../../support/workspace.ts";
import { call } from "../_helpers.ts";

/** Helper threads in this thread: each serves `fs` on one end of a MessageChannel. */
function inProcessThreads(
  fs: FsOps,
  options: { size?: number; fail?: "on_start" | "after_first_batch" } = {},
) {
  const stats = { started: 0, terminated: 0 };
  const threads: ScanThreads = {
    size: options.size ?? 2,
    minFiles: 1,
    start(): ScanThread {
      stats.started++;
      const channel = new MessageChannel();
      serveScanThread(channel.port2 as unknown as ThreadPort, fs);
      let batches = 0;
      let closed = false;
      const thread: ScanThread = {
        onmessage: null,
        onerror: null,
        postMessage(message: ThreadRequest) {
          if (closed) return;
          const failNow = options.fail === "on_start" ||
            (options.fail === "after_first_batch" && message.type === "batch" && batches++ > 0);
          if (failNow) {
            const error = new ErrorEvent("error", { message: "thread died", cancelable: true });
            queueMicrotask(() => thread.onerror?.(error));
            return;
          }
          channel.port1.postMessage(message);
        },
        terminate() {
          if (closed) return;
          closed = true;
          stats.terminated++;
          channel.port1.close();
          channel.port2.close();
        },
      };
      channel.port1.onmessage = (event) => thread.onmessage?.(event);
      return thread;
    },
  };
  return { threads, stats };
}

/** ~200 files in nested directories with ignore files, a binary file and matches throughout. */
async function tree(): Promise<TempWorkspace> {
  const files: Record<string, string | Uint8Array> = {
    ".gitignore": "*.log\n/vendor/\n",
    "vendor/v.ts": "needle vendored\n",
    "bin/blob.bin": new Uint8Array([110, 101, 101, 100, 108, 101, 0, 1]),
  };
  for (let d = 0; d < 8; d++) {
    files[`pkg${d}/.gitignore`] = "tmp/\n";
    files[`pkg${d}/tmp/t.ts`] = "needle ignored\n";
    for (let f = 0; f < 25; f++) {
      const lines = Array.from({ length: 12 }, (_, i) => `line ${i} of ${d}/${f}`);
      if ((d * 25 + f) % 3 === 0) lines[(f % 10) + 1] = `the needle ${d}/${f}`;
      files[`pkg${d}/f${String(f).padStart(2, "0")}.ts`] = lines.join("\n") + "\n";
      files[`pkg${d}/f${f}.log`] = "needle in a log\n";
    }
  }
  return await createTempWorkspace(files);
}

const SEARCHES = [
  { pattern: "needle" },
  { pattern: "needle", context: 1 },
  { pattern: "needle \\d/1", limit: 3 },
  { pattern: "NEEDLE", ignoreCase: true, glob: "pkg3/**" },
  { pattern: "needle", limit: 20 },
];

Deno.test("grep() with helper threads lists the same rows, notes and order as on one thread", async () => {
  await using ws = await tree();
  const fs = createDenoFsOps();
  const one = createGrepTool({ cwd: ws.dir, fs });
  const { threads, stats } = inProcessThreads(fs);
  const many = createGrepTool({ cwd: ws.dir, fs, threads });
  for (const args of SEARCHES) {
    const expected = await call(one, args);
    const actual = await call(many, args);
    assert.equal(actual.output, expected.output, JSON.stringify(args));
    const { threads: used, ...details } = actual.details as Record<string, unknown>;
    assert.deepEqual(details, expected.details);
    assert.equal(used, 2);
  }
  assert.equal(stats.terminated, stats.started, "every thread is stopped at the end of its call");
});

Deno.test("grep() scans the files of a helper thread that fails itself, in order", async () => {
  await using ws = await tree();
  const fs = createDenoFsOps();
  const one = createGrepTool({ cwd: ws.dir, fs });
  for (const fail of ["on_start", "after_first_batch"] as const) {
    const { threads, stats } = inProcessThreads(fs, { size: 1, fail });
    const tool = createGrepTool({ cwd: ws.dir, fs, threads });
    for (const args of SEARCHES) {
      assert.equal((await call(tool, args)).output, (await call(one, args)).output, fail);
    }
    assert.equal(stats.terminated, stats.started);
  }
});

Deno.test("grep() takes the work back from a thread whose file operations cannot scan", async () => {
  // MemoryFs has no synchronous opens: its helper answers "failed", and grep scans here.
  const files = Object.fromEntries(
    Array.from({ length: 40 }, (_, i) => [`/ws/f${String(i).padStart(2, "0")}.txt`, `x ${i}\n`]),
  );
  const fs = new MemoryFs(files);
  const { threads } = inProcessThreads(fs);
  const r = await call(createGrepTool({ cwd: "/ws", fs, threads }), { pattern: "x 3" });
  assert.equal(
    r.output,
    "f03.txt:1: x 3\nf30.txt:1: x 30\nf31.txt:1: x 31\nf32.txt:1: x 32\n" +
      "f33.txt:1: x 33\nf34.txt:1: x 34\nf35.txt:1: x 35\nf36.txt:1: x 36\nf37.txt:1: x 37\n" +
      "f38.txt:1: x 38\nf39.txt:1: x 39",
  );
  assert.equal(fs.openHandles, 0);
});

Deno.test("grep() finds the same matches with confined opens, re-checked opens and the default", async () => {
  await using ws = await tree();
  const modes = [{}, { confined: true }, { recheckRealPath: true }];
  for (const args of SEARCHES) {
    const outputs = [];
    for (const mode of modes) {
      const fs = createDenoFsOps(mode);
      outputs.push((await call(createGrepTool({ cwd: ws.dir, fs }), args)).output);
      const { threads } = inProcessThreads(fs);
      outputs.push((await call(createGrepTool({ cwd: ws.dir, fs, threads }), args)).output);
    }
    for (const output of outputs) assert.equal(output, outputs[0], JSON.stringify(args));
  }
});

Deno.test("grep() without bubblewrap never returns an outside file swapped in for a walked one", async () => {
  await using ws = await tree();
  await using outside = await createTempWorkspace({ "secret.txt": "needle SECRET\n" });
  // Every walked file is swapped for a symlink to the secret between its lstat and its open.
  const swap = (path: string) => {
    Deno.removeSync(path);
    Deno.symlinkSync(outside.path("secret.txt"), path);
  };
  const fs = createDenoFsOps({ recheckRealPath: true, beforeWalkedOpen: swap });
  const { threads } = inProcessThreads(fs);
  for (
    const tool of [
      createGrepTool({ cwd: ws.dir, fs }),
      createGrepTool({ cwd: ws.dir, fs, threads }),
    ]
  ) {
    const r = await call(tool, { pattern: "SECRET" });
    assert.equal(r.output, `No matches for "SECRET" in "."`);
  }
});

Deno.test("grep() does not follow a symlink in the tree, confined or not", async () => {
  await using ws = await tree();
  await using outside = await createTempWorkspace({ "secret.txt": "needle SECRET\n" });
  await Deno.symlink(outside.path("secret.txt"), ws.path("pkg0/link.ts"));
  await Deno.symlink(outside.dir, ws.path("pkg1/linkdir"));
  for (const mode of [{ confined: true }, { recheckRealPath: true }]) {
    const fs = createDenoFsOps(mode);
    const { threads } = inProcessThreads(fs);
    const r = await call(createGrepTool({ cwd: ws.dir, fs, threads }), { pattern: "SECRET" });
    assert.equal(r.output, `No matches for "SECRET" in "."`);
  }
});

Deno.test("grep() stops its helper threads and answers 'Search aborted' when aborted midway", async () => {
  await using ws = await tree();
  for (const withThreads of [false, true]) {
    const controller = new AbortController();
    const deno = createDenoFsOps();
    let opened = 0;
    const fs: FsOps = {
      ...deno,
      openWalkedFileSync(path) {
        if (++opened === 50) controller.abort();
        return deno.openWalkedFileSync!(path);
      },
    };
    const { threads, stats } = inProcessThreads(fs, { size: 1 });
    const tool = createGrepTool({ cwd: ws.dir, fs, ...(withThreads ? { threads } : {}) });
    const r = await call(tool, { pattern: "needle" }, controller.signal);
    assert.deepEqual([r.isError, r.output], [true, "Search aborted"]);
    assert.ok(opened >= 50 && opened < 200, `stopped soon after the abort (${opened} opens)`);
    assert.equal(stats.terminated, stats.started);
  }
});
