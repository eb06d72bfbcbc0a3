/**
 * End-to-end: `moat grants -P=NAME` prints a deno.json set's grants as Deno flags, and a print
 * run with the set of an untrusted clone sends nothing.
 */
import assert from "node:assert/strict";
import { startFakeOpenAI } from "../support/fake_openai.ts";
import { createTempWorkspace } from "../support/workspace.ts";
import { cliEnv, runMoat } from "./_cli.ts";

Deno.test("moat grants -P=ci prints the set's flags; the same set untrusted in print mode sends nothing", async () => {
  await using server = await startFakeOpenAI();
  await using ws = await createTempWorkspace({
    "deno.json": JSON.stringify({
      permissions: { ci: { read: ["."], write: ["dist"], run: ["git"], env: ["CI"] } },
    }),
    "dist/.keep": "",
  });
  await using home = await createTempWorkspace();
  const env = cliEnv(home.dir, { OPENAI_API_KEY: "k", OPENAI_BASE_URL: server.baseURL });
  const grants = await runMoat(["grants", "--trust-project", "-P=ci"], { cwd: ws.dir, env });
  assert.equal(grants.code, 0, grants.stderr);
  assert.equal(
    grants.stdout,
    `--allow-read=${ws.dir}\n--allow-write=${ws.path("dist")}\n--allow-run=git\n` +
      "# net: nothing\n--allow-env=CI\n",
  );
  const untrusted = await runMoat(["-p", "-P=ci", "hello"], { cwd: ws.dir, env });
  assert.equal(untrusted.code, 2, untrusted.stderr);
  assert.match(untrusted.stderr, /a permission set\), and this project is not trusted/);
  assert.match(
    untrusted.stderr,
    /leave out -P, give permission flags or use a set of your user config/,
  );
  assert.equal(server.requests.length, 0);
});
