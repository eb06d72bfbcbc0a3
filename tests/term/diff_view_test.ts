import assert from "node:assert/strict";
import { createTwoFilesPatch } from "diff";
import { changeLines, diffStat, patchLines } from "../../src/term/diff_view.ts";

// deno-lint-ignore no-control-regex
const SGR = /\x1b\[\d+m/g;
const plain = { color: false, columns: 80 };
const patchOf = (before: string, after: string, oldName = "f.txt") =>
  createTwoFilesPatch(oldName, "f.txt", before, after, "", "", { context: 3 });
const numbered = (n: number, from = 1) =>
  Array.from({ length: n }, (_, i) => `line ${i + from}\n`).join("");

Deno.test("patchLines() shows hunk headers, old and new line numbers and -/+ markers without colour", () => {
  const before = numbered(12);
  const after = before.replace("line 10\n", "line ten\nline ten b\n");
  assert.deepEqual(patchLines(patchOf(before, after), plain), [
    "@@ -7,6 +7,7 @@",
    " 7  7  line 7",
    " 8  8  line 8",
    " 9  9  line 9",
    "10    -line 10",
    "   10 +line ten",
    "   11 +line ten b",
    "11 12  line 11",
    "12 13  line 12",
  ]);
  assert.deepEqual(diffStat(patchOf(before, after)), { added: 2, removed: 1 });
});

Deno.test("patchLines() colours removed red, added green and context dim", () => {
  const lines = patchLines(patchOf("a\nb\n", "a\nc\n"), { color: true, columns: 80 });
  assert.deepEqual(lines.slice(1), [
    "\x1b[2m1 1 \x1b[0m\x1b[2m a\x1b[0m",
    "\x1b[2m2   \x1b[0m\x1b[31m-b\x1b[0m",
    "\x1b[2m  2 \x1b[0m\x1b[32m+c\x1b[0m",
  ]);
  assert.equal(lines[0], "\x1b[36m@@ -1,2 +1,2 @@\x1b[0m");
});

Deno.test("patchLines() caps the lines and says how many more, pointing to git diff in a repo", () => {
  const patch = patchOf("", numbered(100), "/dev/null");
  const capped = patchLines(patch, { ...plain, inGitRepo: true });
  assert.equal(capped.length, 41);
  assert.equal(capped[0], " 1 +line 1");
  assert.equal(capped[39], "40 +line 40");
  assert.equal(capped[40], "… 60 more lines, see `git diff`");
  const outside = patchLines(patch, { ...plain, maxLines: 10 });
  assert.equal(outside.length, 11);
  assert.equal(outside[10], "… 90 more lines");
  assert.equal(patchLines(patchOf("", numbered(2), "/dev/null"), plain).length, 2);
});

Deno.test("patchLines() shows a new file's first lines and an emptied file's removed lines without hunk headers", () => {
  assert.deepEqual(patchLines(patchOf("", "a\nb\n", "/dev/null"), plain), ["1 +a", "2 +b"]);
  assert.deepEqual(patchLines(patchOf("a\nb\n", ""), plain), ["1 -a", "2 -b"]);
});

Deno.test("patchLines() neutralises escape sequences and control characters in file content", () => {
  const evil = "ok \x1b]0;pwned\x07 \x1b[2J\u202e text\x08\n";
  const lines = patchLines(patchOf("", evil, "/dev/null"), { color: true, columns: 200 });
  assert.equal(lines.length, 1);
  const line = lines[0] ?? "";
  // The only ESC left is our own colouring.
  assert.equal(line.replace(SGR, "").includes("\x1b"), false);
  assert.ok(line.includes("\\u001b]0;pwned\\u0007"));
  assert.ok(line.includes("\\u202e"));
  assert.ok(!line.includes("\x08") && !line.includes("\x07"));
});

Deno.test("patchLines() cuts long lines to the width after expanding tabs, never inside colour codes", () => {
  const long = "\tx" + "y".repeat(200) + "\n";
  const [plainLine] = patchLines(patchOf("", long, "/dev/null"), { ...plain, columns: 40 });
  assert.equal(plainLine, "1 +    x" + "y".repeat(31) + "…");
  assert.equal([...(plainLine ?? "")].length, 40);
  const [colored] = patchLines(patchOf("", long, "/dev/null"), { color: true, columns: 40 });
  assert.ok(colored?.endsWith("…\x1b[0m"));
  assert.equal([...(colored ?? "").replace(SGR, "")].length, 40);
  const wide = patchLines(patchOf("", "界".repeat(50) + "\n", "/dev/null"), {
    ...plain,
    columns: 20,
  });
  assert.equal(wide[0], "1 +" + "界".repeat(8) + "…");
});

Deno.test("patchLines() keeps a CRLF-only change visible and hides CR when all lines have it", () => {
  assert.deepEqual(patchLines(patchOf("a\r\nb\r\n", "a\r\nc\r\n"), plain).slice(1), [
    "1 1  a",
    "2   -b",
    "  2 +c",
  ]);
  assert.deepEqual(patchLines(patchOf("a\r\nb\r\n", "a\r\nb\n"), plain).slice(1), [
    "1 1  a␍",
    "2   -b␍",
    "  2 +b",
  ]);
});

Deno.test("changeLines() summarises binary, large and refused changes in one line", () => {
  assert.deepEqual(
    changeLines({ kind: "binary", path: "a.bin", bytes: 2048, created: false }, plain),
    ["(binary file, 2.0 KB: diff not shown)"],
  );
  assert.deepEqual(
    changeLines({ kind: "large", path: "a.txt", bytes: 3 * 1024 * 1024, created: true }, plain),
    ["(large change, 3.0 MB, new: diff not shown)"],
  );
  assert.deepEqual(changeLines({ kind: "unchanged", path: "a" }, plain), ["(no change)"]);
  const refused = changeLines(
    { kind: "unavailable", path: "a", reason: "Cannot edit \x1b[2J" },
    plain,
  );
  assert.deepEqual(refused, ["(Cannot edit \\u001b[2J)"]);
  assert.deepEqual(
    changeLines({ kind: "patch", path: "f.txt", patch: patchOf("", "a\n", "/dev/null") }, {
      ...plain,
      indent: "  ",
    }),
    ["  1 +a"],
  );
});
