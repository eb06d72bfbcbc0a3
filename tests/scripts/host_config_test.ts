import assert from "node:assert/strict";
import { hostConfigFiles, hostConfigTexts } from "../../scripts/host_config.ts";

const ROOT = new URL("../..", import.meta.url).pathname;

Deno.test("the tool host's config and lock are those scripts/host_config.ts writes from moat's", async () => {
  for (const [path, text] of await hostConfigTexts(ROOT)) {
    let committed: unknown;
    try {
      committed = JSON.parse(await Deno.readTextFile(path));
    } catch (e) {
      assert.fail(`${path} cannot be read (${e}): run \`deno task host-config\``);
    }
    assert.deepEqual(
      committed,
      JSON.parse(text),
      `${path} is out of date: run \`deno task host-config\``,
    );
  }
});

Deno.test("hostConfigFiles() keeps the host's packages, what they depend on, and their versions", () => {
  const files = hostConfigFiles(
    {
      imports: {
        a: "npm:a@1.0.0",
        "a/sub": "npm:a@1.0.0/sub",
        "@s/b": "npm:@s/b@2.0.0",
        other: "npm:other@3.0.0",
      },
      compilerOptions: { strict: true },
    },
    {
      version: "5",
      specifiers: { "npm:a@1.0.0": "1.0.0", "npm:@s/b@2.0.0": "2.0.0", "npm:other@3.0.0": "3.0.0" },
      npm: {
        "a@1.0.0": { dependencies: ["dep@4.0.0"] },
        "dep@4.0.0": {},
        "@s/b@2.0.0_peer@1.0.0": {},
        "other@3.0.0": { dependencies: ["dep@4.0.0"] },
      },
      workspace: { dependencies: ["npm:@s/b@2.0.0", "npm:a@1.0.0", "npm:other@3.0.0"] },
    },
    ["a", "@s/b"],
  );
  assert.deepEqual(files.config, {
    imports: { a: "npm:a@1.0.0", "a/sub": "npm:a@1.0.0/sub", "@s/b": "npm:@s/b@2.0.0" },
    compilerOptions: { strict: true },
    lock: { path: "./host_lock.json", frozen: true },
  });
  assert.deepEqual(files.lock, {
    version: "5",
    specifiers: { "npm:a@1.0.0": "1.0.0", "npm:@s/b@2.0.0": "2.0.0" },
    npm: {
      "@s/b@2.0.0_peer@1.0.0": {},
      "a@1.0.0": { dependencies: ["dep@4.0.0"] },
      "dep@4.0.0": {},
    },
    workspace: { dependencies: ["npm:@s/b@2.0.0", "npm:a@1.0.0"] },
  });
});
