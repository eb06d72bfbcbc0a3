import assert from "node:assert/strict";
import { Value } from "@sinclair/typebox/value";
import { createEditTool, EditParams, prepareEditArguments } from "../../src/tools/edit.ts";
import { createDenoFsOps } from "../../src/sys/fs.ts";
import { MemoryFs } from "../support/memory_fs.ts";
import { createTempWorkspace } from "../support/workspace.ts";
import { call } from "./_helpers.ts";

function memEdit(files: Record<string, string | Uint8Array>) {
  const fs = new MemoryFs(files);
  return { fs, tool: createEditTool({ cwd: "/ws", fs }) };
}

const APP =
  "import x from 'x';\n\nfunction a() {\n  return 1;\n}\n\nfunction b() {\n  return 2;\n}\n";

Deno.test("edit() applies several edits against the original and reports briefly", async () => {
  const { tool, fs } = memEdit({ "/ws/src/app.ts": APP });
  const r = await call(tool, {
    path: "src/app.ts",
    edits: [
      { oldText: "  return 2;", newText: "  return 20;" },
      { oldText: "  return 1;", newText: "  return 10;" },
    ],
  });
  assert.equal(r.isError, undefined);
  assert.equal(r.output, "Edited src/app.ts: 2 edits applied.");
  assert.equal(
    fs.text("/ws/src/app.ts"),
    APP.replace("return 1;", "return 10;").replace("return 2;", "return 20;"),
  );
  assert.match(r.display ?? "", /^- {2}return 1;$/m);
  assert.match(r.display ?? "", /^\+ {2}return 10;$/m);
  assert.ok(!r.output.includes("@@"));
});

Deno.test("edit() refuses a missing oldText with a whitespace hint and changes nothing", async () => {
  const { tool, fs } = memEdit({ "/ws/a.ts": APP });
  const r = await call(tool, {
    path: "a.ts",
    edits: [
      { oldText: "  return 2;", newText: "  return 3;" },
      { oldText: "function b() {\nreturn 2;\n}", newText: "" },
    ],
  });
  assert.equal(r.isError, true);
  assert.match(
    r.output,
    /edit 2: oldText was not found; it matches at line 7 if whitespace is ignored/,
  );
  assert.match(r.output, /No edits were applied\.$/);
  assert.equal(fs.text("/ws/a.ts"), APP);
});

Deno.test("edit() refuses an ambiguous oldText naming the lines", async () => {
  const { tool, fs } = memEdit({ "/ws/a.ts": APP });
  const r = await call(tool, { path: "a.ts", edits: [{ oldText: "function", newText: "fn" }] });
  assert.equal(r.isError, true);
  assert.match(r.output, /oldText occurs 2 times \(lines 3, 7\); include more surrounding lines/);
  assert.equal(fs.text("/ws/a.ts"), APP);
});

Deno.test("edit() refuses overlapping edits and changes nothing", async () => {
  const { tool, fs } = memEdit({ "/ws/a.ts": APP });
  const r = await call(tool, {
    path: "a.ts",
    edits: [
      { oldText: "function a() {\n  return 1;", newText: "x" },
      { oldText: "return 1;\n}", newText: "y" },
    ],
  });
  assert.equal(r.isError, true);
  assert.match(r.output, /^Cannot edit "a\.ts": edits 1 and 2 overlap \(line 4\)/);
  assert.equal(fs.text("/ws/a.ts"), APP);
});

Deno.test("edit() keeps CRLF line endings and the BOM, matching LF oldText", async () => {
  const original = "\uFEFFone\r\ntwo\r\nthree\r\n";
  const { tool, fs } = memEdit({ "/ws/w.txt": original });
  const r = await call(tool, {
    path: "w.txt",
    edits: [{ oldText: "two\nthree", newText: "2\n3\n3.5" }],
  });
  assert.equal(r.isError, undefined);
  assert.equal(fs.text("/ws/w.txt"), "\uFEFFone\r\n2\r\n3\r\n3.5\r\n");
});

Deno.test("edit() leaves bytes outside the replaced region untouched in mixed files", async () => {
  const original = "a\r\nb\nc\r\nd\n";
  const { tool, fs } = memEdit({ "/ws/m.txt": original });
  await call(tool, { path: "m.txt", edits: [{ oldText: "c", newText: "C" }] });
  assert.equal(fs.text("/ws/m.txt"), "a\r\nb\nC\r\nd\n");
});

Deno.test("edit() refuses binary files, empty and no-op edits", async () => {
  const { tool } = memEdit({ "/ws/b.bin": new Uint8Array([97, 0, 98]), "/ws/a.ts": APP });
  const bin = await call(tool, { path: "b.bin", edits: [{ oldText: "a", newText: "b" }] });
  assert.equal(bin.output, 'Cannot edit "b.bin": it is a binary file; edit only text files');
  const empty = await call(tool, { path: "a.ts", edits: [{ oldText: "", newText: "b" }] });
  assert.match(empty.output, /oldText is empty/);
  const same = await call(tool, {
    path: "a.ts",
    edits: [{ oldText: "import", newText: "import" }],
  });
  assert.match(same.output, /oldText and newText are identical/);
});

Deno.test("edit() of a missing file suggests similar names", async () => {
  const { tool } = memEdit({ "/ws/src/main.ts": "x" });
  const r = await call(tool, { path: "src/mian.ts", edits: [{ oldText: "x", newText: "y" }] });
  assert.equal(r.isError, true);
  assert.match(r.output, /File not found: "src\/mian\.ts"; similar names in "src\/": main\.ts/);
});

Deno.test("prepareArguments() repairs edits as a JSON string, a single object and a top-level pair", () => {
  const fromString = prepareEditArguments({
    path: "a",
    edits: JSON.stringify([{ oldText: "x", newText: "y" }]),
  });
  const fromObject = prepareEditArguments({ path: "a", edits: { oldText: "x", newText: "y" } });
  const fromPair = prepareEditArguments({ path: "a", oldText: "x", newText: "y" });
  for (const repaired of [fromString, fromObject, fromPair]) {
    assert.deepEqual(repaired, { path: "a", edits: [{ oldText: "x", newText: "y" }] });
    assert.ok(Value.Check(EditParams, repaired));
  }
  assert.equal(prepareEditArguments("junk"), "junk");
});

Deno.test("edit() locations() are read and write of the real path", async () => {
  const { tool, fs } = memEdit({ "/real/a.ts": "x" });
  fs.addSymlink("/ws/link.ts", "/real/a.ts");
  assert.deepEqual(await tool.locations?.({ path: "link.ts", edits: [] }), [
    { access: "read", path: "/real/a.ts" },
    { access: "write", path: "/real/a.ts" },
  ]);
});

Deno.test("edit() on a real CRLF+BOM file round-trips bytes and keeps the mode", async () => {
  const original = "\uFEFFalpha\r\nbeta\r\ngamma\r\n";
  await using ws = await createTempWorkspace({ "w.txt": original });
  await Deno.chmod(ws.path("w.txt"), 0o640);
  const tool = createEditTool({ cwd: ws.dir, fs: createDenoFsOps() });
  const r = await call(tool, {
    path: "w.txt",
    edits: [{ oldText: "beta", newText: "BETA\nextra" }],
  });
  assert.equal(r.output, "Edited w.txt: 1 edit applied.");
  const bytes = await Deno.readFile(ws.path("w.txt"));
  assert.deepEqual([...bytes.subarray(0, 3)], [0xef, 0xbb, 0xbf]);
  assert.equal(
    new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes),
    "\uFEFFalpha\r\nBETA\r\nextra\r\ngamma\r\n",
  );
  assert.equal((await Deno.stat(ws.path("w.txt"))).mode! & 0o777, 0o640);
  const leftovers = [];
  for await (const e of Deno.readDir(ws.dir)) leftovers.push(e.name);
  assert.deepEqual(leftovers, ["w.txt"]);
});

Deno.test("edit() on a real file refuses overlapping edits and leaves the file as it was", async () => {
  await using ws = await createTempWorkspace({ "a.ts": APP });
  const tool = createEditTool({ cwd: ws.dir, fs: createDenoFsOps() });
  const r = await call(tool, {
    path: "a.ts",
    edits: [{ oldText: "return 1;", newText: "x" }, { oldText: "1;\n}", newText: "y" }],
  });
  assert.equal(r.isError, true);
  assert.match(r.output, /overlap/);
  assert.equal(await Deno.readTextFile(ws.path("a.ts")), APP);
});

Deno.test("edit() whitespace hint gives the right line after emoji (astral characters)", async () => {
  const text = `const a = '${"😀".repeat(30)}';\nconst b = 2;\nfunction  c() {\n  return 3;\n}\n` +
    "const d = 4;\n".repeat(20);
  const { tool, fs } = memEdit({ "/ws/a.ts": text });
  const r = await call(tool, {
    path: "a.ts",
    edits: [{ oldText: "function c() { return 3; }", newText: "x" }],
  });
  assert.equal(r.isError, true);
  assert.match(r.output, /it matches at line 3 if whitespace is ignored/);
  assert.equal(fs.text("/ws/a.ts"), text);
});

Deno.test("prepareArguments() keeps a top-level pair sent alongside edits and maps old_string items", () => {
  const both = prepareEditArguments({
    path: "a",
    edits: [{ oldText: "x", newText: "y" }],
    oldText: "p",
    newText: "q",
  });
  assert.deepEqual(both, {
    path: "a",
    edits: [{ oldText: "x", newText: "y" }, { oldText: "p", newText: "q" }],
  });
  const snake = prepareEditArguments({
    path: "a",
    edits: [{ old_string: "x", new_string: "y" }, { old_text: "p", new_text: "q" }],
  });
  assert.deepEqual(snake, {
    path: "a",
    edits: [{ oldText: "x", newText: "y" }, { oldText: "p", newText: "q" }],
  });
  assert.ok(Value.Check(EditParams, both));
  assert.ok(Value.Check(EditParams, snake));
});

Deno.test("edit() puts the diff only in display, not in the result or details", async () => {
  const { tool } = memEdit({ "/ws/a.ts": APP });
  const r = await call(tool, {
    path: "a.ts",
    edits: [{ oldText: "return 1;", newText: "return 9;" }],
  });
  assert.equal(r.output, "Edited a.ts: 1 edit applied.");
  assert.equal(r.content, undefined);
  assert.match(r.display ?? "", /^\+ {2}return 9;$/m);
  assert.ok(!JSON.stringify(r.details).includes("return 9"), JSON.stringify(r.details));
});
