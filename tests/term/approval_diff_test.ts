import assert from "node:assert/strict";
import { approvalDiffLines } from "../../src/term/approval_diff.ts";
import { approvalQuestion, type ApprovalRequest } from "../../src/policy/approve.ts";
import { FsError } from "../../src/tools/mod.ts";

const at = { access: "write" as const, path: "/out/a.txt" };
const files: Record<string, string> = { "/out/a.txt": "one\ntwo\n" };
const readFile = (path: string) =>
  Promise.resolve(path in files ? new TextEncoder().encode(files[path]) : null);

function asking(toolName: string, args: unknown, read = readFile): ApprovalRequest {
  return { toolName, location: at, question: approvalQuestion(toolName, at), args, readFile: read };
}

const plain = { cwd: "/ws", color: false, columns: 80 };

Deno.test("approvalDiffLines() shows what a write or an edit would change, indented", async () => {
  const write = await approvalDiffLines(
    asking("write", { path: "/out/a.txt", content: "one\n2\n" }),
    plain,
  );
  assert.deepEqual(write, ["  @@ -1,2 +1,2 @@", "  1 1  one", "  2   -two", "    2 +2"]);
  const edit = await approvalDiffLines(
    asking("edit", { path: "/out/a.txt", edits: [{ oldText: "one", newText: "uno" }] }),
    plain,
  );
  assert.deepEqual(edit, ["  @@ -1,2 +1,2 @@", "  1   -one", "    1 +uno", "  2 2  two"]);
  // Not about a file's content, or no reader given: nothing.
  assert.deepEqual(await approvalDiffLines(asking("bash", { command: "ls" }), plain), []);
  const { readFile: _, ...unread } = asking("write", { path: "/out/a.txt", content: "x" });
  assert.deepEqual(await approvalDiffLines(unread, plain), []);
});

Deno.test("approvalDiffLines() says in one line why a refused read shows no diff", async () => {
  const refused = (path: string) =>
    Promise.reject(new FsError("not_granted", path, `reading "${path}" is not granted`));
  const lines = await approvalDiffLines(
    asking("write", { path: "/out/a.txt", content: "x\n" }, refused),
    plain,
  );
  assert.deepEqual(lines, ['  (diff not shown: reading "/out/a.txt" is not granted)']);
});
