import assert from "node:assert/strict";
import { createFindTool } from "../../src/tools/find.ts";
import { createLsTool } from "../../src/tools/ls.ts";
import { createDenoFsOps } from "../../src/sys/fs.ts";
import { MemoryFs } from "../support/memory_fs.ts";
import { createTempWorkspace } from "../support/workspace.ts";
import { call } from "./_helpers.ts";

Deno.test("find() matches names at any depth, sorted, honouring ignore files", async () => {
  const fs = new MemoryFs({
    "/ws/.gitignore": "out/\n",
    "/ws/out/x.ts": "",
    "/ws/src/b.ts": "",
    "/ws/src/a.ts": "",
    "/ws/src/deep/.gitignore": "skip.ts\n",
    "/ws/src/deep/skip.ts": "",
    "/ws/src/deep/c.ts": "",
    "/ws/.config.ts": "",
    "/ws/.git/hook.ts": "",
    "/ws/readme.md": "",
  });
  const tool = createFindTool({ cwd: "/ws", fs });
  const r = await call(tool, { pattern: "*.ts" });
  assert.equal(r.output, ".config.ts\nsrc/a.ts\nsrc/b.ts\nsrc/deep/c.ts");
  const scoped = await call(tool, { pattern: "deep/*.ts", path: "src" });
  assert.equal(scoped.output, "src/deep/c.ts");
  const dirs = await call(tool, { pattern: "deep" });
  assert.equal(dirs.output, "src/deep/");
});

Deno.test("find() lists a path the caller names even when an outer rule ignores it", async () => {
  const fs = new MemoryFs({
    "/ws/.gitignore": "build/\n",
    "/ws/build/out/app.js": "",
    "/ws/src/app.js": "",
  });
  const tool = createFindTool({ cwd: "/ws", fs });
  assert.equal((await call(tool, { pattern: "*.js" })).output, "src/app.js");
  assert.equal((await call(tool, { pattern: "*.js", path: "build" })).output, "build/out/app.js");
});

Deno.test("find() stops at the limit with a note and reports no matches", async () => {
  const files: Record<string, string> = {};
  for (let i = 0; i < 12; i++) files[`/ws/f${String(i).padStart(2, "0")}.txt`] = "";
  const tool = createFindTool({ cwd: "/ws", fs: new MemoryFs(files), defaultLimit: 10 });
  const r = await call(tool, { pattern: "*.txt" });
  const [body, note] = r.output.split("\n\n");
  assert.equal(body?.split("\n").length, 10);
  assert.equal(
    note,
    "[Showing the first 10 results. Use limit=20 for more, or narrow the pattern or path.]",
  );
  assert.equal((await call(tool, { pattern: "*.rs" })).output, 'No files matching "*.rs" in "."');
  const onFile = await call(tool, { pattern: "*", path: "f00.txt" });
  assert.equal(onFile.output, 'Cannot search "f00.txt": it is a file, not a directory; use read');
});

Deno.test("find() defaults to 1000 results and ls() to 500 entries, each with a note", async () => {
  const files: Record<string, string> = {};
  for (let i = 0; i < 1001; i++) files[`/ws/f${String(i).padStart(4, "0")}.txt`] = "";
  const fs = new MemoryFs(files);
  const found = await call(createFindTool({ cwd: "/ws", fs }), { pattern: "*.txt" });
  const [findBody, findNote] = found.output.split("\n\n");
  assert.equal(findBody?.split("\n").length, 1000);
  assert.equal(
    findNote,
    "[Showing the first 1000 results. Use limit=2000 for more, or narrow the pattern or path.]",
  );
  const listed = await call(createLsTool({ cwd: "/ws", fs }), {});
  const [lsBody, lsNote] = listed.output.split("\n\n");
  assert.equal(lsBody?.split("\n").length, 500);
  assert.equal(lsNote, "[Showing 500 of 1001 entries. Use limit=1001 to see all.]");
});

Deno.test("ls() sorts case-insensitively, marks directories and includes dotfiles", async () => {
  const fs = new MemoryFs({
    "/ws/b.txt": "",
    "/ws/A.txt": "",
    "/ws/.env": "",
    "/ws/Zeta/x": "",
    "/ws/alpha/y": "",
  });
  fs.addSymlink("/ws/link", "/ws/b.txt");
  const tool = createLsTool({ cwd: "/ws", fs });
  assert.equal((await call(tool, {})).output, ".env\nA.txt\nalpha/\nb.txt\nlink@\nZeta/");
});

Deno.test("ls() limits entries with a note and explains errors", async () => {
  const files: Record<string, string> = {};
  for (let i = 0; i < 7; i++) files[`/ws/d/e${i}`] = "";
  files["/ws/empty/.keep"] = "";
  const fs = new MemoryFs(files);
  fs.addDir("/ws/void");
  const tool = createLsTool({ cwd: "/ws", fs });
  assert.equal(
    (await call(tool, { path: "d", limit: 3 })).output,
    "e0\ne1\ne2\n\n[Showing 3 of 7 entries. Use limit=7 to see all.]",
  );
  assert.equal((await call(tool, { path: "void" })).output, "(empty directory)");
  const file = await call(tool, { path: "d/e0" });
  assert.equal(
    file.output,
    'Cannot list "d/e0": it is a file, not a directory; use read to read it',
  );
  const missing = await call(tool, { path: "dd" });
  assert.match(
    missing.output,
    /^Directory not found: "dd"; similar names in the working directory: d\//,
  );
});

Deno.test("find() and ls() on a real tree", async () => {
  await using ws = await createTempWorkspace({
    ".gitignore": "*.log\n",
    "a.log": "",
    "src/x.ts": "",
    "src/nested/.gitignore": "y.ts\n",
    "src/nested/y.ts": "",
    "src/nested/z.ts": "",
  });
  const find = createFindTool({ cwd: ws.dir, fs: createDenoFsOps() });
  assert.equal(
    (await call(find, { pattern: "*" })).output,
    ".gitignore\nsrc/\nsrc/nested/\nsrc/nested/.gitignore\nsrc/nested/z.ts\nsrc/x.ts",
  );
  const ls = createLsTool({ cwd: ws.dir, fs: createDenoFsOps() });
  assert.equal((await call(ls, {})).output, ".gitignore\na.log\nsrc/");
  assert.deepEqual(await ls.locations?.({ path: "src" }), [{
    access: "read",
    path: ws.path("src"),
  }]);
});

Deno.test("find() cuts output at its byte budget with a note", async () => {
  const files: Record<string, string> = {};
  for (let i = 0; i < 50; i++) files[`/ws/${"n".repeat(40)}${String(i).padStart(2, "0")}.txt`] = "";
  const tool = createFindTool({ cwd: "/ws", fs: new MemoryFs(files), maxBytes: 450 });
  const r = await call(tool, { pattern: "*.txt" });
  const [body, note] = r.output.split("\n\n");
  // 46 bytes per path, 47 with its newline: 9 paths fit in 450 bytes.
  assert.equal(body?.split("\n").length, 9);
  assert.equal(note, "[Output cut at 450 B: showing 9 of 50 results. Narrow the pattern or path.]");
});

Deno.test("find() refuses an empty pattern with an error result instead of throwing", async () => {
  const tool = createFindTool({ cwd: "/ws", fs: new MemoryFs({ "/ws/a.ts": "" }) });
  const r = await call(tool, { pattern: "" });
  assert.equal(r.isError, true);
  assert.match(r.output, /^The pattern is empty; give a glob such as '\*\.ts'/);
});

Deno.test("find() matches '*.ts' and '**/*.ts' alike and explains patterns with '/' on no match", async () => {
  const fs = new MemoryFs({ "/ws/src/a.ts": "", "/ws/src/sub/b.ts": "", "/ws/top.ts": "" });
  const tool = createFindTool({ cwd: "/ws", fs });
  const all = "src/a.ts\nsrc/sub/b.ts\ntop.ts";
  assert.equal((await call(tool, { pattern: "*.ts" })).output, all);
  assert.equal((await call(tool, { pattern: "**/*.ts" })).output, all);
  assert.equal((await call(tool, { pattern: "src/**/*.ts" })).output, "src/a.ts\nsrc/sub/b.ts");
  const miss = await call(tool, { pattern: "src/*.ts", path: "src" });
  assert.match(
    miss.output,
    /^No files matching "src\/\*\.ts" in "src" \(a pattern containing "\/" is matched against paths relative to "src"/,
  );
});
