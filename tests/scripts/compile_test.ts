import { LAZY_ENTRY_MODULES } from "../../src/entry_modules.ts";
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  compileArgs,
  INCLUDED_MODULES,
  parseRunTask,
  readStartTask,
  TARGETS,
} from "../../scripts/compile.ts";
import { WORKER_MODULES } from "../../src/sandbox/worker/worker_modules.ts";
import { HOST_RUNTIME_FLAGS } from "../../src/sandbox/mod.ts";

const root = new URL("../..", import.meta.url).pathname;
const denoJson = join(root, "deno.json");

Deno.test("compileArgs() passes exactly the runtime flags of the start task", async () => {
  const config = JSON.parse(await Deno.readTextFile(denoJson));
  const startWords: string[] = config.tasks.start.command.split(/\s+/);
  const startFlags = startWords.filter((w) => w.startsWith("-"));
  const run = await readStartTask(denoJson);
  for (const target of TARGETS) {
    const args = compileArgs(target, run, { outDir: "dist" });
    assert.equal(args[0], "compile");
    // Flags that compile itself adds (embedding, target, output) are the only extra ones.
    const own = new Set(["--include", "--target", "--output"]);
    const runtime = args.filter((a) => a.startsWith("-") && !own.has(a));
    assert.deepEqual(new Set(runtime), new Set(startFlags));
    assert.equal(runtime.length, startFlags.length);
    assert.equal(args.at(-1), startWords.at(-1));
    assert.equal(args[args.indexOf("--target") + 1], target);
    assert.equal(args[args.indexOf("--output") + 1], `dist/moat-${target}`);
  }
});

Deno.test("compileArgs() embeds every sandbox worker module", async () => {
  const args = compileArgs(TARGETS[0], await readStartTask(denoJson));
  const included = args.flatMap((a, i) => a === "--include" ? [args[i + 1]] : []);
  assert.deepEqual(included, [...INCLUDED_MODULES]);
  assert.ok(INCLUDED_MODULES.includes("src/sandbox/worker/worker.ts"));
  assert.ok(INCLUDED_MODULES.includes("src/sandbox/worker/query_worker.ts"));
  assert.deepEqual(
    INCLUDED_MODULES,
    [
      ...Object.values(LAZY_ENTRY_MODULES),
      ...Object.values(WORKER_MODULES).map((f) => `src/sandbox/worker/${f}`),
    ],
    "main.ts's lazy entry modules, and the list createSandbox loads Workers from",
  );
});

Deno.test("INCLUDED_MODULES lists exactly main.ts's lazy entries and the Worker entry modules", async () => {
  // A Worker entry module serves the tool protocol on its global scope (or, grep's helper, the
  // scan protocol on the port its init message brings); any new one must be embedded, or the
  // compiled binary fails when it starts that Worker.
  const entries: string[] = [];
  const workerStarts: string[] = [];
  const walk = async (dir: string) => {
    for await (const e of Deno.readDir(join(root, dir))) {
      const rel = `${dir}/${e.name}`;
      if (e.isDirectory) await walk(rel);
      else if (e.name.endsWith(".ts")) {
        const text = await Deno.readTextFile(join(root, rel));
        if (/serveToolWorker\(self\b|serveScanThread\(init\.port\b/.test(text)) entries.push(rel);
        if (/new Worker\(/.test(text)) workerStarts.push(rel);
      }
    }
  };
  await walk("src");
  assert.deepEqual(
    [...entries, ...Object.values(LAZY_ENTRY_MODULES)].sort(),
    [...INCLUDED_MODULES].sort(),
  );
  for (const module of INCLUDED_MODULES) {
    assert.ok((await Deno.stat(join(root, module))).isFile, `${module} exists`);
  }
  // Workers are started only from the sandbox's host code, with a URL from the config.
  assert.deepEqual(workerStarts.sort(), [
    "src/sandbox/host/connection.ts",
    "src/sandbox/host/helpers.ts",
    "src/sandbox/host/server.ts",
  ]);
  const mod = await Deno.readTextFile(join(root, "src/sandbox/mod.ts"));
  assert.doesNotMatch(mod, /worker\.ts"/, "mod.ts names Worker modules only via WORKER_MODULES");
});

Deno.test("main.ts imports its entry modules by computed specifiers: deno run loads none up front", async () => {
  // A literal dynamic import joins the start-up graph (`moat --version` would load the CLI's
  // whole graph); computed ones do not, and compile embeds them through INCLUDED_MODULES.
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", "--config", denoJson, join(root, "main.ts")],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.ok(out.success, new TextDecoder().decode(out.stderr));
  const info = JSON.parse(new TextDecoder().decode(out.stdout)) as {
    modules: Array<{ specifier: string }>;
  };
  const loaded = new Set(info.modules.map((m) => m.specifier));
  for (const module of Object.values(LAZY_ENTRY_MODULES)) {
    assert.ok(!loaded.has(`file://${join(root, module)}`), `${module} is not in main.ts's graph`);
  }
  // Nor anything only they import: the model SDK and the CLI.
  const cli = [...loaded].filter((s) => /openai|src\/cli\//.test(s));
  assert.deepEqual(cli, []);
  const main = await Deno.readTextFile(join(root, "main.ts"));
  for (const module of Object.values(LAZY_ENTRY_MODULES)) {
    assert.ok(
      main.includes(
        `LAZY_ENTRY_MODULES.${
          Object.entries(LAZY_ENTRY_MODULES).find(([, m]) => m === module)?.[0]
        }`,
      ),
      `main.ts loads ${module}`,
    );
  }
});

Deno.test("parseRunTask() rejects tasks that are not a plain deno run", () => {
  assert.deepEqual(parseRunTask("deno run -A --unstable-worker-options main.ts"), {
    env: {},
    flags: ["-A", "--unstable-worker-options"],
    entry: "main.ts",
  });
  // Variables set before `deno run` are the task's, kept as written for its shell to expand.
  assert.deepEqual(parseRunTask('A=1 B="$INIT_CWD" deno run -A main.ts'), {
    env: { A: "1", B: '"$INIT_CWD"' },
    flags: ["-A"],
    entry: "main.ts",
  });
  assert.throws(() => parseRunTask("A=1 node main.ts"), /deno run/);
  assert.throws(() => parseRunTask("deno test main.ts"), /deno run/);
  assert.throws(() => parseRunTask("deno run -A"), /no entry/);
  assert.throws(() => parseRunTask("deno run -A main.ts extra"), /script arguments/);
});

Deno.test("the tool host under deno run gets exactly the runtime flags of the start task", async () => {
  const run = await readStartTask(denoJson);
  assert.deepEqual([...HOST_RUNTIME_FLAGS].sort(), [...run.flags].sort());
});

Deno.test("moat runs with V8's young generation capped (its peak RSS: bench measure 12)", async () => {
  const run = await readStartTask(denoJson);
  const v8 = run.flags.find((f) => f.startsWith("--v8-flags="))?.slice("--v8-flags=".length);
  assert.ok(v8?.split(",").includes("--max-semi-space-size=1"), run.flags.join(" "));
});

Deno.test("compileArgs() compiles the release from the CLI bundle's build: its entry last, its chunks embedded", async () => {
  const run = await readStartTask(denoJson);
  const args = compileArgs(TARGETS[0], run, {
    entry: "dist/bundle/0123456789abcdef/moat.ts",
    include: [...INCLUDED_MODULES, "dist/bundle/0123456789abcdef/cli"],
  });
  assert.equal(args.at(-1), "dist/bundle/0123456789abcdef/moat.ts");
  const included = args.flatMap((a, i) => a === "--include" ? [args[i + 1]] : []);
  assert.deepEqual(included, [...INCLUDED_MODULES, "dist/bundle/0123456789abcdef/cli"]);
});
