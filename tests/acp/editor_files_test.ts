/** The editor's buffers behind read, edit and write: only after the sandbox's check, never instead. */
import assert from "node:assert/strict";
import type { ToolCallGate } from "../../src/agent/hooks.ts";
import type { AnyTool, ToolOutput } from "../../src/agent/tool.ts";
import {
  type CheckedCalls,
  type EditorFiles,
  recordChecked,
  withEditorFiles,
} from "../../src/acp/editor_files.ts";
import { createEditTool, createReadTool, createWriteTool } from "../../src/tools/mod.ts";
import { MemoryFs } from "../support/memory_fs.ts";

/** An editor with buffers, recording what it is asked. */
function fakeEditor(buffers: Record<string, string>) {
  const asked: string[] = [];
  const written: Array<[string, string]> = [];
  const files: Required<EditorFiles> = {
    readTextFile(path) {
      asked.push(path);
      const text = buffers[path];
      return text === undefined ? Promise.reject(new Error("no buffer")) : Promise.resolve(text);
    },
    writeTextFile(path, content) {
      written.push([path, content]);
      return Promise.resolve();
    },
  };
  return { files, asked, written };
}

/**
 * The sandbox as the session sees it: the built-in tools on a disk, a policy that allows only
 * the granted paths, and tool hosts that refuse the rest (as Deno's permissions do).
 */
function fakeSandbox(disk: MemoryFs, granted: string[]) {
  const allowed = (path: string) => granted.some((g) => path === g || path.startsWith(`${g}/`));
  const confined = (tool: AnyTool): AnyTool => ({
    ...tool,
    async execute(args, signal, ctx): Promise<ToolOutput> {
      const located = await tool.locations?.(args) ?? [];
      const refused = located.find((l) => "path" in l && !allowed(l.path));
      if (refused !== undefined && "path" in refused) {
        return { isError: true, output: `${refused.access} access to "${refused.path}" denied` };
      }
      return await tool.execute(args, signal, ctx);
    },
  });
  const tools = [
    createReadTool({ cwd: "/ws", fs: disk }),
    createEditTool({ cwd: "/ws", fs: disk }),
    createWriteTool({ cwd: "/ws", fs: disk }),
  ].map((t) => confined(t as AnyTool));
  const gate: ToolCallGate = async (call) => {
    const located = await call.tool.locations?.(call.args) ?? [];
    const refused = located.find((l) => "path" in l && !allowed(l.path));
    return refused === undefined
      ? undefined
      : { block: true, source: "permissions", reason: "not granted" };
  };
  return { tools, gate };
}

/** One call as the agent runs it: the gate, then (when allowed) the tool. */
async function call(
  setup: { tools: AnyTool[]; gate: ToolCallGate },
  name: string,
  args: Record<string, unknown>,
): Promise<ToolOutput | "blocked"> {
  const tool = setup.tools.find((t) => t.name === name) as AnyTool;
  const toolCallId = `c-${crypto.randomUUID()}`;
  const verdict = await setup.gate({
    toolCallId,
    name,
    args,
    tool,
    signal: new AbortController().signal,
  });
  if (verdict !== undefined) return "blocked";
  return await tool.execute(args, new AbortController().signal, {
    toolCallId,
    onUpdate: () => {},
  });
}

function session(disk: MemoryFs, granted: string[], editor: ReturnType<typeof fakeEditor>) {
  const sandbox = fakeSandbox(disk, granted);
  const checked: CheckedCalls = new Map();
  return {
    gate: recordChecked(sandbox.gate, checked),
    tools: withEditorFiles(sandbox.tools, {
      files: editor.files,
      cwd: "/ws",
      checked,
      exists: (path) => Promise.resolve(disk.text(path) !== undefined),
    }),
    sandbox,
  };
}

Deno.test("a read the sandbox refuses stays refused and never asks the editor for its buffer", async () => {
  const disk = new MemoryFs({ "/ws/a.txt": "disk\n", "/secret/key": "disk key\n" });
  const editor = fakeEditor({ "/secret/key": "buffer key\n", "/ws/a.txt": "buffer\n" });
  const s = session(disk, ["/ws"], editor);
  assert.equal(await call(s, "read", { path: "/secret/key" }), "blocked");
  // Allowed by the policy but refused where the tool runs: the sandbox's answer stands.
  const tool = s.tools.find((t) => t.name === "read") as AnyTool;
  const out = await tool.execute({ path: "/secret/key" }, new AbortController().signal, {
    toolCallId: "x",
    onUpdate: () => {},
  });
  assert.equal(out.isError, true);
  assert.doesNotMatch(out.output, /key\n/);
  // A symlink in the workspace to the secret is judged where it leads.
  disk.addSymlink("/ws/link", "/secret/key");
  assert.equal(await call(s, "read", { path: "link" }), "blocked");
  assert.deepEqual(editor.asked, []);
});

Deno.test("a granted read returns the editor's unsaved buffer", async () => {
  const disk = new MemoryFs({ "/ws/a.txt": "on disk\n" });
  const editor = fakeEditor({ "/ws/a.txt": "unsaved one\nunsaved two\n" });
  const s = session(disk, ["/ws"], editor);
  const out = await call(s, "read", { path: "a.txt", offset: 2 });
  assert.notEqual(out, "blocked");
  assert.equal((out as ToolOutput).output, "unsaved two");
  assert.deepEqual(editor.asked, ["/ws/a.txt"]);
});

Deno.test("an edit goes to the editor with the new text; moat leaves the disk alone", async () => {
  const disk = new MemoryFs({ "/ws/a.txt": "hello disk\n" });
  const editor = fakeEditor({ "/ws/a.txt": "hello buffer\n" });
  const s = session(disk, ["/ws"], editor);
  const out = await call(s, "edit", {
    path: "a.txt",
    edits: [{ oldText: "buffer", newText: "editor" }],
  }) as ToolOutput;
  assert.equal(out.isError, undefined, out.output);
  assert.deepEqual(editor.written, [["/ws/a.txt", "hello editor\n"]]);
  assert.equal(disk.text("/ws/a.txt"), "hello disk\n");
  const wrote = await call(s, "write", { path: "b.txt", content: "new\n" }) as ToolOutput;
  assert.match(wrote.output, /created/);
  assert.deepEqual(editor.written.at(-1), ["/ws/b.txt", "new\n"]);
  assert.equal(disk.text("/ws/b.txt"), undefined);
});

Deno.test("a write outside the grants is refused and never reaches the editor", async () => {
  const disk = new MemoryFs({ "/ws/a.txt": "a\n", "/etc/hosts": "hosts\n" });
  const editor = fakeEditor({ "/etc/hosts": "hosts\n" });
  const s = session(disk, ["/ws"], editor);
  assert.equal(await call(s, "write", { path: "/etc/hosts", content: "evil\n" }), "blocked");
  assert.equal(
    await call(s, "edit", { path: "/etc/hosts", edits: [{ oldText: "hosts", newText: "x" }] }),
    "blocked",
  );
  // A call the policy did not allow (never checked) runs as without an editor: in the sandbox.
  const tool = s.tools.find((t) => t.name === "write") as AnyTool;
  const out = await tool.execute(
    { path: "/etc/hosts", content: "evil\n" },
    new AbortController().signal,
    { toolCallId: "unchecked", onUpdate: () => {} },
  );
  assert.equal(out.isError, true);
  assert.deepEqual(editor.written, []);
  assert.deepEqual(editor.asked, []);
  assert.equal(disk.text("/etc/hosts"), "hosts\n");
});
