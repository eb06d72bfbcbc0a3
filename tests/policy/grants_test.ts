import assert from "node:assert/strict";
import { formatGrants } from "../../src/policy/grant_hints.ts";
import {
  defaultGrants,
  parseGrantFlags,
  toolEnvironment,
  UsageError,
  widenGrants,
} from "../support/grants.ts";
import { createTempWorkspace } from "../support/workspace.ts";
import { createDenoScanOps } from "../../src/sys/paths.ts";

Deno.test("defaultGrants() reads and writes the workspace and grants nothing else", async () => {
  await using ws = await createTempWorkspace();
  const g = defaultGrants(ws.dir);
  assert.deepEqual([g.read, g.write, g.run, g.net, g.env], [[ws.dir], [ws.dir], [], [], []]);
  assert.equal(g.allowAll, false);
  assert.match(formatGrants(g), /run: bash in the OS sandbox · net: none · env: safe list/);
});

Deno.test("parseGrantFlags() resolves comma lists relative to cwd to real paths", async () => {
  await using ws = await createTempWorkspace({ "src/a.ts": "", "tests/b.ts": "" });
  await Deno.symlink(ws.path("src"), ws.path("alias"));
  const r = parseGrantFlags({
    "allow-read": ["."],
    "allow-write": ["src,tests", "alias"],
    "allow-run": ["git,deno"],
    "allow-net": ["127.0.0.1:8000"],
    "allow-env": ["FOO,AWS_*"],
  }, { cwd: ws.dir });
  assert.ok(r.ok);
  assert.deepEqual(r.grants.read, [ws.dir]);
  assert.deepEqual(r.grants.write, [ws.path("src"), ws.path("tests")]);
  assert.deepEqual(r.grants.run, ["git", "deno"]);
  assert.deepEqual(r.grants.net, ["127.0.0.1:8000"]);
  assert.deepEqual(r.grants.env, ["FOO", "AWS_*"]);
  assert.deepEqual(r.grants.explicit, { read: true, write: true, run: true, net: true, env: true });
});

Deno.test("parseGrantFlags() keeps defaults for kinds without a flag; bare flags mean all", async () => {
  await using ws = await createTempWorkspace({ "src/a.ts": "" });
  const r = parseGrantFlags({ "allow-write": ["src"], "allow-net": true }, { cwd: ws.dir });
  assert.ok(r.ok);
  assert.deepEqual(r.grants.read, [ws.dir]);
  assert.deepEqual(r.grants.write, [ws.path("src")]);
  assert.equal(r.grants.net, true);
  assert.deepEqual(r.grants.run, []);
  assert.equal(r.grants.explicit.run, false);
});

Deno.test("parseGrantFlags() grants a new file in an existing directory; a missing directory is a UsageError", async () => {
  await using ws = await createTempWorkspace();
  const file = parseGrantFlags({ "allow-write": [".,out/../new.txt"] }, { cwd: ws.dir });
  assert.ok(file.ok);
  assert.deepEqual(file.grants.write, [ws.dir, ws.path("new.txt")]);
  const r = parseGrantFlags({ "allow-write": ["src2/a.txt"] }, { cwd: ws.dir });
  assert.ok(!r.ok);
  assert.ok(r.error instanceof UsageError);
  assert.equal(
    r.error.message,
    `Granted path "src2/a.txt" (--allow-write) does not exist, nor does its directory: create ` +
      `it first or fix the flag (looked for "${ws.path("src2/a.txt")}")`,
  );
});

Deno.test("parseGrantFlags() expands ~ and ~/… with HOME in every path value, and says when HOME is unset", async () => {
  await using home = await createTempWorkspace({ "notes/a.md": "", "secret/k": "" });
  await using ws = await createTempWorkspace();
  const r = parseGrantFlags(
    { "allow-read": [".,~/notes"], "allow-write": ["~"], "deny-read": ["~/secret"] },
    { cwd: ws.dir, home: home.dir },
  );
  assert.ok(r.ok, r.ok ? "" : r.error.message);
  assert.deepEqual(r.grants.read, [ws.dir, home.path("notes")]);
  assert.deepEqual(r.grants.write, [home.dir]);
  assert.deepEqual(r.grants.denyRead, [home.path("secret")]);
  const unset = parseGrantFlags({ "allow-read": ["~/notes"] }, { cwd: ws.dir });
  assert.ok(!unset.ok);
  assert.match(unset.error.message, /starts with "~", but HOME is not set/);
});

Deno.test("parseGrantFlags() rejects empty list items and deny flags without a value", async () => {
  await using ws = await createTempWorkspace();
  const a = parseGrantFlags({ "allow-read": [".,,"] }, { cwd: ws.dir });
  assert.ok(!a.ok);
  assert.equal(
    a.error.message,
    'Empty item in "--allow-read=.,,": separate items with single commas',
  );
  const b = parseGrantFlags({ "deny-read": true }, { cwd: ws.dir });
  assert.ok(!b.ok);
  assert.match(b.error.message, /^Missing value for "--deny-read": list what to deny/);
});

Deno.test("parseGrantFlags() refuses an empty list value instead of granting everything", async () => {
  await using ws = await createTempWorkspace();
  // e.g. `--allow-write=$UNSET_VAR`: the shell leaves an empty value, which must not mean "all".
  for (
    const flag of ["allow-read", "allow-write", "allow-run", "allow-net", "allow-env"] as const
  ) {
    for (const value of [[""], [" "], [".", ""]]) {
      const r = parseGrantFlags({ [flag]: value }, { cwd: ws.dir });
      assert.ok(!r.ok, `--${flag}=${JSON.stringify(value)} must be refused`);
      assert.ok(r.error instanceof UsageError);
      assert.ok(r.error.message.startsWith(`Empty value in "--${flag}="`), r.error.message);
      assert.ok(r.error.message.includes(`the bare flag "--${flag}"`), r.error.message);
    }
  }
  const d = parseGrantFlags({ "deny-write": [""] }, { cwd: ws.dir });
  assert.ok(!d.ok);
  assert.match(d.error.message, /^Missing value for "--deny-write"/);
  // The bare flag still means everything.
  const bare = parseGrantFlags({ "allow-write": true }, { cwd: ws.dir });
  assert.ok(bare.ok);
  assert.equal(bare.grants.write, true);
});

Deno.test("parseGrantFlags() -A grants everything; a denied path that does not exist is denied by name", async () => {
  await using ws = await createTempWorkspace({ "secret/k": "x" });
  await Deno.symlink(ws.path("secret"), ws.path("alias"));
  const r = parseGrantFlags({ "allow-all": true, "deny-read": ["secret,alias"] }, {
    cwd: ws.dir,
  });
  assert.ok(r.ok);
  assert.equal(r.grants.allowAll, true);
  assert.equal(r.grants.read, true);
  assert.equal(r.grants.env, true);
  assert.deepEqual(r.grants.denyRead, [ws.path("secret")]);
  assert.match(formatGrants(r.grants), /all permissions \(-A\) · deny-read:/);
  for (const flag of ["deny-read", "deny-write"] as const) {
    // A deny list shared across repositories: the missing entries are kept (through the real
    // path of their nearest existing directory), silently.
    const missing = parseGrantFlags({ [flag]: [".env,alias/later/x,generated"] }, { cwd: ws.dir });
    assert.ok(missing.ok);
    assert.deepEqual(missing.grants[flag === "deny-read" ? "denyRead" : "denyWrite"], [
      ws.path(".env"),
      ws.path("secret/later/x"),
      ws.path("generated"),
    ]);
    assert.deepEqual(missing.notes, []);
  }
});

Deno.test("parseGrantFlags() refuses a granted path that looks mistyped, naming the exact flag to use", async () => {
  await using ws = await createTempWorkspace({ "src/a.ts": "", "tests/b.ts": "", "Docs/c": "" });
  const paths = createDenoScanOps();
  const typo = parseGrantFlags({ "allow-write": ["tests,srcc"] }, { cwd: ws.dir, paths });
  assert.ok(!typo.ok);
  assert.equal(
    typo.error.message,
    `Granted path "srcc" (--allow-write) does not exist: did you mean "src"? Use ` +
      `--allow-write=tests,src, or create "${ws.path("srcc")}" first to grant a new file of ` +
      "that name",
  );
  const cased = parseGrantFlags({ "allow-read": ["./docs"] }, { cwd: ws.dir, paths });
  assert.ok(!cased.ok);
  assert.match(cased.error.message, /did you mean "Docs"\? Use --allow-read=Docs,/);
  // Not close to anything: a new file, said once however often the flag names it.
  const fresh = parseGrantFlags({ "allow-write": ["notes.md"] }, { cwd: ws.dir, paths });
  assert.ok(fresh.ok);
  assert.deepEqual(fresh.grants.write, [ws.path("notes.md")]);
  assert.deepEqual(fresh.notes, [
    `moat: --allow-write=notes.md grants a file that does not exist yet: "${ws.path("notes.md")}"`,
  ]);
});

Deno.test("toolEnvironment() passes the safe list and additions, never the secrets", () => {
  const source = {
    PATH: "/usr/bin",
    HOME: "/home/u",
    LC_ALL: "C",
    OPENAI_API_KEY: "sk-1",
    MY_KEY: "k",
    FOO: "foo",
    AWS_REGION: "eu",
    LD_PRELOAD: "/x.so",
  };
  const secrets = ["OPENAI_API_KEY", "MY_KEY"];
  const g = defaultGrants("/");
  assert.deepEqual(toolEnvironment(g, source, secrets), {
    PATH: "/usr/bin",
    HOME: "/home/u",
    LC_ALL: "C",
  });
  const withEnv = { ...g, env: ["FOO", "AWS_*", "MY_KEY"] };
  assert.deepEqual(Object.keys(toolEnvironment(withEnv, source, secrets)).sort(), [
    "AWS_REGION",
    "FOO",
    "HOME",
    "LC_ALL",
    "PATH",
  ]);
  const all = toolEnvironment({ ...g, env: true }, source, secrets);
  assert.equal(all["OPENAI_API_KEY"], undefined);
  assert.equal(all["MY_KEY"], undefined);
  assert.equal(all["FOO"], "foo");
});

Deno.test("widenGrants() adds one location without touching the original", () => {
  const g = defaultGrants("/");
  const w = widenGrants(g, { access: "write", path: "/etc/hosts" });
  assert.deepEqual(w.write, ["/", "/etc/hosts"]);
  assert.deepEqual(g.write, ["/"]);
  assert.deepEqual(widenGrants(g, { access: "run", program: "git" }).run, ["git"]);
  assert.equal(widenGrants({ ...g, net: true }, { access: "net", host: "x" }).net, true);
});

Deno.test("parseGrantFlags() usage errors follow the message convention", async () => {
  await using ws = await createTempWorkspace();
  const bad: Array<Parameters<typeof parseGrantFlags>[0]> = [
    { "allow-read": ["missing-dir/x"] },
    { "allow-write": [""] },
    { "allow-run": ["git,,deno"] },
    { "deny-write": true },
  ];
  for (const values of bad) {
    const r = parseGrantFlags(values, { cwd: ws.dir });
    assert.ok(!r.ok, JSON.stringify(values));
    // Sentence case, the offending value quoted, and what to do next after a colon.
    assert.match(r.error.message, /^[A-Z]/, r.error.message);
    assert.match(r.error.message, /"[^"]+"/, r.error.message);
    assert.match(r.error.message, /: [a-z]/, r.error.message);
  }
});

Deno.test("parseGrantFlags() records every --allow-write path as named, also next to -A or the bare flag", async () => {
  await using ws = await createTempWorkspace({ ".git/hooks/x": "", "src/a.ts": "" });
  const named = (values: Parameters<typeof parseGrantFlags>[0]) => {
    const r = parseGrantFlags(values, { cwd: ws.dir });
    assert.ok(r.ok, JSON.stringify(values));
    return [r.grants.write, r.grants.namedWrite];
  };
  assert.deepEqual(named({ "allow-write": [".,.git/hooks"] }), [
    [ws.dir, ws.path(".git/hooks")],
    [ws.dir, ws.path(".git/hooks")],
  ]);
  assert.deepEqual(named({ "allow-all": true, "allow-write": [".git/hooks"] }), [
    true,
    [ws.path(".git/hooks")],
  ]);
  assert.deepEqual(named({ "allow-write": [true, "src"] }), [true, [ws.path("src")]]);
  assert.deepEqual(named({}), [[ws.dir], []]);
  const missing = parseGrantFlags({ "allow-write": [true, "nope/x"] }, { cwd: ws.dir });
  assert.ok(!missing.ok && /Granted path "nope\/x"/.test(missing.error.message));
  // An approval widens the grants but never names a path.
  const g = { ...defaultGrants(ws.dir), namedWrite: [ws.path("src")] };
  const widened = widenGrants(g, { access: "write", path: ws.path(".git/hooks/x") });
  assert.deepEqual(widened.namedWrite, [ws.path("src")]);
});

Deno.test("parseGrantFlags() --deny-net keeps its hosts denied under -A and a bare --allow-net, shown in the summary", async () => {
  await using ws = await createTempWorkspace();
  for (const allow of [{ "allow-all": true }, { "allow-net": true }] as const) {
    const r = parseGrantFlags({ ...allow, "deny-net": ["example.com,10.0.0.1:8080"] }, {
      cwd: ws.dir,
    });
    assert.ok(r.ok);
    assert.deepEqual(r.grants.denyNet, ["example.com", "10.0.0.1:8080"]);
    assert.equal(r.grants.net, true);
    assert.match(formatGrants(r.grants), / · deny-net: example\.com, 10\.0\.0\.1:8080$/);
  }
  const bare = parseGrantFlags({ "deny-net": [true] }, { cwd: ws.dir });
  assert.ok(!bare.ok);
  assert.match(bare.error.message, /Missing value for "--deny-net"/);
  const url = parseGrantFlags({ "deny-net": ["https://example.com/x"] }, { cwd: ws.dir });
  assert.ok(!url.ok);
  assert.match(url.error.message, /Denied host "https:\/\/example\.com\/x" \(--deny-net\)/);
});

Deno.test("parseGrantFlags() --ignore-read holds real paths, missing ones by name; --ignore-env names", async () => {
  await using ws = await createTempWorkspace({ "secret/k": "x", ".env": "A=1\n" });
  await Deno.symlink(ws.path("secret"), ws.path("alias"));
  const r = parseGrantFlags({
    "allow-all": true,
    "ignore-read": [".env,alias,later/x"],
    "ignore-env": ["SECRET,AWS_*"],
  }, { cwd: ws.dir });
  assert.ok(r.ok);
  assert.deepEqual(r.grants.ignoreRead, [ws.path(".env"), ws.path("secret"), ws.path("later/x")]);
  assert.deepEqual(r.grants.ignoreEnv, ["SECRET", "AWS_*"]);
  assert.deepEqual(r.notes, []);
  assert.match(formatGrants(r.grants), /ignore-read: .*\.env.* · ignore-env: SECRET, AWS_\*/);
  assert.deepEqual(defaultGrants(ws.dir).ignoreRead, []);
  for (const flag of ["ignore-read", "ignore-env"] as const) {
    const bare = parseGrantFlags({ [flag]: true }, { cwd: ws.dir });
    assert.ok(!bare.ok);
    assert.match(
      bare.error.message,
      new RegExp(`^Missing value for "--${flag}": list what to hide`),
    );
  }
});

Deno.test("toolEnvironment() leaves out --ignore-env variables even under --allow-env and -A", () => {
  const source = { PATH: "/bin", SECRET: "s", AWS_KEY: "k", AWS: "a", CI: "1" };
  const ignoreEnv = ["SECRET", "AWS_*"];
  assert.deepEqual(toolEnvironment({ env: true, ignoreEnv }, source, []), {
    PATH: "/bin",
    AWS: "a",
    CI: "1",
  });
  assert.deepEqual(
    toolEnvironment({ env: ["SECRET", "AWS_KEY", "CI"], ignoreEnv }, source, []),
    { PATH: "/bin", CI: "1" },
  );
  // Even a variable of the safe list.
  assert.deepEqual(toolEnvironment({ env: [], ignoreEnv: ["PATH"] }, source, []), {});
});
