import assert from "node:assert/strict";
import { createReadTool } from "../../src/tools/read.ts";
import { createDenoFsOps } from "../../src/sys/fs.ts";
import { MemoryFs } from "../support/memory_fs.ts";
import { createTempWorkspace } from "../support/workspace.ts";
import { call, numberedLines, tinyPng } from "./_helpers.ts";

function memRead(files: Record<string, string | Uint8Array>, home?: string) {
  const fs = new MemoryFs(files, home === undefined ? {} : { home });
  return { fs, tool: createReadTool({ cwd: "/ws", fs }) };
}

Deno.test("read() pages at 2000 lines with an exact offset note", async () => {
  const { tool, fs } = memRead({ "/ws/a.txt": numberedLines(5234) });
  const r = await call(tool, { path: "a.txt" });
  assert.equal(r.isError, undefined);
  const [body, note] = r.output.split("\n\n");
  assert.equal(body?.split("\n").length, 2000);
  assert.ok(body?.startsWith("line 1\nline 2\n"));
  assert.ok(body?.endsWith("line 2000"));
  assert.equal(note, "[Showing lines 1-2000 of 5234. Use offset=2001 to continue.]");
  assert.equal(fs.openHandles, 0);
});

Deno.test("read() with offset and limit says how many lines remain", async () => {
  const { tool } = memRead({ "/ws/a.txt": numberedLines(134) });
  const r = await call(tool, { path: "a.txt", offset: 51, limit: 50 });
  assert.equal(
    r.output,
    `${numberedLines(100).split("\n").slice(50, 100).join("\n")}\n\n` +
      "[34 more lines in file. Use offset=101 to continue.]",
  );
});

Deno.test("read() shows the last page without a note", async () => {
  const { tool } = memRead({ "/ws/a.txt": "one\ntwo\nthree" });
  const r = await call(tool, { path: "a.txt", offset: 2 });
  assert.equal(r.output, "two\nthree");
});

Deno.test("read() reports an offset past the end with the total line count", async () => {
  const { tool } = memRead({ "/ws/a.txt": numberedLines(100) });
  const r = await call(tool, { path: "a.txt", offset: 200 });
  assert.equal(r.isError, true);
  assert.match(r.output, /^Offset 200 is beyond end of file "a\.txt" \(100 lines total\)/);
  const one = await call(memRead({ "/ws/b.txt": "only\n" }).tool, { path: "b.txt", offset: 5 });
  assert.match(one.output, /\(1 line total\); use an offset from 1 to 1$/);
});

Deno.test("read() stops at 50 KB without cutting a line and says so", async () => {
  const line = "y".repeat(100);
  const { tool } = memRead({ "/ws/wide.txt": `${line}\n`.repeat(1000) });
  const r = await call(tool, { path: "wide.txt" });
  const [body, note] = r.output.split("\n\n");
  // 100 bytes for the first line, 101 for each further one: 506 lines fit in 51,200 bytes.
  assert.equal(body?.split("\n").length, 506);
  assert.ok(body?.split("\n").every((l) => l === line));
  assert.equal(
    note,
    "[Showing lines 1-506 of 1000 (50.0 KB limit). Use offset=507 to continue.]",
  );
});

Deno.test("read() shortens a line over 2000 characters with its full length", async () => {
  const { tool } = memRead({ "/ws/min.js": `${"x".repeat(5000)}\nnext\n` });
  const r = await call(tool, { path: "min.js" });
  assert.equal(
    r.output,
    `${"x".repeat(2000)}… [line truncated, 5000 characters in full]\nnext`,
  );
});

Deno.test("read() refuses a binary file with its size and dumps nothing", async () => {
  const bytes = new Uint8Array(3000).fill(65);
  bytes[10] = 0;
  const { tool } = memRead({ "/ws/data.bin": bytes });
  const r = await call(tool, { path: "data.bin" });
  assert.equal(r.isError, true);
  assert.match(r.output, /^Cannot read "data\.bin": binary file \(2\.9 KB\)/);
  assert.ok(!r.output.includes("AAAA"));
});

Deno.test("read() says (empty file) for an empty file", async () => {
  const { tool } = memRead({ "/ws/empty.txt": "" });
  assert.equal((await call(tool, { path: "empty.txt" })).output, "(empty file)");
});

Deno.test("read() on a directory suggests ls", async () => {
  const { tool } = memRead({ "/ws/src/a.ts": "x" });
  const r = await call(tool, { path: "src" });
  assert.equal(r.isError, true);
  assert.equal(r.output, 'Cannot read "src": it is a directory; use ls to list it');
});

Deno.test("read() of a missing file names similar files in its directory", async () => {
  const { tool } = memRead({ "/ws/src/main.ts": "x", "/ws/src/mod.ts": "y", "/ws/src/zzz": "" });
  const r = await call(tool, { path: "src/mian.ts" });
  assert.equal(r.isError, true);
  assert.match(r.output, /^File not found: "src\/mian\.ts"; similar names in "src\/": main\.ts/);
  assert.ok(!r.output.includes("zzz"));
});

Deno.test("read() returns an image block for PNG bytes whatever the extension", async () => {
  const png = await tinyPng();
  const { tool } = memRead({ "/ws/pic.dat": png, "/ws/fake.png": "just text\n" });
  const r = await call(tool, { path: "pic.dat" });
  assert.equal(r.output, "Read image file [image/png]");
  assert.deepEqual(r.content?.[0], { type: "text", text: "Read image file [image/png]" });
  const image = r.content?.[1];
  assert.equal(image?.type, "image");
  if (image?.type !== "image") throw new Error("no image block");
  assert.equal(image.mimeType, "image/png");
  assert.deepEqual(Uint8Array.from(atob(image.data), (c) => c.charCodeAt(0)), png);
  assert.equal((await call(tool, { path: "fake.png" })).output, "just text");
});

Deno.test("read() describes an image over 5 MB without attaching it", async () => {
  const big = new Uint8Array(5 * 1024 * 1024 + 10);
  big.set([0xff, 0xd8, 0xff, 0xe0]);
  const { tool } = memRead({ "/ws/big.jpg": big });
  const r = await call(tool, { path: "big.jpg" });
  assert.equal(r.content, undefined);
  assert.match(r.output, /^Read image file \[image\/jpeg\]\n\[Image is 5\.0 MB, over the 5\.0 MB/);
});

Deno.test("read() hides CR of CRLF lines and a BOM", async () => {
  const { tool } = memRead({ "/ws/w.txt": "\uFEFFa\r\nb\r\n" });
  assert.equal((await call(tool, { path: "w.txt" })).output, "a\nb");
});

Deno.test("read() streams a file over 16 MiB in bounded chunks and reports its size", async () => {
  const line = `${"z".repeat(99)}\n`;
  const { tool, fs } = memRead({ "/ws/huge.log": line.repeat(170_000) }); // ~16.2 MiB
  const r = await call(tool, { path: "huge.log" });
  const note = r.output.split("\n\n")[1];
  // 99 bytes for the first line, 100 for each further one: 512 lines fit in 51,200 bytes.
  assert.equal(
    note,
    "[Showing lines 1-512 of a 16.2 MB file (50.0 KB limit). Use offset=513 to continue.]",
  );
  assert.ok(fs.maxReadChunk <= 64 * 1024);
  assert.equal(fs.openHandles, 0);
});

Deno.test("read() reports a file swapped during open as a refused race", async () => {
  const { tool, fs } = memRead({ "/ws/a.txt": "x" });
  fs.faults.push({ op: "openFile", path: "/ws/a.txt", code: "changed" });
  const r = await call(tool, { path: "a.txt" });
  assert.equal(r.isError, true);
  assert.match(r.output, /^Refused: "a\.txt" changed while being opened \(possible symlink race\)/);
});

Deno.test("read() reports a path outside the grants as not granted", async () => {
  const { tool, fs } = memRead({ "/ws/a.txt": "x" });
  fs.faults.push({ op: "openFile", path: "/ws/a.txt", code: "not_granted" });
  const r = await call(tool, { path: "a.txt" });
  assert.equal(
    r.output,
    'Cannot read "a.txt": access is not granted for this run; ask the user to grant it',
  );
});

Deno.test("read() expands ~ and its locations() are real paths through symlinks", async () => {
  const { tool, fs } = memRead({ "/home/u/notes.txt": "hi", "/outside/secret": "s" }, "/home/u");
  fs.addSymlink("/ws/link", "/outside/secret");
  assert.equal((await call(tool, { path: "~/notes.txt" })).output, "hi");
  assert.deepEqual(await tool.locations?.({ path: "link" }), [
    { access: "read", path: "/outside/secret" },
  ]);
  assert.deepEqual(await tool.locations?.({ path: "../ws/new/file.txt" }), [
    { access: "read", path: "/ws/new/file.txt" },
  ]);
});

Deno.test("read() on a real directory pages a file and returns a real PNG", async () => {
  await using ws = await createTempWorkspace({
    "a.txt": numberedLines(2500),
    "img/dot.png": await tinyPng(),
    "bin.dat": new Uint8Array([1, 2, 0, 3]),
  });
  const tool = createReadTool({ cwd: ws.dir, fs: createDenoFsOps() });
  const page2 = await call(tool, { path: "a.txt", offset: 2001 });
  assert.equal(page2.output.split("\n").length, 500);
  assert.ok(page2.output.startsWith("line 2001\n"));
  const first = await call(tool, { path: "a.txt", limit: 10 });
  assert.ok(first.output.endsWith("\n\n[2490 more lines in file. Use offset=11 to continue.]"));
  const img = await call(tool, { path: "img/dot.png" });
  assert.equal(img.content?.[1]?.type, "image");
  assert.equal((await call(tool, { path: "bin.dat" })).isError, true);
});

Deno.test("read() of a real file over 16 MiB shows page one with the file size", async () => {
  await using ws = await createTempWorkspace();
  const file = await Deno.open(ws.path("big.txt"), { write: true, create: true });
  const block = new TextEncoder().encode(numberedLines(10_000, "row "));
  let size = 0;
  while (size <= 17 * 1024 * 1024) {
    await file.write(block);
    size += block.length;
  }
  file.close();
  const tool = createReadTool({ cwd: ws.dir, fs: createDenoFsOps() });
  const r = await call(tool, { path: "big.txt" });
  assert.ok(r.output.startsWith("row 1\nrow 2\n"));
  assert.match(
    r.output,
    /\n\n\[Showing lines 1-2000 of a 1\d\.\d MB file\. Use offset=2001 to continue\.\]$/,
  );
});

Deno.test("read() says '1 more line' in the singular", async () => {
  const { tool } = memRead({ "/ws/a.txt": numberedLines(3) });
  const r = await call(tool, { path: "a.txt", limit: 2 });
  assert.equal(r.output, "line 1\nline 2\n\n[1 more line in file. Use offset=3 to continue.]");
});

Deno.test("read() repairs offset 0 to the first line and refuses offsets or limits below 1", async () => {
  const { tool } = memRead({ "/ws/a.txt": numberedLines(3) });
  const repaired = tool.prepareArguments?.({ path: "a.txt", offset: 0, limit: 1 });
  assert.deepEqual(repaired, { path: "a.txt", offset: 1, limit: 1 });
  assert.equal(
    (await call(tool, repaired)).output,
    "line 1\n\n[2 more lines in file. Use offset=2 to continue.]",
  );
  assert.deepEqual(tool.prepareArguments?.({ path: "a.txt", offset: -5 }), {
    path: "a.txt",
    offset: -5,
  });
  const negative = await call(tool, { path: "a.txt", offset: -5 });
  assert.equal(negative.isError, true);
  assert.equal(negative.output, "Offset -5 is invalid: lines start at 1");
  const zeroLimit = await call(tool, { path: "a.txt", limit: 0 });
  assert.equal(zeroLimit.isError, true);
  assert.equal(zeroLimit.output, "Limit 0 is invalid: give at least 1 line");
});

Deno.test("read() pages a 1 MB file with no newline without keeping the line", async () => {
  const { tool, fs } = memRead({ "/ws/one.txt": "a".repeat(1_000_000) });
  const r = await call(tool, { path: "one.txt" });
  assert.equal(r.output, `${"a".repeat(2000)}… [line truncated, 1000000 characters in full]`);
  assert.ok(fs.maxReadChunk <= 64 * 1024, `read chunk ${fs.maxReadChunk}`);
});

Deno.test("read() recognises GIF, WebP and JPEG by magic bytes, not by name", async () => {
  const enc = (s: string) => [...new TextEncoder().encode(s)];
  const { tool } = memRead({
    "/ws/a.txt": new Uint8Array([...enc("GIF89a"), 1, 0, 1, 0, 0, 0, 0]),
    "/ws/b.png": new Uint8Array([...enc("RIFF"), 8, 0, 0, 0, ...enc("WEBPVP8 "), 0, 0]),
    "/ws/c": new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0, 0x10]),
    "/ws/d.webp": new Uint8Array([...enc("RIFF"), 8, 0, 0, 0, ...enc("WAVEfmt "), 0, 0]),
  });
  for (
    const [path, mime] of [["a.txt", "image/gif"], ["b.png", "image/webp"], ["c", "image/jpeg"]]
  ) {
    const r = await call(tool, { path });
    assert.equal(r.output, `Read image file [${mime}]`);
    assert.equal(r.content?.[1]?.type, "image");
    assert.equal((r.content?.[1] as { mimeType: string }).mimeType, mime);
  }
  const wave = await call(tool, { path: "d.webp" });
  assert.equal(wave.isError, true);
  assert.match(wave.output, /binary file/);
});

Deno.test("read's prunedHint names the path, offset and limit that bring a pruned page back", async () => {
  const { tool } = memRead({ "/ws/a.txt": numberedLines(300) });
  const r = await call(tool, { path: "a.txt", offset: 101, limit: 50 });
  const hint = tool.prunedHint?.({ path: "a.txt", offset: 101, limit: 50 }, {
    toolCallId: "c1",
    toolName: "read",
    content: r.output,
    isError: false,
    details: r.details,
  });
  assert.equal(
    hint,
    'Read "a.txt" again with offset=101 and limit=50 if you need these lines (the file may have changed since).',
  );
  const failed = tool.prunedHint?.({ path: "b.txt" }, {
    toolCallId: "c2",
    toolName: "read",
    content: "File not found",
    isError: true,
  });
  assert.equal(failed, 'Read "b.txt" again if you need it.');
});
