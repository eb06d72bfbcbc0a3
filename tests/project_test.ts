import assert from "node:assert/strict";
import { helpText } from "../src/cli/args.ts";
import { EXIT } from "../src/cli/exit.ts";

async function denoConfig(): Promise<{
  imports: Record<string, string>;
  tasks: Record<string, string | { command: string; dependencies?: string[] }>;
  test: Record<string, unknown>;
}> {
  return JSON.parse(await Deno.readTextFile(new URL("../deno.json", import.meta.url)));
}

/** A task's command: the string, or the command of a task written as an object. */
function command(task: string | { command: string } | undefined): string {
  return typeof task === "string" ? task : task?.command ?? "";
}

Deno.test("deno task test gates on type-check, lint and formatting before running tests", async () => {
  const { tasks } = await denoConfig();
  const steps = command(tasks.test).split("&&").map((s) => s.trim());
  assert.match(steps[0] ?? "", /^deno check\b/);
  assert.ok(steps.some((s) => /^deno lint\b/.test(s)), "lint step missing");
  assert.ok(steps.some((s) => /^deno fmt --check\b/.test(s)), "fmt --check step missing");
  // After the environment it runs with (DENO_JOBS: how many test files run at once).
  const last = (steps[steps.length - 1] ?? "").replace(/^(?:[A-Z_]+=\S+\s+)+/, "");
  assert.match(last, /^deno test\b/);
  // deno test skips its own type-check only because the first step already checked every test.
  if (/--no-check\b/.test(last)) {
    assert.match(steps[0] ?? "", /\stests\/(\s|$)/, "deno check must cover tests/");
  }
});

Deno.test("deno task start, test and install build the CLI's bundle first when it is stale", async () => {
  const { tasks } = await denoConfig();
  for (const name of ["start", "test", "install"]) {
    const task = tasks[name];
    assert.ok(typeof task === "object" && task.dependencies?.includes("bundle"), name);
  }
  assert.match(command(tasks.bundle), /\bscripts\/bundle\.ts$/);
});

Deno.test("deno.json turns the op and resource sanitizers on", async () => {
  const config = await denoConfig();
  assert.equal(config.test.sanitizeOps, true);
  assert.equal(config.test.sanitizeResources, true);
});

Deno.test("every import is a pinned npm: specifier (JSR is unreachable)", async () => {
  const { imports } = await denoConfig();
  for (const [name, spec] of Object.entries(imports)) {
    assert.match(spec, /^npm:(@[^/@]+\/)?[^/@]+@\d+\.\d+\.\d+(\/.*)?$/, `${name} -> ${spec}`);
  }
});

Deno.test("every exit code of the CLI is documented in --help, the README and docs/events.md", async () => {
  const readme = await Deno.readTextFile(new URL("../README.md", import.meta.url));
  const events = await Deno.readTextFile(new URL("../docs/events.md", import.meta.url));
  const help = helpText("0.0.0");
  for (const [name, code] of Object.entries(EXIT)) {
    assert.match(readme, new RegExp(`^\\| ${code} +\\| `, "m"), `README exit table lists ${name}`);
    assert.match(events, new RegExp(`^\\| ${code} +\\| `, "m"), `events.md lists ${name}`);
    assert.match(help, new RegExp(`(?:Exit codes:|·)\\s+${code} `), `--help lists ${name}`);
  }
});
