/**
 * What a print-mode run loads before its first model request: the modules reached from the CLI's
 * start-up modules by static imports that exist at run time (`deno info --json`; type-only and
 * dynamic imports left out). Code that only a later or rarer path needs is imported there.
 */
import assert from "node:assert/strict";

const ROOT = new URL("../..", import.meta.url).pathname.replace(/\/$/, "");

/** The modules main.ts's CLI loads for `moat "task"` in print mode, before the first request. */
const PRINT_START = [
  "src/cli/main.ts",
  "src/cli/setup.ts",
  "src/cli/deps.ts",
  "src/cli/modes/print.ts",
];

interface InfoModule {
  specifier: string;
  dependencies?: Array<{ isDynamic?: boolean; code?: { specifier?: string } }>;
}

let modules: Promise<Map<string, InfoModule>> | undefined;

/**
 * Every module of the CLI's graph by URL, from one `deno info` of src/cli/main.ts (its literal
 * dynamic imports reach setup, deps and print mode), read once for all the tests.
 */
function cliModules(): Promise<Map<string, InfoModule>> {
  modules ??= (async () => {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["info", "--json", "--config", `${ROOT}/deno.json`, "src/cli/main.ts"],
      cwd: ROOT,
      stdout: "piped",
      stderr: "piped",
    }).output();
    if (!out.success) throw new Error(new TextDecoder().decode(out.stderr));
    const info = JSON.parse(new TextDecoder().decode(out.stdout)) as { modules: InfoModule[] };
    return new Map(info.modules.map((m) => [m.specifier, m]));
  })();
  return modules;
}

/**
 * Local modules (paths relative to the root) and npm packages (`npm:name`) reached from `roots`
 * by run-time static imports.
 */
async function runtimeGraph(roots: readonly string[]): Promise<string[]> {
  const byUrl = await cliModules();
  const seen = new Set<string>();
  const npm = new Set<string>();
  const stack = roots.map((r) => `file://${ROOT}/${r}`);
  while (stack.length > 0) {
    const url = stack.pop() as string;
    if (seen.has(url)) continue;
    seen.add(url);
    for (const dep of byUrl.get(url)?.dependencies ?? []) {
      const next = dep.code?.specifier;
      if (dep.isDynamic || next === undefined) continue;
      if (next.startsWith("file:")) stack.push(next);
      const name = /^npm:\/?(@[^/@]+\/[^/@]+|[^/@]+)/.exec(next)?.[1];
      if (name !== undefined) npm.add(`npm:${name}`);
    }
  }
  const prefix = `file://${ROOT}/`;
  const local = [...seen].filter((u) => u.startsWith(prefix)).map((u) => u.slice(prefix.length));
  return [...local, ...npm].sort();
}

Deno.test("print mode's start-up loads no replay code but the check's report text", async () => {
  const graph = await runtimeGraph(PRINT_START);
  assert.ok(graph.includes("src/cli/modes/print.ts"), "the graph was read");
  assert.deepEqual(graph.filter((p) => p.startsWith("src/replay/")), [
    "src/replay/check_text.ts",
  ]);
});

Deno.test("print mode's start-up loads neither the fetch tool's address checks nor a JSONC parser", async () => {
  // ipaddr.js is needed at the first fetch, jsonc-parser only for a workspace's deno.json.
  const graph = await runtimeGraph(PRINT_START);
  assert.ok(graph.includes("npm:openai"), `the npm packages were read: ${graph.join(" ")}`);
  assert.deepEqual(
    graph.filter((p) =>
      ["npm:ipaddr.js", "npm:jsonc-parser", "src/tools/fetch/_address.ts"].includes(p)
    ),
    [],
  );
});
