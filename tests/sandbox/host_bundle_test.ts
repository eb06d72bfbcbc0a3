import assert from "node:assert/strict";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { SandboxSys } from "../../src/sandbox/mod.ts";
import { createDenoSandboxSys } from "../../src/sys/sandbox.ts";
import { defaultGrants } from "../support/grants.ts";
import { BWRAP, callTool, createLayout, openSandbox, textOf } from "./_helpers.ts";

const PROJECT = fileURLToPath(new URL("../..", import.meta.url)).replace(/\/$/, "");
const BUNDLE = join(PROJECT, "src", "sandbox", "host", "bundle");

/** Deno's effects, with the command line of every process spawned through them kept. */
function recordingSys(): { sys: SandboxSys; spawned: string[][] } {
  const sys = createDenoSandboxSys();
  const spawned: string[][] = [];
  return {
    spawned,
    sys: {
      ...sys,
      processes: {
        spawn(program, args, options) {
          spawned.push([program, ...args]);
          return sys.processes.spawn(program, args, options);
        },
      },
    },
  };
}

Deno.test({
  name: "[bwrap] the tool host and its Workers run from the bundle, and the tools work there",
  ignore: !BWRAP,
  async fn() {
    const layout = await createLayout({ "b.txt": "needle one\nhay\nneedle two\n" });
    await using _ = layout.root;
    const { sys, spawned } = recordingSys();
    const sb = await openSandbox(layout, "bwrap", defaultGrants(layout.ws), { sys });
    try {
      assert.match(textOf(await callTool(sb, "read", { path: "a.txt" })), /hello/);
      // grep's scan threads are the bundle's helper Worker.
      assert.match(textOf(await callTool(sb, "grep", { pattern: "needle" })), /needle two/);
      const host = spawned.find((argv) => argv.includes("__tool-host"));
      assert.ok(host !== undefined, JSON.stringify(spawned));
      assert.equal(host[host.indexOf("--no-config") + 1], join(BUNDLE, "host.js"));
      // No npm package and nothing of Deno's cache is mounted for it.
      assert.deepEqual(
        host.filter((a) => /\/npm\/registry\.npmjs\.org\/|\/deno\/gen\//.test(a)),
        [],
      );
    } finally {
      await sb.close();
    }
  },
});
