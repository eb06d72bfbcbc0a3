/** `-P[=NAME]` runs and `moat grants`: sets from deno.json(c) and the user config, trust. */
import assert from "node:assert/strict";
import { runCli } from "../../src/cli/main.ts";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.ts";
import { createFakeCliDeps, createFakeTerminal, okModel } from "./_fakes.ts";

const DENO_JSONC = `{
  // the repository's sets
  "permissions": {
    "ci": {
      "read": ["."],
      "write": { "allow": ["dist"], "deny": ["dist/keep"] },
      "run": ["git"],
      "net": ["jsr.io"],
    },
    "review": { "read": { "allow": ["."], "ignore": [".env"] }, "env": { "ignore": ["SECRET"] } },
  },
}`;

async function run(ws: TempWorkspace, argv: string[]) {
  const terminal = createFakeTerminal();
  const model = okModel();
  const fake = createFakeCliDeps({ model });
  const code = await runCli(argv, {
    env: { HOME: ws.dir, XDG_CONFIG_HOME: ws.path("xdg"), OPENAI_API_KEY: "k" },
    cwd: ws.path("repo"),
    terminal,
    deps: fake.deps,
  });
  return { code, stdout: terminal.stdout, stderr: terminal.stderr, calls: fake.calls };
}

Deno.test("moat grants -P=NAME prints the set's grants in Deno's syntax with absolute paths", async () => {
  await using ws = await createTempWorkspace({ "repo/deno.jsonc": DENO_JSONC, "repo/dist/a": "" });
  const repo = ws.path("repo");
  const out = await run(ws, ["grants", "--trust-project", "-P=ci", "--allow-run=git,deno"]);
  assert.equal(out.code, 0, out.stderr);
  assert.equal(
    out.stdout,
    [
      `--allow-read=${repo}`,
      `--allow-write=${repo}/dist`,
      "--allow-run=git,deno",
      "--allow-net=jsr.io",
      "# env: the safe list only",
      `--deny-write=${repo}/dist/keep`,
    ].join("\n") + "\n",
  );
  assert.equal(out.calls.models, 0);
});

Deno.test("moat grants prints a set's ignore lists; -A drops the set, so no trust is needed", async () => {
  await using ws = await createTempWorkspace({ "repo/deno.jsonc": DENO_JSONC, "repo/.env": "" });
  const repo = ws.path("repo");
  const review = await run(ws, ["grants", "--trust-project", "-P=review"]);
  assert.equal(review.code, 0, review.stderr);
  assert.ok(review.stdout.includes(`--ignore-read=${repo}/.env\n`), review.stdout);
  assert.ok(review.stdout.includes("--ignore-env=SECRET\n"), review.stdout);
  const all = await run(ws, ["grants", "-P=ci", "-A"]);
  assert.equal(all.code, 0, all.stderr);
  assert.match(all.stderr, /-A ignores -P/);
  assert.doesNotMatch(all.stdout, /jsr\.io/);
});

Deno.test("a workspace set in an untrusted project fails closed in print mode, before any request", async () => {
  await using ws = await createTempWorkspace({ "repo/deno.jsonc": DENO_JSONC, "repo/dist/a": "" });
  const out = await run(ws, ["-p", "-P=ci", "hello"]);
  assert.equal(out.code, 2);
  assert.match(
    out.stderr,
    /deno\.jsonc" sets what moat's tools may touch \(a permission set\), and this project is not trusted/,
  );
  assert.equal(out.calls.models, 0);
  assert.equal(out.calls.sandboxes.length, 0);
});

Deno.test("a trusted workspace set runs with its grants and shows them before the first request", async () => {
  await using ws = await createTempWorkspace({ "repo/deno.jsonc": DENO_JSONC, "repo/dist/a": "" });
  const repo = ws.path("repo");
  const out = await run(ws, ["-p", "--trust-project", "-P=ci", "hello"]);
  assert.equal(out.code, 0, out.stderr);
  assert.match(out.stderr, /permission set "ci" of ".*deno\.jsonc" grants:\n {2}--allow-read=/);
  const grants = out.calls.sandboxes[0]?.grants;
  assert.deepEqual(grants?.write, [`${repo}/dist`]);
  assert.deepEqual(grants?.env, []);
  assert.equal(grants?.explicit.env, true);
});

Deno.test("a user config set needs no trust; an unknown key is exit 2 naming the file and key", async () => {
  await using ws = await createTempWorkspace({
    "xdg/moat/config.json": JSON.stringify({
      permissions: { review: { read: ["."], write: false } },
    }),
    "repo/deno.json": JSON.stringify({ permissions: { ci: { raed: ["."] } } }),
  });
  const review = await run(ws, ["grants", "-P=review"]);
  assert.equal(review.code, 2);
  assert.match(
    review.stderr,
    /deno\.json": key "permissions\.ci\.raed": unknown kind: accepted are all, read/,
  );
  await Deno.remove(ws.path("repo/deno.json"));
  const ok = await run(ws, ["grants", "-P=review"]);
  assert.equal(ok.code, 0, ok.stderr);
  assert.match(ok.stdout, /^--allow-read=.*\/repo\n# write: nothing\n# run: nothing\n/);
});
