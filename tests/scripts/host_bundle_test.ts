import { fileURLToPath } from "node:url";
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  bundleDir,
  bundleInputs,
  currentManifest,
  machineIndependent,
} from "../../scripts/host_bundle.ts";
import { HOST_BUNDLE_MANIFEST } from "../../src/sandbox/host_bundle.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

Deno.test("the tool host's bundle is built from the sources as they are: run `deno task host-bundle` when this fails", async () => {
  const path = join(bundleDir(ROOT), HOST_BUNDLE_MANIFEST);
  let committed: unknown;
  try {
    committed = JSON.parse(await Deno.readTextFile(path));
  } catch (e) {
    assert.fail(`${path} cannot be read (${e}): run \`deno task host-bundle\``);
  }
  const now = await currentManifest(ROOT, await bundleInputs(ROOT));
  assert.deepEqual(
    committed,
    now,
    `the tool host's bundle is out of date (until it is rebuilt the host runs from the ` +
      "sources, slower): run `deno task host-bundle`",
  );
});

Deno.test("machineIndependent() names an npm module by its package, not the Deno cache's path", () => {
  const bundle = [
    "// ../../../root/.cache/deno/npm/registry.npmjs.org/ignore/7.0.5/index.js",
    'var require_x = __commonJS({ "../home/u/.cache/deno/npm/registry.npmjs.org/@s/b/1.0.0/i.js"() {',
    "// src/tools/read.ts",
  ].join("\n");
  assert.equal(
    machineIndependent(bundle),
    [
      "// npm:ignore/7.0.5/index.js",
      'var require_x = __commonJS({ "npm:@s/b/1.0.0/i.js"() {',
      "// src/tools/read.ts",
    ].join("\n"),
  );
});
