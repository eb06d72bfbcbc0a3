import assert from "node:assert/strict";
import {
  bundledCli,
  type CliBundleOps,
  failedBefore,
  freshCliBundle,
  parsePointer,
} from "../../src/sys/cli_bundle.ts";

/** Files by absolute path: text, or a size and modification time. */
function fakeOps(files: Record<string, string | { size: number; mtimeMs: number }>): CliBundleOps {
  return {
    readText: (path) => {
      const f = files[path];
      return typeof f === "string" ? f : undefined;
    },
    stat: (path) => {
      const f = files[path];
      if (f === undefined) return undefined;
      return typeof f === "string" ? { size: f.length, mtimeMs: 1 } : f;
    },
  };
}

const POINTER = JSON.stringify({
  build: "0123456789abcdef",
  inputs: [["src/a.ts", 10, 100], ["deno.lock", 20, 200]],
});
const MAIN = "/m/dist/bundle/0123456789abcdef/cli/main.js";

function layout(overrides: Record<string, string | { size: number; mtimeMs: number }> = {}) {
  return fakeOps({
    "/m/dist/bundle/current.json": POINTER,
    [MAIN]: "export {}",
    "/m/src/a.ts": { size: 10, mtimeMs: 100 },
    "/m/deno.lock": { size: 20, mtimeMs: 200 },
    ...overrides,
  });
}

Deno.test("freshCliBundle() names the current build's CLI while every input is unchanged", () => {
  assert.equal(freshCliBundle("/m", { ops: layout() }), `file://${MAIN}`);
});

Deno.test("freshCliBundle() runs the sources when an input changed, went away, or the build is gone", () => {
  const stale = [
    layout({ "/m/src/a.ts": { size: 11, mtimeMs: 100 } }),
    layout({ "/m/deno.lock": { size: 20, mtimeMs: 201 } }),
    fakeOps({ "/m/dist/bundle/current.json": POINTER, [MAIN]: "", "/m/deno.lock": "x" }),
    layout({ [MAIN]: undefined as unknown as string }),
    layout({ "/m/dist/bundle/current.json": "{not json" }),
    fakeOps({}),
  ];
  for (const ops of stale) assert.equal(freshCliBundle("/m", { ops }), undefined);
});

Deno.test("parsePointer() accepts only a build name and stamps of paths inside the checkout", () => {
  assert.ok(parsePointer(POINTER));
  for (
    const bad of [
      { build: "../x", inputs: [["a", 1, 1]] },
      { build: "0123456789abcdef", inputs: [] },
      { build: "0123456789abcdef", inputs: [["/etc/passwd", 1, 1]] },
      { build: "0123456789abcdef", inputs: [["src/../../x", 1, 1]] },
      { build: "0123456789abcdef", inputs: [["a", "1", 1]] },
    ]
  ) assert.equal(parsePointer(JSON.stringify(bad)), undefined, JSON.stringify(bad));
});

Deno.test("failedBefore() holds while the inputs are those of the failed build, not after a change", () => {
  const failed = { "/m/dist/bundle/failed.json": POINTER };
  assert.equal(failedBefore("/m", { ops: layout(failed) }), true);
  assert.equal(
    failedBefore("/m", { ops: layout({ ...failed, "/m/src/a.ts": { size: 12, mtimeMs: 100 } }) }),
    false,
  );
  assert.equal(failedBefore("/m", { ops: layout() }), false);
});

Deno.test("freshCliBundle() names a checkout whose path has '#', '%' or a space by a URL that is that path", () => {
  const root = "/home/me/my #1 100%";
  const ops = fakeOps({
    [`${root}/dist/bundle/current.json`]: POINTER,
    [`${root}/dist/bundle/0123456789abcdef/cli/main.js`]: "export {}",
    [`${root}/src/a.ts`]: { size: 10, mtimeMs: 100 },
    [`${root}/deno.lock`]: { size: 20, mtimeMs: 200 },
  });
  const url = freshCliBundle(root, { ops });
  assert.ok(url !== undefined);
  assert.equal(
    decodeURIComponent(new URL(url).pathname),
    `${root}/dist/bundle/0123456789abcdef/cli/main.js`,
  );
});

Deno.test("bundledCli() is main.ts's choice: the fresh bundle, else the sources, and the sources under MOAT_NO_BUNDLE=1", () => {
  const env = (vars: Record<string, string>) => ({ get: (name: string) => vars[name] });
  assert.equal(bundledCli("/m", env({}), layout()), `file://${MAIN}`);
  assert.equal(bundledCli("/m", env({ MOAT_NO_BUNDLE: "0" }), layout()), `file://${MAIN}`);
  assert.equal(bundledCli("/m", env({ MOAT_NO_BUNDLE: "1" }), layout()), undefined);
  const stale = layout({ "/m/src/a.ts": { size: 11, mtimeMs: 100 } });
  assert.equal(bundledCli("/m", env({}), stale), undefined);
});
