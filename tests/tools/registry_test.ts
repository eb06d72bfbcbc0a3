import assert from "node:assert/strict";
import { BUILTIN_TOOL_NAMES, createBuiltinTools, selectTools } from "../../src/tools/registry.ts";
import { createDenoProcessOps } from "../../src/sys/process.ts";
import { MemoryFs } from "../support/memory_fs.ts";
import { call } from "./_helpers.ts";

// Bash is built but never run here: the Deno ops only make the tool set complete.
const processOps = createDenoProcessOps();

Deno.test("createBuiltinTools() builds the eight tools with kinds and concurrency flags", () => {
  const tools = createBuiltinTools({
    cwd: "/ws",
    spillDir: "/tmp/spill",
    fs: new MemoryFs(),
    process: processOps,
  });
  assert.deepEqual(tools.map((t) => t.name), [...BUILTIN_TOOL_NAMES]);
  const flags = Object.fromEntries(
    tools.map((t) => [t.name, [t.kind, t.concurrencySafe === true]]),
  );
  assert.deepEqual(flags, {
    read: ["read", true],
    bash: ["execute", false],
    edit: ["write", false],
    write: ["write", false],
    grep: ["read", true],
    find: ["read", true],
    ls: ["read", true],
    job: ["read", false],
  });
  for (const tool of tools) assert.ok(tool.description.length > 40, tool.name);
});

Deno.test("createBuiltinTools() shares the injected fs and expands ~ from env.HOME", async () => {
  const fs = new MemoryFs({ "/home/me/n.txt": "note" });
  const tools = createBuiltinTools({
    cwd: "/ws",
    spillDir: "/tmp/spill",
    env: { HOME: "/home/me", PATH: "/usr/bin:/bin" },
    fs,
    process: processOps,
  });
  const [read] = selectTools(tools, ["read"]);
  assert.ok(read);
  assert.equal((await call(read, { path: "~/n.txt" })).output, "note");
  const write = selectTools(tools, ["write"])[0];
  assert.ok(write);
  await call(write, { path: "/ws/out.txt", content: "x" });
  assert.equal(fs.text("/ws/out.txt"), "x");
});

Deno.test("selectTools() keeps the requested order and rejects unknown names", () => {
  const tools = createBuiltinTools({
    cwd: "/ws",
    spillDir: "/tmp/spill",
    fs: new MemoryFs(),
    process: processOps,
  });
  assert.deepEqual(selectTools(tools, ["grep", "read"]).map((t) => t.name), ["grep", "read"]);
  assert.throws(
    () => selectTools(tools, ["read", "greb"]),
    /^Error: Unknown tool: "greb"; available: read, bash, edit, write, grep, find, ls, job$/,
  );
});
