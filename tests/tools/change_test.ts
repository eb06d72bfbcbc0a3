import assert from "node:assert/strict";
import { createEditTool } from "../../src/tools/edit.ts";
import { createWriteTool } from "../../src/tools/write.ts";
import { parsePatch } from "diff";
import {
  DIFF_MAX_BYTES,
  editPatch,
  fsPreviewReader,
  previewEdit,
  previewWrite,
  writeChange,
} from "../../src/tools/change.ts";
import { MemoryFs } from "../support/memory_fs.ts";
import { call } from "./_helpers.ts";

const APP =
  "import x from 'x';\n\nfunction a() {\n  return 1;\n}\n\nfunction b() {\n  return 2;\n}\n";

Deno.test("previewEdit() shows the very diff the edit then produces, CRLF and BOM included", async () => {
  for (const content of [APP, "\uFEFF" + APP.replaceAll("\n", "\r\n")]) {
    const fs = new MemoryFs({ "/ws/src/app.ts": content });
    const args = {
      path: "src/app.ts",
      edits: [
        { oldText: "  return 2;", newText: "  return 20;\n  // two" },
        { oldText: "  return 1;", newText: "  return 10;" },
      ],
    };
    const preview = await previewEdit(args, fsPreviewReader(fs), { cwd: "/ws" });
    const result = await call(createEditTool({ cwd: "/ws", fs }), args);
    assert.equal(result.isError, undefined);
    assert.equal(preview.kind, "patch");
    assert.equal(preview.kind === "patch" ? preview.patch : "", result.display);
  }
});

Deno.test("previewEdit() gives the edit tool's own refusal when oldText does not match", async () => {
  const fs = new MemoryFs({ "/ws/a.ts": APP });
  const args = { path: "a.ts", edits: [{ oldText: "return 3;", newText: "return 30;" }] };
  const preview = await previewEdit(args, fsPreviewReader(fs), { cwd: "/ws" });
  const result = await call(createEditTool({ cwd: "/ws", fs }), args);
  assert.deepEqual(preview, { kind: "unavailable", path: "a.ts", reason: result.output });
  const missing = await previewEdit({ ...args, path: "b.ts" }, fsPreviewReader(fs), {
    cwd: "/ws",
  });
  assert.equal(missing.kind, "unavailable");
});

Deno.test("previewWrite() diffs the current file against the new content; a new file from /dev/null", async () => {
  const fs = new MemoryFs({ "/ws/a.txt": "one\ntwo\n" });
  const read = fsPreviewReader(fs);
  const over = await previewWrite({ path: "a.txt", content: "one\n2\n" }, read, { cwd: "/ws" });
  assert.equal(over.kind, "patch");
  const patch = over.kind === "patch" ? over.patch : "";
  assert.match(patch, /^@@ -1,2 \+1,2 @@\n one\n-two\n\+2$/m);
  const created = await previewWrite({ path: "new/b.txt", content: "hi\n" }, read, { cwd: "/ws" });
  assert.match(
    created.kind === "patch" ? created.patch : "",
    /^--- \/dev\/null\t?\n\+\+\+ new\/b\.txt/m,
  );
  const same = await previewWrite({ path: "a.txt", content: "one\ntwo\n" }, read, { cwd: "/ws" });
  assert.deepEqual(same, { kind: "unchanged", path: "a.txt" });
});

Deno.test("previewWrite() summarises binary and huge content instead of diffing it", async () => {
  const fs = new MemoryFs({ "/ws/a.bin": new Uint8Array([1, 0, 2]) });
  const read = fsPreviewReader(fs);
  const bin = await previewWrite({ path: "a.bin", content: "text" }, read, { cwd: "/ws" });
  assert.deepEqual(bin, { kind: "binary", path: "a.bin", bytes: 4, created: false });
  const big = "x\n".repeat(DIFF_MAX_BYTES);
  const large = await previewWrite({ path: "c.txt", content: big }, read, { cwd: "/ws" });
  assert.deepEqual(large, { kind: "large", path: "c.txt", bytes: big.length, created: true });
  // Texts too different to diff cheaply are summarised too, but a new file of any length is not.
  const lines = (tag: string) => Array.from({ length: 3000 }, (_, i) => `${tag} ${i}\n`).join("");
  const rewrite = new MemoryFs({ "/ws/d.txt": lines("a") });
  const changed = await previewWrite(
    { path: "d.txt", content: lines("b") },
    fsPreviewReader(rewrite),
    {
      cwd: "/ws",
    },
  );
  assert.equal(changed.kind, "large");
  const fresh = await previewWrite({ path: "e.txt", content: lines("b") }, read, { cwd: "/ws" });
  assert.equal(fresh.kind, "patch");
});

Deno.test("write returns its diff in display, not in the model's output", async () => {
  const fs = new MemoryFs({ "/ws/a.txt": "one\ntwo\n" });
  const tool = createWriteTool({ cwd: "/ws", fs });
  const over = await call(tool, { path: "a.txt", content: "one\n2\n" });
  assert.equal(over.output, "Wrote 6 bytes to a.txt (overwrote the existing file).");
  assert.match(over.display ?? "", /^-two\n\+2$/m);
  const created = await call(tool, { path: "b.txt", content: "hi\n" });
  assert.match(created.display ?? "", /^--- \/dev\/null/m);
  assert.match(created.display ?? "", /^\+hi$/m);
  assert.ok(!created.output.includes("@@"));
});

Deno.test("write over a file too large to read for a diff still writes, with no diff", async () => {
  const fs = new MemoryFs({ "/ws/big.txt": "x\n".repeat(DIFF_MAX_BYTES) });
  const tool = createWriteTool({ cwd: "/ws", fs });
  const out = await call(tool, { path: "big.txt", content: "small\n" });
  assert.equal(out.output, "Wrote 6 bytes to big.txt (overwrote the existing file).");
  assert.equal(out.display, undefined);
  assert.equal(new TextDecoder().decode(await fs.readFile("/ws/big.txt")), "small\n");
});

Deno.test("a file name with line breaks is escaped in the patch header, so the diff still parses", () => {
  for (const name of ["a\nb.txt", "a\rb.txt", "a\u2028b.txt", "x\r\x1b[2Kmoat wants to write y"]) {
    const shown = `/out/${name}`;
    const patches = [
      editPatch(shown, "one\n", "two\n"),
      writeChange(shown, null, new TextEncoder().encode("hi\n")),
      writeChange(shown, new TextEncoder().encode("one\n"), new TextEncoder().encode("two\n")),
    ].map((p) => typeof p === "string" ? p : p.kind === "patch" ? p.patch : "");
    for (const patch of patches) {
      // jsdiff reads the header line by line: an unescaped CR or U+2028 there never ends.
      const header = patch.split("\n").filter((l) => /^(---|\+\+\+) /.test(l));
      assert.equal(header.length, 2, JSON.stringify(patch));
      for (const line of header) assert.doesNotMatch(line, /[\r\u2028\u2029]/);
      assert.equal(parsePatch(patch)[0]?.hunks.length, 1);
    }
  }
});
