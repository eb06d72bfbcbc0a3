import assert from "node:assert/strict";
import { buildSystemPrompt, loadContextFiles } from "../../src/cli/system_prompt.ts";
import { createDenoCliFs } from "../../src/sys/session_fs.ts";
import { createTempWorkspace } from "../support/workspace.ts";

Deno.test("buildSystemPrompt() states date, workspace, tools and grants in one paragraph", () => {
  const text = buildSystemPrompt({
    date: new Date("2025-03-04T12:00:00Z"),
    workspace: "/work/app",
    tools: ["read", "bash"],
    grants: "read: /work/app · write: /work/app/src",
  });
  assert.equal(text.split("\n").length, 1);
  assert.match(text, /2025-03-04/);
  assert.match(text, /\/work\/app/);
  assert.match(text, /read, bash/);
  assert.match(text, /write: \/work\/app\/src/);
});

Deno.test("buildSystemPrompt() appends context files and --append-system-prompt", () => {
  const text = buildSystemPrompt({
    date: new Date(),
    workspace: "/w",
    tools: [],
    grants: "g",
    contextFiles: [{ path: "/w/AGENTS.md", text: "Use tabs.\n" }],
    override: "Custom base.",
    append: "Be brief.",
  });
  assert.equal(
    text,
    "Custom base.\n\nInstructions from /w/AGENTS.md:\n\nUse tabs.\n\nBe brief.",
  );
});

Deno.test("loadContextFiles() reads AGENTS.md from the git root down to the workspace, user file first", async () => {
  await using ws = await createTempWorkspace({
    "AGENTS.md": "outside the repo",
    "repo/.git/HEAD": "ref: refs/heads/main\n",
    "repo/AGENTS.md": "root rules",
    "repo/pkg/AGENTS.md": "pkg rules",
    "repo/pkg/app/.keep": "",
    "cfg/moat/AGENTS.md": "user rules",
  });
  const { files } = await loadContextFiles(createDenoCliFs(), {
    workspace: ws.path("repo/pkg/app"),
    userConfigDir: ws.path("cfg/moat"),
  });
  assert.deepEqual(files.map((f) => f.text), ["user rules", "root rules", "pkg rules"]);
  assert.equal(files[1]?.path, ws.path("repo/AGENTS.md"));
});

Deno.test("loadContextFiles() without a git root reads only the workspace's AGENTS.md", async () => {
  await using ws = await createTempWorkspace({ "AGENTS.md": "parent", "sub/AGENTS.md": "mine" });
  const { files } = await loadContextFiles(createDenoCliFs(), { workspace: ws.path("sub") });
  // The temp dir is not in a git repo, so the walk finds no root and stops at the workspace.
  assert.deepEqual(files.map((f) => f.text), ["mine"]);
});

Deno.test("buildSystemPrompt() says which MCP servers are still starting, and nothing when none", () => {
  const base = {
    date: new Date(2026, 0, 2),
    workspace: "/w",
    tools: ["read"],
    grants: "read: /w",
  };
  const one = buildSystemPrompt({ ...base, mcpStarting: ["docs"] });
  assert.match(
    one,
    /The MCP server "docs" is still starting: its tools are offered with a later request/,
  );
  const two = buildSystemPrompt({ ...base, mcpStarting: ["a", "b"] });
  assert.match(two, /The MCP servers "a", "b" are still starting: their tools/);
  assert.doesNotMatch(buildSystemPrompt({ ...base, mcpStarting: [] }), /still starting/);
});
