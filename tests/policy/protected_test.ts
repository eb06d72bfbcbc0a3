import assert from "node:assert/strict";
import { parseGitConfig } from "../../src/policy/_git_config.ts";
import { RUN_LATER } from "../../src/policy/_run_later.ts";
import { defaultGrants, type Grants } from "../support/grants.ts";
import {
  computeProtection,
  findProtection,
  protectedDetail,
  type ProtectedPath,
  type Protection,
} from "../../src/policy/protected.ts";
import { createDenoScanOps } from "../../src/sys/paths.ts";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.ts";

const ops = createDenoScanOps();

/** A git directory as `git init` leaves it (HEAD, config, hooks/). */
function gitDir(prefix: string, config = "[core]\n\tbare = false\n"): Record<string, string> {
  return {
    [`${prefix}/HEAD`]: "ref: refs/heads/main\n",
    [`${prefix}/config`]: config,
    [`${prefix}/hooks/pre-commit.sample`]: "#!/bin/sh\n",
  };
}

function compute(grants: Grants, workspace: string, env: Record<string, string> = {}) {
  return computeProtection(grants, { workspace, env: { HOME: "/nonexistent", ...env }, ops });
}

const RUN_LATER_WHYS = new Set(RUN_LATER.map((e) => e.why as string));

/**
 * `path why kind` lines, relative to `root`, for compact comparisons; without the run-later
 * entries (other programs' files at each root) unless `runLater`.
 */
function rows(root: TempWorkspace, paths: ProtectedPath[], runLater = false): string[] {
  return paths.filter((p) => runLater || !RUN_LATER_WHYS.has(p.why))
    .map((p) => `${p.path.replace(root.dir + "/", "")} ${p.why} ${p.kind}`);
}

Deno.test("parseGitConfig() reads sections, subsections, quotes, escapes, comments and continuations", () => {
  const text = [
    "# a comment",
    "[core]",
    '\thooksPath = "my hooks" ; trailing comment',
    "\tbare",
    "[Include]",
    "\tPATH = a.inc",
    '[includeIf "gitdir:~/Work/"] path = ~/work.inc',
    "[branch.Main]",
    "  remote = origin",
    "[alias]",
    '  x = "!echo \\"hi\\"" # comment',
    "  long = one \\",
    "two",
    "  sp =   a  b   ",
    "[broken",
    "  after = still read",
  ].join("\n");
  assert.deepEqual(
    parseGitConfig(text).map((e) => [e.section, e.subsection, e.key, e.value]),
    [
      ["core", undefined, "hookspath", "my hooks"],
      ["core", undefined, "bare", true],
      ["include", undefined, "path", "a.inc"],
      ["includeif", "gitdir:~/Work/", "path", "~/work.inc"],
      ["branch", "main", "remote", "origin"],
      ["alias", undefined, "x", '!echo "hi"'],
      ["alias", undefined, "long", "one two"],
      ["alias", undefined, "sp", "a  b"],
      ["alias", undefined, "after", "still read"],
    ],
  );
});

Deno.test("computeProtection() protects a repository's hooks, config and config.worktree, and .moat", async () => {
  await using root = await createTempWorkspace({
    ...gitDir("ws/.git"),
    "ws/.git/config.worktree": "",
    "ws/a.txt": "",
  });
  const ws = root.path("ws");
  const { protection, warnings } = compute(defaultGrants(ws), ws);
  assert.deepEqual(rows(root, protection.paths), [
    "ws/.git/config git_config file",
    "ws/.git/config.worktree git_config file",
    "ws/.git/hooks hooks dir",
    "ws/.moat moat_project missing_dir",
  ]);
  assert.deepEqual(protection.anchors, [root.path("ws/.git")]);
  assert.deepEqual(warnings, []);
  // From a subdirectory the repository is found by walking up, but lies outside the grant.
  await Deno.mkdir(root.path("ws/sub"));
  const sub = compute(defaultGrants(root.path("ws/sub")), root.path("ws/sub")).protection;
  assert.deepEqual(rows(root, sub.paths), ["ws/sub/.moat moat_project missing_dir"]);
  const both: Grants = { ...defaultGrants(root.path("ws/sub")), write: [ws] };
  assert.ok(
    rows(root, compute(both, root.path("ws/sub")).protection.paths)
      .includes("ws/.git/hooks hooks dir"),
  );
});

Deno.test("computeProtection() follows a .git file to its git dir and that dir's commondir", async () => {
  await using root = await createTempWorkspace({
    ...gitDir("main/.git"),
    "main/.git/worktrees/wt/HEAD": "ref: refs/heads/b\n",
    "main/.git/worktrees/wt/commondir": "../..\n",
    "main/.git/worktrees/wt/gitdir": "/elsewhere/wt/.git\n",
    "wt/.git": "gitdir: ../main/.git/worktrees/wt\n",
    "wt/x.txt": "",
  });
  const wt = root.path("wt");
  const grants: Grants = { ...defaultGrants(wt), write: [wt, root.path("main")] };
  const { protection } = compute(grants, wt);
  assert.deepEqual(rows(root, protection.paths), [
    "main/.git/config git_config file",
    "main/.git/hooks hooks dir",
    "main/.git/worktrees/wt/commondir git_file file",
    "wt/.git git_file file",
    "wt/.moat moat_project missing_dir",
  ]);
  assert.deepEqual(protection.anchors, [
    root.path("main/.git"),
    root.path("main/.git/worktrees/wt"),
  ]);
  // Only the worktree granted: the main repository is outside every write grant.
  const narrow = compute(defaultGrants(wt), wt).protection;
  assert.deepEqual(rows(root, narrow.paths), [
    "wt/.git git_file file",
    "wt/.moat moat_project missing_dir",
  ]);
  assert.deepEqual(narrow.anchors, []);
});

Deno.test("computeProtection() protects submodule git dirs under modules/, names with slashes too", async () => {
  await using root = await createTempWorkspace({
    ...gitDir("ws/.git"),
    ...gitDir("ws/.git/modules/lib"),
    ...gitDir("ws/.git/modules/lib/modules/inner"),
    "ws/.git/modules/deep/name/HEAD": "ref: refs/heads/main\n",
    "ws/.git/modules/deep/name/config": "",
    "ws/.git/modules/notgit/file": "",
  });
  const ws = root.path("ws");
  const { protection } = compute(defaultGrants(ws), ws);
  const got = rows(root, protection.paths);
  for (
    const expected of [
      "ws/.git/modules/lib/hooks hooks dir",
      "ws/.git/modules/lib/config git_config file",
      "ws/.git/modules/lib/modules/inner/hooks hooks dir",
      "ws/.git/modules/lib/modules/inner/config git_config file",
      "ws/.git/modules/deep/name/config git_config file",
      "ws/.git/modules/deep/name/hooks hooks missing_dir",
    ]
  ) assert.ok(got.includes(expected), `${expected} in\n${got.join("\n")}`);
  assert.ok(!got.some((r) => r.includes("notgit")), got.join("\n"));
  assert.ok(protection.anchors.includes(root.path("ws/.git/modules/deep/name")));
});

Deno.test("computeProtection() protects core.hooksPath (relative, absolute, ~) and included files", async () => {
  await using root = await createTempWorkspace({
    ...gitDir(
      "ws/.git",
      "[core]\n\thooksPath = .githooks\n[include]\n\tpath = extra.inc\n" +
        '[includeIf "gitdir:/nowhere/"]\n\tpath = ~/cond.inc\n',
    ),
    "ws/abs/hooks/x": "",
    "ws/h/cond.inc": "[core]\n\thooksPath = ~/hk\n",
  });
  const ws = root.path("ws");
  await Deno.writeTextFile(
    root.path("ws/.git/extra.inc"),
    `[core]\n\thooksPath = "${root.path("ws/abs/hooks")}"\n`,
  );
  const { protection } = compute(defaultGrants(ws), ws, { HOME: root.path("ws/h") });
  assert.deepEqual(rows(root, protection.paths), [
    "ws/.git/config git_config file",
    "ws/.git/extra.inc git_config file",
    "ws/.git/hooks hooks dir",
    "ws/.githooks hooks_path missing_dir",
    "ws/.moat moat_project missing_dir",
    "ws/abs/hooks hooks_path dir",
    // HOME inside the write grant: the global git config and moat's user config count too.
    "ws/h/.config/git/config git_global missing_file",
    "ws/h/.config/moat moat_user missing_dir",
    "ws/h/.gitconfig git_global missing_file",
    "ws/h/.local/state/moat moat_state missing_dir",
    "ws/h/cond.inc git_config file",
    "ws/h/hk hooks_path missing_dir",
  ]);
});

Deno.test("computeProtection() drops what lies outside the write grants and checks .git in each grant", async () => {
  await using root = await createTempWorkspace({
    ...gitDir("ws/.git"),
    ...gitDir("ws/src/.git"),
    "home/.gitconfig": "[core]\n\thooksPath = /x\n",
  });
  const ws = root.path("ws");
  const grants: Grants = { ...defaultGrants(ws), write: [root.path("ws/src")] };
  const { protection } = compute(grants, ws, { HOME: root.path("home") });
  assert.deepEqual(rows(root, protection.paths), [
    "ws/src/.git/config git_config file",
    "ws/src/.git/hooks hooks dir",
  ]);
  assert.deepEqual(protection.anchors, [root.path("ws/src/.git")]);
  // With -A (write everything) the global config and moat's user config are protected too.
  const all: Grants = { ...defaultGrants(ws), write: true, allowAll: true };
  const everything = rows(root, compute(all, ws, { HOME: root.path("home") }).protection.paths);
  assert.ok(everything.includes("home/.gitconfig git_global file"), everything.join("\n"));
  assert.ok(everything.includes("home/.config/moat moat_user missing_dir"));
  // The sessions and rewind checkpoints: the agent cannot rewrite its own checkpoints.
  assert.ok(everything.includes("home/.local/state/moat moat_state missing_dir"));
});

Deno.test("computeProtection() protects a symlinked hooks dir's target and warns about the link", async () => {
  await using root = await createTempWorkspace({
    "ws/.git/HEAD": "ref: refs/heads/main\n",
    "ws/.git/config": "",
    "ws/tools/hooks/pre-commit": "",
  });
  const ws = root.path("ws");
  await Deno.symlink("../tools/hooks", root.path("ws/.git/hooks"));
  const { protection, warnings } = compute(defaultGrants(ws), ws);
  assert.ok(rows(root, protection.paths).includes("ws/tools/hooks hooks dir"));
  assert.ok(!protection.paths.some((p) => p.path === root.path("ws/.git/hooks")));
  assert.deepEqual(warnings, [
    `Protected path "${root.path("ws/.git/hooks")}" is a symlink: moat keeps its target ` +
    "read-only but cannot protect the link itself, which bash may replace; replace the link " +
    "with the directory or file it points to",
  ]);
});

function protectionFor(ws: string, extra: Partial<Protection> = {}): Protection {
  return {
    workspace: ws,
    paths: [
      { path: `${ws}/.git/hooks`, why: "hooks", kind: "dir" },
      { path: `${ws}/.git/config`, why: "git_config", kind: "file" },
    ],
    anchors: [`${ws}/.git`],
    named: [],
    flags: { allowAll: false, write: [ws] },
    ...extra,
  };
}

Deno.test("findProtection() covers found paths and .git/hooks, .git/config, .moat anywhere", () => {
  const p = protectionFor("/w");
  const hit = (path: string) => findProtection(p, path);
  assert.deepEqual(hit("/w/.git/hooks/pre-commit"), { path: "/w/.git/hooks", why: "hooks" });
  assert.deepEqual(hit("/w/.git/config"), { path: "/w/.git/config", why: "git_config" });
  assert.deepEqual(hit("/w/sub/.git/hooks/x"), { path: "/w/sub/.git/hooks", why: "hooks" });
  assert.deepEqual(hit("/o/.git/config.worktree"), {
    path: "/o/.git/config.worktree",
    why: "git_config",
  });
  assert.deepEqual(hit("/w/.moat/config.json"), { path: "/w/.moat", why: "moat_project" });
  assert.deepEqual(hit("/w/.git/modules/a/b/hooks/x"), {
    path: "/w/.git/modules/a/b/hooks",
    why: "hooks",
  });
  assert.deepEqual(hit("/w/.git/modules/lib/config"), {
    path: "/w/.git/modules/lib/config",
    why: "git_config",
  });
  assert.equal(hit("/w/.git/modules/lib/refs/heads/hooks"), undefined, "a branch named hooks");
  for (const free of ["/w/.git/HEAD", "/w/.git/info/exclude", "/w/.gitignore", "/w/hooks/x"]) {
    assert.equal(hit(free), undefined, free);
  }
});

Deno.test("findProtection() lifts only what a named write grant is or is inside", () => {
  const hit = (named: string[], path: string) =>
    findProtection(protectionFor("/w", { named }), path)?.path;
  assert.equal(hit(["/w/.git/hooks"], "/w/.git/hooks/pre-commit"), undefined);
  assert.equal(hit(["/w/.git/hooks"], "/w/.git/config"), "/w/.git/config");
  assert.equal(hit(["/w/.git/hooks/pre-commit"], "/w/.git/hooks/pre-commit"), undefined);
  assert.equal(hit(["/w/.git/hooks/pre-commit"], "/w/.git/hooks/post-commit"), "/w/.git/hooks");
  assert.equal(hit(["/w/.git"], "/w/.git/hooks/x"), "/w/.git/hooks");
  assert.equal(hit(["/w"], "/w/.moat/config.json"), "/w/.moat");
  assert.equal(hit(["/w/.moat"], "/w/.moat/config.json"), undefined);
});

Deno.test("protectedDetail() names the path, the reason and a flag that keeps the write grants", () => {
  const detail = (flags: Protection["flags"], path = "/w/.git/hooks") =>
    protectedDetail(protectionFor("/w", { flags }), { path, why: "hooks" });
  assert.equal(
    detail({ allowAll: false, write: ["/w"] }),
    '"/w/.git/hooks" is protected because git runs it outside the sandbox; to allow it, add it ' +
      "to --allow-write (e.g. --allow-write=.,.git/hooks)",
  );
  assert.match(
    detail({ allowAll: false, write: ["/w/src", "/data"] }),
    /--allow-write=src,\/data,\.git\/hooks\)$/,
  );
  assert.match(
    detail({ allowAll: true, write: true }),
    /\(e\.g\. -A --allow-write=\.git\/hooks\)$/,
  );
  assert.match(detail({ allowAll: false, write: true }), /--allow-write=\/,\.git\/hooks\)$/);
  assert.match(
    detail({ allowAll: false, write: ["/w"] }, "/other/.git/hooks"),
    /--allow-write=\.,\/other\/\.git\/hooks\)$/,
  );
});

/** The rows of run-later entries. */
function runLaterOnly(list: string[]): string[] {
  return list.filter((r) => RUN_LATER_WHYS.has(r.split(" ")[1] ?? ""));
}

/** The run-later rows expected at `root` (relative): `kinds` for the entries that exist. */
function runLaterRows(root: string, kinds: Record<string, "file" | "dir"> = {}): string[] {
  return RUN_LATER.map((e) => `${root}/${e.name} ${e.why} ${kinds[e.name] ?? "missing_dir"}`);
}

Deno.test("computeProtection() protects other programs' run-later files at the workspace and at each work-tree root, existing or not", async () => {
  await using root = await createTempWorkspace({
    ...gitDir("repo/.git"),
    "repo/.vscode/tasks.json": "{}",
    "repo/.envrc": "export A=1\n",
    "repo/.gitmodules": "",
    "repo/pkg/.mcp.json": "{}",
    "repo/pkg/.claude/settings.json": "{}",
    ...gitDir("lib/.git"),
    "lib/opencode.json": "{}",
    "plain/x": "",
  });
  const repo = root.path("repo");
  const pkg = root.path("repo/pkg");
  const write = [repo, root.path("lib"), root.path("plain")];
  const { protection } = compute({ ...defaultGrants(pkg), write }, pkg);
  const sorted = (list: string[]) => [...list].sort((a, b) => a.localeCompare(b));
  // Missing entries, files among them, are all directories to be: bwrap's placeholder for each
  // is an empty directory, which git does not commit.
  assert.deepEqual(
    sorted(runLaterOnly(rows(root, protection.paths, true))),
    sorted([
      ...runLaterRows("lib", { "opencode.json": "file" }),
      ...runLaterRows("repo", { ".vscode": "dir", ".envrc": "file", ".gitmodules": "file" }),
      ...runLaterRows("repo/pkg", { ".mcp.json": "file", ".claude": "dir" }),
    ]),
  );
  // Only inside the write grants: with the workspace alone granted, the repository root is not.
  const narrow = compute(defaultGrants(pkg), pkg).protection;
  assert.deepEqual(
    sorted(runLaterOnly(rows(root, narrow.paths, true))),
    sorted(runLaterRows("repo/pkg", { ".mcp.json": "file", ".claude": "dir" })),
  );
  // A write and the reason it is refused, for each entry; `--allow-write=.,.vscode` lifts one.
  for (const entry of RUN_LATER) {
    const path = `${pkg}/${entry.name}`;
    const hit = findProtection(narrow, `${path}/x`) ?? { path: "", why: "hooks" as const };
    assert.deepEqual(hit, { path, why: entry.why }, entry.name);
    assert.equal(
      protectedDetail(narrow, hit),
      `"${path}" is protected because ${entry.sentence}; to allow it, add it to ` +
        `--allow-write (e.g. --allow-write=.,${entry.name})`,
    );
  }
  const carved = compute(
    { ...defaultGrants(pkg), write: [pkg, `${pkg}/.vscode`], namedWrite: [`${pkg}/.vscode`] },
    pkg,
  ).protection;
  assert.equal(findProtection(carved, `${pkg}/.vscode/settings.json`), undefined);
  assert.equal(findProtection(carved, `${pkg}/.vscode`), undefined);
  assert.deepEqual(findProtection(carved, `${pkg}/.envrc`), {
    path: `${pkg}/.envrc`,
    why: "direnv",
  });
  assert.equal(findProtection(carved, `${pkg}/src/.vscode/x`), undefined, "not a root");
});
