import assert from "node:assert/strict";
import { modeId, modeOf, modeState } from "../../src/acp/modes.ts";
import { briefGrants } from "../../src/acp/sets.ts";
import { parseGrantFlags } from "../../src/policy/grants.ts";

Deno.test("a session's modes: the presets, then each permission set by a prefixed id", () => {
  const sets = [{ name: "grants", description: "a set that happens to be called grants" }];
  const state = modeState({ kind: "set", name: "grants" }, sets);
  assert.equal(state.currentModeId, "set:grants");
  assert.deepEqual(state.availableModes.map((m) => m.id), ["grants", "read-only", "set:grants"]);
  assert.deepEqual(modeOf("set:grants", sets), { kind: "set", name: "grants" });
  assert.deepEqual(modeOf("grants", sets), { kind: "grants" });
  assert.equal(modeOf("set:other", sets), undefined);
  assert.equal(modeOf("yolo", sets), undefined);
  assert.equal(modeId({ kind: "read-only" }), "read-only");
});

Deno.test("a set's mode is described by its grants as Deno flags, relative to the workspace", () => {
  const parsed = parseGrantFlags({
    "allow-read": "/w",
    "allow-write": "/w/src,/tmp/out",
    "allow-run": "git",
  }, {
    cwd: "/w",
    nothing: ["net", "env"],
    // Every path is a directory of that name.
    paths: {
      realPath: (path) => ({ ok: true, path }),
      stat: () => ({ kind: "dir", mode: 0o755 }),
      lstat: () => undefined,
    },
  });
  if (!parsed.ok) throw parsed.error;
  assert.equal(
    briefGrants(parsed.grants, "/w"),
    "--allow-read=. --allow-write=src,/tmp/out --allow-run=git",
  );
});
