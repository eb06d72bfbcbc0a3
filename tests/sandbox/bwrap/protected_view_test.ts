import assert from "node:assert/strict";
import { defaultGrants, type Grants } from "../../support/grants.ts";
import { computeProtection, type Protection } from "../../../src/policy/protected.ts";
import { RUN_LATER } from "../../../src/policy/_run_later.ts";
import { buildHostArgs, viewMountTargets } from "../../../src/sandbox/bwrap/view.ts";
import { protectedViewProblem } from "../../../src/sandbox/bwrap/protected_view.ts";
import { createDenoScanOps } from "../../../src/sys/paths.ts";
import { createTempWorkspace } from "../../support/workspace.ts";

const ops = createDenoScanOps();

/** A git directory as `git init` leaves it (HEAD, config, hooks/). */
function gitDir(prefix: string, config = "[core]\n\tbare = false\n"): Record<string, string> {
  return {
    [`${prefix}/HEAD`]: "ref: refs/heads/main\n",
    [`${prefix}/config`]: config,
    [`${prefix}/hooks/pre-commit.sample`]: "#!/bin/sh\n",
  };
}

function compute(grants: Grants, workspace: string) {
  return computeProtection(grants, { workspace, env: { HOME: "/nonexistent" }, ops });
}

Deno.test("protectedViewProblem() refuses a protected path that became a symlink or changed kind", async () => {
  await using root = await createTempWorkspace({ ...gitDir("ws/.git"), "elsewhere/x": "" });
  const ws = root.path("ws");
  const { protection } = compute(defaultGrants(ws), ws);
  assert.equal(protectedViewProblem(protection, ops), undefined);
  await Deno.mkdir(root.path("ws/.moat"));
  assert.equal(protectedViewProblem(protection, ops), undefined, "a missing dir that appeared");
  const hooks = root.path("ws/.git/hooks");
  await Deno.rename(hooks, `${hooks}.old`);
  await Deno.symlink(root.path("elsewhere"), hooks);
  assert.equal(
    protectedViewProblem(protection, ops),
    `Cannot start the tool host: the protected path "${hooks}" changed since the start (it is ` +
      `now a symlink to "${root.path("elsewhere")}"), and mounting it could expose another ` +
      "location; restore it, or restart moat to protect what it is now",
  );
  await Deno.remove(hooks);
  await Deno.rename(`${hooks}.old`, hooks);
  const config = root.path("ws/.git/config");
  await Deno.remove(config);
  await Deno.mkdir(config);
  assert.match(protectedViewProblem(protection, ops) ?? "", /was a file and is now a directory/);
});

/** The mount pairs of the host view for `grants` in workspace `cwd`. */
function viewMounts(grants: Grants, cwd: string, protection: Protection): string[] {
  return mounts(buildHostArgs({
    bwrapPath: "/usr/bin/bwrap",
    grants,
    cwd,
    env: {},
    command: ["/opt/moat"],
    paths: ops,
    protection,
  }));
}

/** `--flag a [b]` pairs of a bwrap argv, in order. */
function mounts(args: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === "--ro-bind" || a === "--bind") out.push(`${a} ${args[i + 1]}`), i += 2;
    else if (a === "--tmpfs" || a === "--remount-ro") out.push(`${a} ${args[i + 1]}`), i += 1;
    else if (a === "--") break;
  }
  return out;
}

Deno.test("buildHostArgs() mounts protected paths read-only after the grants, then carve-outs", async () => {
  await using root = await createTempWorkspace({ ...gitDir("ws/.git"), "ws/locked": "" });
  const ws = root.path("ws");
  const grants: Grants = {
    ...defaultGrants(ws),
    write: [ws],
    namedWrite: [root.path("ws/.git/hooks")],
    denyWrite: [root.path("ws/locked")],
  };
  const { protection } = compute(grants, ws);
  const args = viewMounts(grants, ws, protection);
  const at = (m: string) => {
    const i = args.indexOf(m);
    assert.ok(i >= 0, `${m} missing in\n${args.join("\n")}`);
    return i;
  };
  const order = [
    `--bind ${ws}`,
    `--bind ${ws}/.git`,
    `--ro-bind ${ws}/.git/config`,
    `--ro-bind ${ws}/.git/hooks`,
    `--bind ${ws}/.git/hooks`,
  ].map(at);
  assert.deepEqual(order, [...order].sort((a, b) => a - b), args.join("\n"));
  // Deny lists are placed with the protected paths, shallow first, after the grants.
  assert.ok(at(`--ro-bind ${ws}/locked`) > at(`--bind ${ws}`));
  // The missing .moat needs a placeholder (the sandbox makes it): no mount bwrap would create.
  const spec = {
    bwrapPath: "/usr/bin/bwrap",
    grants,
    cwd: ws,
    env: {},
    command: ["/opt/moat"],
    paths: ops,
    protection,
  };
  // So do the missing run-later entries (other programs' files), a file's name among them: as
  // directories, which git does not commit.
  const missing = [".moat", ...RUN_LATER.map((e) => e.name)];
  // The existing protected and denied entries are targets too (held if another run's
  // placeholder); the carved-out hooks directory is not.
  const existing = [
    { path: `${ws}/.git/config`, kind: "file", exists: true },
    { path: `${ws}/locked`, kind: "file", exists: true },
  ];
  assert.deepEqual(
    viewMountTargets(spec).sort((a, b) => a.path.localeCompare(b.path)),
    [
      ...missing.map((name) => ({ path: `${ws}/${name}`, kind: "dir", exists: false })),
      ...existing,
    ].sort((a, b) => a.path.localeCompare(b.path)),
  );
  assert.ok(!args.some((m) => m.includes(".moat")), args.join("\n"));
  await Deno.mkdir(`${ws}/.moat`);
  assert.ok(mounts(buildHostArgs(spec)).includes(`--ro-bind ${ws}/.moat`));
  await Deno.remove(`${ws}/.moat`);
  // Read-only grants need nothing: the same paths are not mounted again.
  const readOnly: Grants = { ...grants, write: [] };
  const ro = viewMounts(readOnly, ws, protection);
  assert.ok(!ro.some((m) => m.includes("/.git") || m.includes(".moat")), ro.join("\n"));
});

Deno.test("buildHostArgs() binds each directory above a protected path onto itself, unless read-only", async () => {
  await using root = await createTempWorkspace({
    ...gitDir(
      "ws/.git",
      "[core]\n\thooksPath = tools/git/hooks\n\thooksPath = .moat/a/b\n\thooksPath = .moat/new\n",
    ),
    "ws/tools/git/hooks/pre-commit": "",
    "ws/.moat/a/b/x": "",
  });
  const ws = root.path("ws");
  const grants = defaultGrants(ws);
  const { protection } = compute(grants, ws);
  const args = viewMounts(grants, ws, protection);
  const at = (m: string) => args.indexOf(m);
  // A directory holding a read-only mount could be renamed away, mounts and all.
  assert.ok(at(`--bind ${ws}/tools`) > at(`--bind ${ws}`), args.join("\n"));
  assert.ok(at(`--bind ${ws}/tools/git`) > at(`--bind ${ws}/tools`), args.join("\n"));
  assert.ok(at(`--ro-bind ${ws}/tools/git/hooks`) > at(`--bind ${ws}/tools/git`));
  assert.ok(at(`--ro-bind ${ws}/.moat/a/b`) > at(`--ro-bind ${ws}/.moat`));
  assert.equal(at(`--bind ${ws}/.moat/a`), -1, "inside .moat everything stays read-only");
  assert.equal(at(`--tmpfs ${ws}/.moat/new`), -1, "nothing can be created inside .moat");
});

Deno.test("buildHostArgs() mounts existing run-later entries read-only; a carved-out one needs no placeholder", async () => {
  await using root = await createTempWorkspace({
    ...gitDir("ws/.git"),
    "ws/.vscode/tasks.json": "{}",
    "ws/.envrc": "",
  });
  const ws = root.path("ws");
  const grants: Grants = {
    ...defaultGrants(ws),
    write: [ws, `${ws}/.claude`],
    namedWrite: [`${ws}/.claude`],
  };
  const spec = {
    bwrapPath: "/usr/bin/bwrap",
    grants,
    cwd: ws,
    env: {},
    command: ["/opt/moat"],
    paths: ops,
    protection: compute(grants, ws).protection,
  };
  const args = mounts(buildHostArgs(spec));
  for (const path of [`${ws}/.vscode`, `${ws}/.envrc`]) {
    assert.ok(args.indexOf(`--ro-bind ${path}`) > args.indexOf(`--bind ${ws}`), args.join("\n"));
  }
  const targets = viewMountTargets(spec);
  const target = (name: string) => targets.find((t) => t.path === `${ws}/${name}`);
  assert.deepEqual(target(".idea"), { path: `${ws}/.idea`, kind: "dir", exists: false });
  // Existing ones need no placeholder: held only if one is another run's; the carve-out not.
  assert.deepEqual(target(".vscode"), { path: `${ws}/.vscode`, kind: "dir", exists: true });
  assert.deepEqual(target(".envrc"), { path: `${ws}/.envrc`, kind: "file", exists: true });
  assert.equal(target(".claude"), undefined);
});

Deno.test("the rewind checkpoints are never in the view: absent by default, read-only under a write grant of HOME", async () => {
  await using root = await createTempWorkspace({
    "home/.local/state/moat/sessions/x.rewind/git/HEAD": "",
  });
  const home = root.path("home");
  const ws = root.path("home/ws");
  await Deno.mkdir(ws);
  const state = root.path("home/.local/state/moat");
  const view = (grants: Grants) =>
    viewMounts(
      grants,
      ws,
      computeProtection(grants, { workspace: ws, env: { HOME: home }, ops }).protection,
    );
  const byDefault = view(defaultGrants(ws));
  assert.ok(!byDefault.some((m) => m.includes("/.local/state")), byDefault.join("\n"));
  // Writing all of HOME granted: the state directory stays read-only, after the grant.
  const wide = view({ ...defaultGrants(ws), read: [home], write: [home] });
  assert.ok(wide.indexOf(`--ro-bind ${state}`) > wide.indexOf(`--bind ${home}`), wide.join("\n"));
});
