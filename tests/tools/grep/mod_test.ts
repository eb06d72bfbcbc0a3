import assert from "node:assert/strict";
import { createGrepTool } from "../../../src/tools/grep/mod.ts";
import { createDenoFsOps } from "../../../src/sys/fs.ts";
import { MemoryFs } from "../../support/memory_fs.ts";
import { createTempWorkspace } from "../../support/workspace.ts";
import { call } from "../_helpers.ts";

function memGrep(
  files: Record<string, string | Uint8Array>,
  options: { concurrency?: number } = {},
) {
  const fs = new MemoryFs(files);
  return { fs, tool: createGrepTool({ cwd: "/ws", fs, ...options }) };
}

Deno.test("grep() prints path:line: text in walk order and includes hidden files", async () => {
  const { tool } = memGrep({
    "/ws/b.ts": "const x = 1;\nTODO later\n",
    "/ws/a.ts": "TODO first\n",
    "/ws/.hidden/c.ts": "nothing\nTODO hidden\n",
  });
  const r = await call(tool, { pattern: "TODO" });
  assert.equal(r.output, ".hidden/c.ts:2: TODO hidden\na.ts:1: TODO first\nb.ts:2: TODO later");
});

Deno.test("grep() honours nested .gitignore and .ignore files and skips .git", async () => {
  const { tool } = memGrep({
    "/ws/.gitignore": "dist/\n*.log\n",
    "/ws/dist/out.js": "needle\n",
    "/ws/app.log": "needle\n",
    "/ws/src/.gitignore": "gen.ts\n!keep.log\n",
    "/ws/src/gen.ts": "needle\n",
    "/ws/src/keep.log": "needle\n",
    "/ws/src/main.ts": "needle\n",
    "/ws/lib/.ignore": "vendor\n",
    "/ws/lib/vendor/v.ts": "needle\n",
    "/ws/.git/config": "needle\n",
  });
  const r = await call(tool, { pattern: "needle" });
  assert.equal(r.output, "src/keep.log:1: needle\nsrc/main.ts:1: needle");
});

Deno.test("grep() applies ignore files above the search path", async () => {
  const { tool } = memGrep({
    "/ws/.gitignore": "src/gen/\n",
    "/ws/src/gen/g.ts": "needle\n",
    "/ws/src/ok.ts": "needle\n",
  });
  assert.equal(
    (await call(tool, { pattern: "needle", path: "src" })).output,
    "src/ok.ts:1: needle",
  );
});

Deno.test("grep() searches a path the caller names even when an outer rule ignores it", async () => {
  const { tool } = memGrep({
    "/ws/.gitignore": "node_modules/\n",
    "/ws/node_modules/pkg/index.js": "needle\n",
    "/ws/node_modules/pkg/.gitignore": "gen.js\n",
    "/ws/node_modules/pkg/gen.js": "needle\n",
    "/ws/src/a.ts": "needle\n",
  });
  assert.equal((await call(tool, { pattern: "needle" })).output, "src/a.ts:1: needle");
  assert.equal(
    (await call(tool, { pattern: "needle", path: "node_modules" })).output,
    "node_modules/pkg/index.js:1: needle",
  );
});

Deno.test("grep() shows context lines and separates groups", async () => {
  const { tool } = memGrep({ "/ws/f.txt": "a\nb\nhit1\nc\nd\ne\nf\nhit2\ng\n" });
  const r = await call(tool, { pattern: "hit", context: 1 });
  assert.equal(
    r.output,
    "f.txt-2- b\nf.txt:3: hit1\nf.txt-4- c\n--\nf.txt-7- f\nf.txt:8: hit2\nf.txt-9- g",
  );
});

Deno.test("grep() stops at the limit with a note and keeps order under concurrency", async () => {
  const files: Record<string, string> = {};
  for (let i = 0; i < 30; i++) files[`/ws/f${String(i).padStart(2, "0")}.txt`] = "x\nx\n";
  const { tool, fs } = memGrep(files, { concurrency: 4 });
  const r = await call(tool, { pattern: "x", limit: 5 });
  assert.equal(
    r.output,
    "f00.txt:1: x\nf00.txt:2: x\nf01.txt:1: x\nf01.txt:2: x\nf02.txt:1: x\n\n" +
      "[Reached the limit of 5 matches. Use limit=10 for more, or narrow the pattern, path or glob.]",
  );
  assert.equal(fs.openHandles, 0);
});

Deno.test("grep() defaults to 100 matches", async () => {
  const { tool } = memGrep({ "/ws/many.txt": "m\n".repeat(150) });
  const r = await call(tool, { pattern: "m" });
  const [body, note] = r.output.split("\n\n");
  assert.equal(body?.split("\n").length, 100);
  assert.match(note ?? "", /^\[Reached the limit of 100 matches\. Use limit=200/);
});

Deno.test("grep() supports literal, ignoreCase and glob, and skips binary files", async () => {
  const { tool } = memGrep({
    "/ws/a.ts": "Call(x)\n",
    "/ws/a.md": "call(x)\n",
    "/ws/bin.ts": new Uint8Array([99, 97, 108, 108, 40, 0, 41]),
  });
  const r = await call(tool, { pattern: "call(", literal: true, ignoreCase: true, glob: "*.ts" });
  assert.equal(r.output, "a.ts:1: Call(x)");
});

Deno.test("grep() cuts lines over 500 characters with a marker", async () => {
  const { tool } = memGrep({ "/ws/min.js": `${"a".repeat(600)}needle${"b".repeat(400)}\n` });
  const r = await call(tool, { pattern: "needle" });
  assert.equal(r.output, `min.js:1: ${"a".repeat(500)}… [line truncated, 1006 characters in full]`);
});

Deno.test("grep() reports an invalid regex, no matches and a missing path clearly", async () => {
  const { tool } = memGrep({ "/ws/src/a.ts": "x\n" });
  const bad = await call(tool, { pattern: "(" });
  assert.equal(bad.isError, true);
  assert.match(
    bad.output,
    /^Invalid regular expression "\(": .*; escape special characters or set literal=true$/,
  );
  const none = await call(tool, { pattern: "zzz" });
  assert.equal(none.isError, undefined);
  assert.equal(none.output, 'No matches for "zzz" in "."');
  const missing = await call(tool, { pattern: "x", path: "scr" });
  assert.match(
    missing.output,
    /^Path not found: "scr"; similar names in the working directory: src\//,
  );
});

Deno.test("grep() on a real tree honours .gitignore and searches a single file", async () => {
  await using ws = await createTempWorkspace({
    ".gitignore": "node_modules/\nbuild\n",
    "node_modules/pkg/index.js": "findme\n",
    "build/out.txt": "findme\n",
    "src/sub/.gitignore": "*.tmp\n",
    "src/sub/x.tmp": "findme\n",
    "src/sub/y.ts": "before\nfindme\n",
    "README.md": "no\n",
  });
  const tool = createGrepTool({ cwd: ws.dir, fs: createDenoFsOps() });
  assert.equal((await call(tool, { pattern: "findme" })).output, "src/sub/y.ts:2: findme");
  assert.equal(
    (await call(tool, { pattern: "findme", path: "build/out.txt" })).output,
    "build/out.txt:1: findme",
  );
  assert.deepEqual(
    await createGrepTool({ cwd: ws.dir, fs: createDenoFsOps() }).locations?.({ pattern: "x" }),
    [
      { access: "read", path: ws.dir },
    ],
  );
});

Deno.test("grep() refuses an empty pattern instead of matching every line", async () => {
  const { tool } = memGrep({ "/ws/a.ts": "one\ntwo\n" });
  const r = await call(tool, { pattern: "" });
  assert.equal(r.isError, true);
  assert.match(r.output, /^The pattern is empty, which would match every line; /);
});

Deno.test("grep() on a single binary file says it was skipped as binary", async () => {
  const { tool } = memGrep({ "/ws/blob.bin": new Uint8Array([110, 101, 101, 100, 0, 1]) });
  const r = await call(tool, { pattern: "need", path: "blob.bin" });
  assert.equal(r.isError, undefined);
  assert.match(r.output, /^No matches: "blob\.bin" is a binary file, which grep skips; /);
});

Deno.test("grep() applies ignore rules to names starting with two dots", async () => {
  const { tool } = memGrep({
    "/ws/.gitignore": "..cache\n",
    "/ws/..cache/c.ts": "needle\n",
    "/ws/..src/.gitignore": "gen.ts\n",
    "/ws/..src/gen.ts": "needle\n",
    "/ws/..src/ok.ts": "needle\n",
  });
  assert.equal((await call(tool, { pattern: "needle" })).output, "..src/ok.ts:1: needle");
  const scoped = memGrep({ "/ws/.gitignore": "*.gen\n", "/ws/..x/a.gen": "needle\n" });
  const r = await call(scoped.tool, { pattern: "needle", path: "..x" });
  assert.equal(r.output, 'No matches for "needle" in "..x"');
});

Deno.test("grep() strips CR from CRLF lines in matches and context", async () => {
  const { tool } = memGrep({ "/ws/w.txt": "before\r\nneedle\r\nafter\r\n" });
  const r = await call(tool, { pattern: "needle$", context: 1 });
  assert.equal(r.output, "w.txt-1- before\nw.txt:2: needle\nw.txt-3- after");
});

/** 3,000 numbered lines (~29 KB, several 8 KiB read chunks), the last one without a newline. */
function chunkedFile(): { text: string; lines: string[] } {
  const lines = Array.from({ length: 3000 }, (_, i) => `line ${i + 1} ${"pad".repeat(i % 3)}`);
  lines[1234] = "a MARK-ER straddles";
  lines[2999] = "final MARK-ER";
  return { text: lines.join("\n"), lines };
}

for (const mode of ["real directory (synchronous reads)", "in-memory fs (async reads)"]) {
  Deno.test(`grep() on a ${mode} finds matches across read-chunk edges with context`, async () => {
    const { text, lines } = chunkedFile();
    // Put chunk edges (8,192-byte reads) inside a match and between the context lines.
    const edge = 8192 * 2;
    const before = new TextEncoder().encode(text).subarray(0, edge);
    const lineAtEdge = new TextDecoder().decode(before).split("\n").length; // 1-based
    lines[lineAtEdge - 1] = `x${"y".repeat(3)}MARK-ER${"z".repeat(40)}`;
    const body = lines.join("\n");
    let tool;
    await using ws = await createTempWorkspace({ "big.txt": body });
    if (mode.startsWith("real")) {
      tool = createGrepTool({ cwd: ws.dir, fs: createDenoFsOps(), chunkBytes: 8192 });
    } else {
      tool = createGrepTool({
        cwd: "/ws",
        fs: new MemoryFs({ "/ws/big.txt": body }),
        chunkBytes: 8192,
      });
    }
    const r = await call(tool, { pattern: "MARK-ER", literal: true, context: 1 });
    const row = (n: number, sep: string) => `big.txt${sep}${n}${sep} ${lines[n - 1]}`;
    const group = (n: number) =>
      n === 3000
        ? [row(2999, "-"), row(3000, ":")]
        : [row(n - 1, "-"), row(n, ":"), row(n + 1, "-")];
    const expected = [1235, lineAtEdge, 3000].sort((a, b) => a - b).map((n) => group(n).join("\n"));
    assert.equal(r.output, expected.join("\n--\n"));
  });
}

Deno.test("grep() matches line by line: lookarounds see the line end and no match spans lines", async () => {
  const { tool } = memGrep({ "/ws/f.txt": "a foo\nfoo bar\na\nb\na b\n" });
  assert.equal((await call(tool, { pattern: "foo(?!\\s)" })).output, "f.txt:1: a foo");
  // Nothing before "b": true only at the start of the line itself.
  assert.equal((await call(tool, { pattern: "(?<![\\s\\S])b" })).output, "f.txt:4: b");
  assert.equal((await call(tool, { pattern: "a\\sb" })).output, "f.txt:5: a b");
  assert.equal((await call(tool, { pattern: "^a$" })).output, "f.txt:3: a");
});

Deno.test("grep() stops with an error result when aborted", async () => {
  const { tool } = memGrep({ "/ws/a.txt": "x\n", "/ws/b.txt": "x\n" });
  const controller = new AbortController();
  controller.abort();
  const r = await call(tool, { pattern: "x" }, controller.signal);
  assert.equal(r.isError, true);
  assert.equal(r.output, "Search aborted");
});

Deno.test("grep() matches negated classes and tabs within lines only", async () => {
  const text = "let a = 1;\nno semicolon here\n\tindented;\n";
  const { tool } = memGrep({ "/ws/f.ts": text });
  assert.equal(
    (await call(tool, { pattern: "[^;]*;$" })).output,
    "f.ts:1: let a = 1;\nf.ts:3: \tindented;",
  );
  assert.equal((await call(tool, { pattern: "^\\t" })).output, "f.ts:3: \tindented;");
});
