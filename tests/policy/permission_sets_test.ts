import assert from "node:assert/strict";
import {
  flagsUnderSet,
  parsePermissionSets,
  type PermissionSet,
  pickPermissionSet,
  setFlagValues,
} from "../../src/policy/permission_sets.ts";

const FILE = "/w/deno.json";

function set(body: unknown, name = "ci"): PermissionSet {
  const parsed = parsePermissionSets({ [name]: body }, FILE);
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.sets.get(name) as PermissionSet;
}

Deno.test("parsePermissionSets() takes true, a list, false and the allow/deny/ignore object", () => {
  const s = set({
    read: { allow: ["."], deny: [".env"], ignore: ["secrets"] },
    write: ["dist"],
    run: true,
    net: false,
    ffi: true,
  });
  assert.deepEqual(s.kinds, {
    read: { allow: ["."], deny: [".env"], ignore: ["secrets"] },
    write: { allow: ["dist"] },
    run: { allow: true },
    net: { allow: false },
    ffi: { allow: true },
  });
});

Deno.test("parsePermissionSets() names the file, the key and what is accepted", () => {
  const cases: Array<[unknown, RegExp]> = [
    [
      { reed: ["."] },
      /"\/w\/deno\.json": key "permissions\.ci\.reed": unknown kind: accepted are all, read, write/,
    ],
    [
      { read: "src" },
      /key "permissions\.ci\.read": expected true, false, a list of strings, or \{"allow", "deny", "ignore"\}/,
    ],
    [
      { write: { ignore: ["x"] } },
      /key "permissions\.ci\.write\.ignore": unknown field: accepted are allow, deny/,
    ],
    [
      { read: { deny: true } },
      /key "permissions\.ci\.read\.deny": true \(deny everything\) is not accepted/,
    ],
    [{ env: { deny: ["AWS_SECRET"] } }, /key "permissions\.ci\.env\.deny": moat has no --deny-env/],
    [{ all: "yes" }, /key "permissions\.ci\.all": expected true or false/],
    ["everything", /key "permissions\.ci": expected an object of kinds/],
  ];
  for (const [body, message] of cases) {
    const parsed = parsePermissionSets({ ci: body }, FILE);
    assert.equal(parsed.ok, false, JSON.stringify(body));
    if (!parsed.ok) assert.match(parsed.error, message);
  }
});

Deno.test("pickPermissionSet() takes the later source by name, bare -P the default set or none", () => {
  const user = {
    origin: "user" as const,
    file: "/u/config.json",
    sets: new Map([["ci", set({}, "ci")]]),
  };
  const ws = {
    origin: "workspace" as const,
    file: FILE,
    sets: new Map([["ci", set({ read: true })]]),
  };
  const picked = pickPermissionSet("ci", [user, ws]);
  assert.ok(picked.ok && picked.set !== undefined);
  assert.equal(picked.origin, "workspace");
  assert.deepEqual(pickPermissionSet("", [user, ws]), { ok: true, set: undefined });
  const unknown = pickPermissionSet("cd", [user, ws]);
  assert.ok(!unknown.ok);
  assert.match(
    unknown.error,
    /Unknown permission set "cd" \(-P=cd\): defined are "ci" \(looked in "\/u\/config\.json", "\/w\/deno\.json"\)/,
  );
});

Deno.test("setFlagValues() makes the set's paths absolute against its file, programs stay names", () => {
  const out = setFlagValues(
    set({ read: ["src", "/etc"], run: ["git", "./bin/x"], net: ["jsr.io"] }),
    {},
  );
  assert.deepEqual(out.values, {
    "allow-read": "/w/src,/etc",
    "allow-run": "git,/w/bin/x",
    "allow-net": "jsr.io",
  });
  // Kinds the set does not grant get nothing, as in Deno: the set is the whole grant.
  assert.deepEqual(out.nothing, ["write", "env"]);
});

Deno.test("setFlagValues() combines like Deno: a flag replaces the set's field, deny stays", () => {
  const s = set({ read: { allow: ["."], deny: [".env"] }, write: ["dist"] });
  const sameKind = setFlagValues(s, { "allow-read": ["src"] });
  assert.deepEqual(sameKind.values["allow-read"], ["src"]);
  assert.equal(sameKind.values["deny-read"], "/w/.env");
  const deny = setFlagValues(s, { "deny-read": ["secrets"] });
  assert.deepEqual(deny.values["deny-read"], ["secrets"]);
  assert.equal(deny.values["allow-read"], "/w");
});

Deno.test("setFlagValues() grants every unnamed kind under all: true, and a kind's own value wins", () => {
  const out = setFlagValues(set({ all: true, write: false, read: { ignore: [".env"] } }), {});
  assert.equal(out.values["allow-read"], true);
  assert.equal(out.values["allow-run"], true);
  assert.equal(out.values["ignore-read"], "/w/.env");
  assert.deepEqual(out.nothing, ["write"]);
});

Deno.test("flagsUnderSet() drops every allow flag and the deny lists the set gives; keeps the rest", () => {
  const s = set({ read: { allow: ["."], deny: [".env"] }, write: ["dist"] });
  const flags = {
    "allow-read": "src",
    "allow-write": "a.txt",
    "allow-net": "example.com",
    "deny-read": "secrets",
    "deny-write": "dist/keep",
    "ignore-env": "TOKEN",
  };
  assert.deepEqual(flagsUnderSet(s, flags), { "deny-write": "dist/keep", "ignore-env": "TOKEN" });
  const combined = setFlagValues(s, flagsUnderSet(s, flags));
  assert.equal(combined.values["allow-write"], "/w/dist");
  assert.equal(combined.values["deny-read"], "/w/.env");
  assert.deepEqual(combined.nothing, ["run", "net", "env"]);
});
