import assert from "node:assert/strict";
import { createBuiltinTools } from "../../src/tools/registry.ts";
import { createDenoFsOps } from "../../src/sys/fs.ts";
import { createDenoProcessOps } from "../../src/sys/process.ts";
import type { AnyTool } from "../../src/agent/tool.ts";
import { createTempWorkspace } from "../support/workspace.ts";
import { call } from "./_helpers.ts";

/** Makes an empty placeholder as the sandbox does: a directory or file with mtime 0. */
async function placeholder(path: string, kind: "dir" | "file"): Promise<void> {
  if (kind === "dir") await Deno.mkdir(path);
  else await Deno.writeFile(path, new Uint8Array());
  await Deno.utime(path, 0, 0);
}

Deno.test("read, ls, find and grep treat the sandbox's unused placeholders as missing, and show what is written there", async () => {
  await using ws = await createTempWorkspace({
    "a.txt": "needle\n",
    ".vscode/settings.json": '{"needle": 1}\n',
  });
  const paths = [".idea", ".envrc", ".claude", "locked.txt", ".vscode", "empty-real"];
  await placeholder(ws.path(".idea"), "dir");
  await placeholder(ws.path(".envrc"), "dir");
  await placeholder(ws.path(".claude"), "dir");
  await placeholder(ws.path("locked.txt"), "file");
  // An empty directory the user made (not marked) is theirs: shown.
  await Deno.mkdir(ws.path("empty-real"));
  const tools = createBuiltinTools({
    cwd: ws.dir,
    spillDir: ws.path("spill"),
    fs: createDenoFsOps(),
    process: createDenoProcessOps(),
    placeholders: paths.map((p) => ws.path(p)),
  });
  const tool = (name: string) => tools.find((t) => t.name === name) as AnyTool;
  const ls = async (path?: string) =>
    (await call(tool("ls"), path === undefined ? {} : { path })).output;

  assert.equal(await ls(), ".vscode/\na.txt\nempty-real/");
  const found = await call(tool("find"), { pattern: "*" });
  assert.equal(found.output, ".vscode/\n.vscode/settings.json\na.txt\nempty-real/");
  const grep = await call(tool("grep"), { pattern: "needle" });
  assert.equal(grep.output, '.vscode/settings.json:1: {"needle": 1}\na.txt:1: needle');

  // Named directly, a placeholder is missing too, and no "similar names" give it away.
  const read = await call(tool("read"), { path: ".idea" });
  assert.equal(read.isError, true);
  assert.match(read.output, /^File not found: "\.idea"/, read.output);
  assert.doesNotMatch(read.output, /\.claude|\.envrc|locked/, read.output);
  const inside = await call(tool("read"), { path: ".idea/workspace.xml" });
  assert.equal(
    inside.output,
    'File not found: ".idea/workspace.xml"; similar names in the working directory: .vscode/',
  );
  const file = await call(tool("read"), { path: "locked.txt" });
  assert.match(file.output, /^File not found: "locked\.txt"/, file.output);
  assert.match(await ls(".envrc"), /^Directory not found: "\.envrc"/);
  const findIn = await call(tool("find"), { pattern: "*", path: ".claude" });
  assert.match(findIn.output, /^Directory not found: "\.claude"/, findIn.output);
  const grepIn = await call(tool("grep"), { pattern: "x", path: ".claude" });
  assert.match(grepIn.output, /^Path not found: "\.claude"/, grepIn.output);

  // Once something is written there it is the user's: shown.
  await Deno.writeTextFile(ws.path(".idea/workspace.xml"), "<needle/>\n");
  await Deno.writeTextFile(ws.path("locked.txt"), "x\n");
  await Deno.utime(ws.path("locked.txt"), 0, 0);
  await Deno.utime(ws.path(".claude"), 1, 1);
  assert.equal(await ls(), ".claude/\n.idea/\n.vscode/\na.txt\nempty-real/\nlocked.txt");
  assert.match((await call(tool("find"), { pattern: "*.xml" })).output, /^\.idea\/workspace\.xml$/);
  assert.match((await call(tool("grep"), { pattern: "<needle" })).output, /^\.idea\/workspace/);
  assert.equal((await call(tool("read"), { path: "locked.txt" })).output, "x");
});
