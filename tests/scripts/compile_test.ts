import assert from "node:assert/strict";
import {
  compileArgs,
  INCLUDED_MODULES,
  parseRunTask,
  readStartTask,
  TARGETS,
} from "../../scripts/compile.ts";

const denoJson = new URL("../../deno.json", import.meta.url).pathname;

Deno.test("compileArgs() passes exactly the runtime flags of the start task", async () => {
  const config = JSON.parse(await Deno.readTextFile(denoJson));
  const startWords: string[] = config.tasks.start.split(/\s+/);
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

Deno.test("compileArgs() embeds the sandbox worker module", async () => {
  const args = compileArgs(TARGETS[0], await readStartTask(denoJson));
  for (const module of INCLUDED_MODULES) {
    assert.equal(args[args.indexOf("--include") + 1], module);
  }
  assert.ok(INCLUDED_MODULES.includes("src/sandbox/worker.ts"));
});

Deno.test("parseRunTask() rejects tasks that are not a plain deno run", () => {
  assert.deepEqual(parseRunTask("deno run -A --unstable-worker-options main.ts"), {
    flags: ["-A", "--unstable-worker-options"],
    entry: "main.ts",
  });
  assert.throws(() => parseRunTask("deno test main.ts"), /deno run/);
  assert.throws(() => parseRunTask("deno run -A"), /no entry/);
  assert.throws(() => parseRunTask("deno run -A main.ts extra"), /script arguments/);
});
