import assert from "node:assert/strict";
import { defaultGrants, type Grants } from "../../support/grants.ts";
import { bashViewArgs, buildHostArgs, nestedBashPrefix } from "../../../src/sandbox/bwrap/view.ts";
import { createDenoPathOps } from "../../../src/sys/paths.ts";
import { createTempWorkspace } from "../../support/workspace.ts";

function spec(grants: Grants, extra: Partial<Parameters<typeof buildHostArgs>[0]> = {}) {
  return {
    bwrapPath: "/usr/bin/bwrap",
    grants,
    cwd: "/w",
    env: { PATH: "/usr/bin:/bin", HOME: "/home/u" },
    command: ["/opt/moat", "__tool-host"],
    paths: createDenoPathOps(),
    ...extra,
  };
}

/** Pairs `--flag a b` in argv, in order. */
function binds(args: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === "--ro-bind" || a === "--bind") out.push(`${a} ${args[i + 1]}`), i += 2;
    else if (a === "--tmpfs" || a === "--remount-ro") out.push(`${a} ${args[i + 1]}`), i += 1;
    else if (a === "--") break;
  }
  return out;
}

Deno.test("buildHostArgs() isolates the host: namespaces, clearenv, private /tmp, net off", async () => {
  await using ws = await createTempWorkspace();
  const args = buildHostArgs(spec(defaultGrants(ws.dir), { cwd: ws.dir }));
  for (
    const flag of [
      "--unshare-pid",
      "--unshare-ipc",
      "--unshare-uts",
      "--unshare-net",
      "--new-session",
      "--die-with-parent",
      "--clearenv",
    ]
  ) assert.ok(args.includes(flag), flag);
  const b = binds(args);
  assert.ok(b.includes("--tmpfs /tmp"));
  assert.ok(b.includes(`--bind ${ws.dir}`));
  assert.ok(b.includes("--ro-bind /usr"));
  assert.ok(b.includes("--ro-bind /etc"));
  assert.ok(!b.some((x) => x.includes("/root") || x.includes("/home")), "no $HOME");
  // the workspace comes after /tmp's tmpfs, or it would be hidden
  assert.ok(b.indexOf(`--bind ${ws.dir}`) > b.indexOf("--tmpfs /tmp"));
  const dashes = args.indexOf("--");
  assert.deepEqual(args.slice(dashes - 2), ["--chdir", ws.dir, "--", "/opt/moat", "__tool-host"]);
  assert.deepEqual(args.slice(args.indexOf("--clearenv") + 1, args.indexOf("--clearenv") + 7), [
    "--setenv",
    "PATH",
    "/usr/bin:/bin",
    "--setenv",
    "HOME",
    "/home/u",
  ]);
});

Deno.test("buildHostArgs() mounts read grants ro, write grants rw, nested by depth", async () => {
  await using ws = await createTempWorkspace({ "src/x": "", "docs/y": "" });
  const g: Grants = {
    ...defaultGrants(ws.dir),
    read: [ws.dir],
    write: [ws.path("src")],
    net: ["example.com"],
  };
  const b = binds(buildHostArgs(spec(g, { spillDir: ws.path("docs") })));
  assert.ok(b.indexOf(`--ro-bind ${ws.dir}`) < b.indexOf(`--bind ${ws.path("src")}`));
  assert.ok(b.includes(`--bind ${ws.path("docs")}`), "spill dir is writable");
  assert.ok(buildHostArgs(spec(g)).includes("--unshare-net"), "scoped net → own network");
  const all = buildHostArgs(spec({ ...g, net: true }));
  assert.ok(!all.includes("--unshare-net"), "bare --allow-net → shared network");
});

Deno.test("buildHostArgs() drops ro mounts covered by rw ones and never maps /proc or /dev", () => {
  const g: Grants = { ...defaultGrants("/"), read: ["/proc", "/usr/share"], write: ["/usr"] };
  const b = binds(buildHostArgs(spec(g)));
  assert.ok(b.includes("--bind /usr"));
  assert.ok(!b.includes("--ro-bind /usr"));
  assert.ok(!b.includes("--ro-bind /usr/share"));
  assert.ok(!b.some((x) => x.endsWith(" /proc")));
});

Deno.test("buildHostArgs() masks deny lists after the grants", async () => {
  await using ws = await createTempWorkspace({ "secret/k": "x", "ro.txt": "y", "f.txt": "z" });
  const g: Grants = {
    ...defaultGrants(ws.dir),
    denyRead: [ws.path("secret"), ws.path("f.txt")],
    denyWrite: [ws.path("ro.txt")],
  };
  const args = buildHostArgs(spec(g));
  const b = binds(args);
  const wsAt = b.indexOf(`--bind ${ws.dir}`);
  assert.ok(b.indexOf(`--tmpfs ${ws.path("secret")}`) > wsAt);
  assert.ok(b.indexOf(`--ro-bind ${ws.path("ro.txt")}`) > wsAt);
  const i = args.indexOf(ws.path("f.txt"));
  assert.deepEqual(args.slice(i - 2, i + 1), ["--ro-bind", "/dev/null", ws.path("f.txt")]);
});

Deno.test("buildHostArgs() under a scoped --allow-run masks PATH dirs but keeps bash and grants", async () => {
  await using ws = await createTempWorkspace();
  const g: Grants = {
    ...defaultGrants(ws.dir),
    run: ["git", "true"],
    explicit: { ...defaultGrants(ws.dir).explicit, run: true },
  };
  const b = binds(buildHostArgs(spec(g)));
  const mask = b.indexOf("--tmpfs /usr/bin");
  assert.ok(mask > b.indexOf("--ro-bind /usr"));
  assert.ok(b.indexOf("--ro-bind /usr/bin/bash") > mask);
  assert.ok(b.indexOf("--ro-bind /usr/bin/true") > mask);
  assert.ok(!b.includes("--ro-bind /usr/bin/env"));
  assert.ok(b.indexOf("--remount-ro /usr/bin") > b.indexOf("--ro-bind /usr/bin/bash"));
  const unscoped = binds(buildHostArgs(spec(defaultGrants(ws.dir))));
  assert.ok(!unscoped.includes("--tmpfs /usr/bin"), "default run: nothing masked");
});

Deno.test("nestedBashPrefix() gives each bash call its own pid namespace", () => {
  assert.deepEqual(nestedBashPrefix("/usr/bin/bwrap", ["/opt/deno"]), [
    "/usr/bin/bwrap",
    "--unshare-pid",
    "--die-with-parent",
    "--bind",
    "/",
    "/",
    "--dev-bind",
    "/dev",
    "/dev",
    "--proc",
    "/proc",
    "--ro-bind",
    "/dev/null",
    "/opt/deno",
    "--",
  ]);
});

Deno.test("buildHostArgs() with read/write of everything binds / and keeps the real /tmp", () => {
  const g: Grants = { ...defaultGrants("/"), read: true, write: true };
  const b = binds(buildHostArgs(spec(g, { cwd: "/tmp", spillDir: "/tmp" })));
  assert.equal(b[0], "--bind /");
  assert.ok(!b.includes("--tmpfs /tmp"), "a grant of / includes /tmp");
  assert.ok(!b.includes("--ro-bind /usr"), "covered by the rw root");
});

Deno.test("an approved path widens both views by exactly that path, never by an ancestor", async () => {
  await using root = await createTempWorkspace({ "ws/a.txt": "", "other/secret.txt": "" });
  const g = defaultGrants(root.path("ws"));
  const approved: Grants = {
    ...g,
    // A new file in an existing directory, and one whose first component does not exist.
    write: [...(g.write as string[]), root.path("other/new.txt"), "/moat-no-such-dir/report.md"],
  };
  for (const build of [buildHostArgs, bashViewArgs]) {
    const view = binds(build(spec(approved, { cwd: root.path("ws") })));
    assert.ok(!view.some((b) => b.includes(root.path("other"))), view.join("\n"));
    assert.ok(!view.includes("--bind /") && !view.includes("--ro-bind /"), view.join("\n"));
    assert.ok(!view.some((b) => b.includes("moat-no-such-dir")), view.join("\n"));
    assert.ok(view.includes(`--bind ${root.path("ws")}`));
  }
  // Once the file exists (moat creates an approved new file before the host starts), that one
  // file is mounted.
  await Deno.writeTextFile(root.path("other/new.txt"), "");
  for (const build of [buildHostArgs, bashViewArgs]) {
    const view = binds(build(spec(approved, { cwd: root.path("ws") })));
    assert.ok(view.includes(`--bind ${root.path("other/new.txt")}`), view.join("\n"));
    assert.ok(!view.includes(`--bind ${root.path("other")}`));
  }
});
