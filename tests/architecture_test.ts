/**
 * The layout of DEVELOPERS.md, held: no import circles, only the entry points wire src/sys/, no
 * internal (`_`) file imported from another folder, src/agent/ imports only src/model/ (and not
 * its server profiles), src/model/profiles/ imports only src/model/types.ts, src/term/ (the
 * terminal) never imports src/cli/ and only src/cli/ imports it, src/report/ (what a run reports)
 * imports neither, src/hooks/ imports neither and only src/cli/ imports it, so does src/rewind/
 * (the checkpoint store), src/acp/ (the editor protocol) imports only the run code and nothing
 * outside it imports src/acp/, no file in src/ over 400 lines. First each rule is shown to fail
 * when broken, then the real tree.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { architectureProblems, type GraphModule, moduleGraph } from "./support/architecture.ts";

const ROOT = new URL("..", import.meta.url).pathname.replace(/\/$/, "");

/** Where the real effects are built: the processes' entry points and the worker's tool setup. */
export const ENTRY_POINTS: readonly string[] = [
  "main.ts",
  "src/cli/deps.ts",
  "src/cli/main.ts",
  "src/sandbox/host/main.ts",
  "src/sandbox/host/mcp_forward_main.ts",
  "src/sandbox/worker/worker.ts",
  "src/sandbox/worker/query_worker.ts",
  "src/sandbox/worker/grep_worker.ts",
];

const RULES = { entryPoints: ENTRY_POINTS, maxLines: 400 };

/**
 * What the redesign (issue 16) has still to fix. Each entry must go, never be added to: the test
 * fails on anything not listed here, and also on an entry that no longer occurs (so the list
 * shrinks with the work).
 */
const NOT_YET: readonly string[] = [];

function mod(path: string, imports: string[] = [], lines = 10): GraphModule {
  return { path, imports, lines };
}

Deno.test("architecture check: each rule fails when broken", () => {
  const problems = architectureProblems([
    mod("src/a/x.ts", ["src/b/y.ts"]),
    mod("src/b/y.ts", ["src/a/x.ts"]),
    mod("src/tools/read.ts", ["src/sys/fs.ts", "src/cli/_hidden.ts"]),
    mod("src/cli/_hidden.ts"),
    mod("src/sys/fs.ts"),
    mod("src/agent/loop.ts", ["src/model/types.ts", "src/tools/read.ts"]),
    mod("src/model/types.ts"),
    mod("src/cli/huge.ts", [], 401),
    mod("main.ts", ["src/sys/fs.ts"]),
    mod("src/agent/batch.ts", ["src/model/profiles/mod.ts"]),
    mod("src/model/profiles/mod.ts", ["src/model/openai/wire.ts"]),
    mod("src/model/openai/wire.ts"),
    mod("src/term/render.ts", ["src/cli/setup.ts", "src/report/mod.ts"]),
    mod("src/cli/setup.ts"),
    mod("src/tools/bash.ts", ["src/term/render.ts"]),
    mod("src/report/mod.ts", ["src/cli/trust.ts"]),
    mod("src/cli/trust.ts"),
    mod("src/hooks/mod.ts", ["src/cli/trust.ts"]),
    mod("src/agent/tool.ts", ["src/hooks/mod.ts"]),
    mod("src/rewind/store.ts", ["src/cli/trust.ts"]),
    mod("src/tools/edit.ts", ["src/rewind/mod.ts"]),
    mod("src/acp/mod.ts", ["src/cli/setup.ts", "src/sandbox/mod.ts"]),
    mod("src/sandbox/mod.ts"),
    mod("src/agent/events.ts", ["src/acp/mod.ts"]),
  ], RULES);
  assert.deepEqual(problems, [
    `"src/tools/read.ts" imports "src/sys/fs.ts": only the entry points wire src/sys/`,
    `"src/tools/read.ts" imports "src/cli/_hidden.ts", an internal file of another folder`,
    `"src/agent/loop.ts" imports "src/tools/read.ts": src/agent/ imports only src/model/`,
    `"src/cli/huge.ts" has 401 lines (at most 400)`,
    `"src/agent/batch.ts" imports "src/model/profiles/mod.ts": server profiles are the ` +
    `adapter's, not the agent's`,
    `"src/model/profiles/mod.ts" imports "src/model/openai/wire.ts": src/model/profiles/ ` +
    `imports only src/model/types.ts`,
    `"src/term/render.ts" imports "src/cli/setup.ts": src/term/ imports only src/term/, ` +
    `src/report/, src/agent/, src/model/, src/tools/, src/replay/, src/policy/`,
    `"src/tools/bash.ts" imports "src/term/render.ts": only src/cli/ draws on the terminal`,
    `"src/report/mod.ts" imports "src/cli/trust.ts": src/report/ imports neither src/cli/ ` +
    `nor src/term/`,
    `"src/hooks/mod.ts" imports "src/cli/trust.ts": src/hooks/ imports neither src/cli/ nor ` +
    `src/term/`,
    `"src/agent/tool.ts" imports "src/hooks/mod.ts": src/agent/ imports only src/model/`,
    `"src/agent/tool.ts" imports "src/hooks/mod.ts": only src/cli/ wires src/hooks/`,
    `"src/rewind/store.ts" imports "src/cli/trust.ts": src/rewind/ imports neither src/cli/ ` +
    `nor src/term/`,
    `"src/tools/edit.ts" imports "src/rewind/mod.ts": only src/cli/ wires src/rewind/`,
    `"src/acp/mod.ts" imports "src/sandbox/mod.ts": src/acp/ imports only src/acp/, ` +
    `src/cli/, src/agent/, src/model/, src/policy/, src/report/, src/session/, src/mcp/, ` +
    `src/tools/, src/version.ts`,
    `"src/agent/events.ts" imports "src/acp/mod.ts": src/agent/ imports only src/model/`,
    `"src/agent/events.ts" imports "src/acp/mod.ts": only src/acp/ imports src/acp/ (the CLI ` +
    `loads it dynamically)`,
    "import circle: src/a/x.ts → src/b/y.ts → src/a/x.ts",
  ]);
  // The same tree without the breaks passes.
  assert.deepEqual(
    architectureProblems([mod("main.ts", ["src/sys/fs.ts"]), mod("src/sys/fs.ts")], RULES),
    [],
  );
});

Deno.test("the real tree keeps the layout", async () => {
  // Every module of src/ is reached: from main.ts, and the Worker modules loaded by URL.
  const roots = ["main.ts"];
  for await (const entry of walk(join(ROOT, "src"))) roots.push(entry.slice(ROOT.length + 1));
  const graph = await moduleGraph(ROOT, roots);
  const problems = architectureProblems(graph, RULES);
  assert.deepEqual(problems.filter((p) => !NOT_YET.includes(p)), [], "new layout problems");
  assert.deepEqual(NOT_YET.filter((p) => !problems.includes(p)), [], "fixed: remove from NOT_YET");
});

async function* walk(dir: string): AsyncGenerator<string> {
  for await (const e of Deno.readDir(dir)) {
    const path = join(dir, e.name);
    if (e.isDirectory) yield* walk(path);
    else if (e.name.endsWith(".ts")) yield path;
  }
}
