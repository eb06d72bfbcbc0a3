import assert from "node:assert/strict";
import { probeBwrap } from "../../../src/sandbox/bwrap/probe.ts";
import { createDenoCommandOps } from "../../../src/sys/command.ts";
import { createDenoPathOps } from "../../../src/sys/paths.ts";

/** Deno's look-ups and commands, for probing the real machine. */
const deno = { paths: createDenoPathOps(), commands: createDenoCommandOps() };

Deno.test("probeBwrap() reports a missing bwrap with the cause", async () => {
  const p = await probeBwrap({ env: { PATH: "/nonexistent" }, ...deno });
  assert.deepEqual(p.usable, false);
  assert.ok(!p.usable && /not installed/.test(p.cause));
  const q = await probeBwrap({ path: "/bin/false", ...deno });
  assert.ok(!q.usable && /cannot create namespaces/.test(q.cause));
});

Deno.test({
  name: "probeBwrap() finds a working bwrap with nested pid namespaces",
  ignore: !hasBwrap(),
  fn: async () => {
    const p = await probeBwrap(deno);
    assert.ok(p.usable, JSON.stringify(p));
  },
});

function hasBwrap(): boolean {
  try {
    return Deno.statSync("/usr/bin/bwrap").isFile;
  } catch {
    return false;
  }
}

Deno.test("probeBwrap() without a nested pid namespace is unusable, naming why", async () => {
  const commands = {
    output(_program: string, args: string[]) {
      // The nested probe runs bwrap inside bwrap: fail that one only.
      const nested = args.filter((a) => a === "--unshare-pid").length > 1;
      return Promise.resolve(
        nested
          ? {
            ok: true as const,
            success: false,
            code: 1,
            signal: null,
            stdout: "",
            stderr: "bwrap: Creating new namespace failed: Operation not permitted\n",
          }
          : { ok: true as const, success: true, code: 0, signal: null, stdout: "", stderr: "" },
      );
    },
  };
  const p = await probeBwrap({ path: "/usr/bin/bwrap", commands, paths: fakeExecutable() });
  assert.ok(!p.usable);
  assert.match(p.cause, /cannot create a nested pid namespace for each bash call/);
  assert.match(p.cause, /Operation not permitted/);
});

function fakeExecutable() {
  return {
    realPath: (path: string) => ({ ok: true as const, path }),
    stat: () => ({ kind: "file" as const, mode: 0o755 }),
    lstat: () => ({ kind: "file" as const }),
  };
}
