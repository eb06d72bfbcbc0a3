/** The commands and examples the docs show are the ones that really run. */
import assert from "node:assert/strict";
import { join } from "node:path";
import { VERSION } from "../../src/version.ts";
import { createTempWorkspace } from "../support/workspace.ts";
import { cliEnv, PROJECT_ROOT } from "./_cli.ts";

Deno.test("the README runs moat with `deno task -q start`, which prints only moat's own output", async () => {
  const readme = await Deno.readTextFile(join(PROJECT_ROOT, "README.md"));
  const launches = readme.match(/npx -y deno@2\.9\.6 task\b.*\bstart --.*$/gm) ?? [];
  assert.ok(launches.length >= 2, "the README shows how to run moat");
  for (const line of launches) assert.match(line, /npx -y deno@2\.9\.6 task -q start -- /, line);

  await using home = await createTempWorkspace();
  const run = async (args: string[]) => {
    const out = await new Deno.Command(Deno.execPath(), {
      args,
      cwd: PROJECT_ROOT,
      env: cliEnv(home.dir),
      clearEnv: true,
      stdout: "piped",
      stderr: "piped",
    }).output();
    const decoder = new TextDecoder();
    return {
      code: out.code,
      stdout: decoder.decode(out.stdout),
      stderr: decoder.decode(out.stderr),
    };
  };
  const quiet = await run(["task", "-q", "start", "--", "--version"]);
  assert.equal(quiet.code, 0, quiet.stderr);
  assert.equal(quiet.stdout, `moat ${VERSION}\n`);
  assert.equal(quiet.stderr, "");
  // What -q leaves out: Deno's own line naming the task, on every run.
  const loud = await run(["task", "start", "--", "--version"]);
  assert.match(loud.stderr, /Task start deno run/);
});

Deno.test("docs/security.md quotes the bash command the tour really runs", async () => {
  const tour = await Deno.readTextFile(join(PROJECT_ROOT, "examples", "tour.jsonl"));
  const commands: string[] = [];
  for (const line of tour.trimEnd().split("\n")) {
    const value = JSON.parse(line);
    for (const block of value.message?.blocks ?? []) {
      if (block.type === "toolCall" && block.name === "bash") {
        commands.push(block.arguments.command);
      }
    }
  }
  assert.equal(commands.length, 1);
  const security = await Deno.readTextFile(join(PROJECT_ROOT, "docs", "security.md"));
  const sentence = /The checked-in `examples\/tour\.jsonl` reads, lists, greps and\s+runs `([^`]+)`/
    .exec(security);
  assert.ok(sentence !== null, "docs/security.md describes the tour");
  assert.equal(sentence[1], commands[0]);
});
