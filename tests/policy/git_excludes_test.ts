import assert from "node:assert/strict";
import {
  placeholderExcludes,
  readableIn,
  readUserGitExcludes,
  withGitExcludesFile,
} from "../../src/policy/git_excludes.ts";
import { createDenoScanOps } from "../../src/sys/paths.ts";
import { createTempWorkspace } from "../support/workspace.ts";

const ops = createDenoScanOps();

Deno.test("git excludes: git's default file under XDG_CONFIG_HOME, else ~/.config", async () => {
  await using t = await createTempWorkspace({
    "home/.config/git/ignore": "*.home\n",
    "xdg/git/ignore": "*.xdg\n",
    "ws/a.txt": "",
  });
  const env = { HOME: t.path("home"), GIT_CONFIG_SYSTEM: t.path("none") };
  const home = readUserGitExcludes(ops, env, t.path("ws"));
  assert.deepEqual(home, { path: t.path("home/.config/git/ignore"), text: "*.home\n" });
  const xdg = readUserGitExcludes(ops, { ...env, XDG_CONFIG_HOME: t.path("xdg") }, t.path("ws"));
  assert.deepEqual(xdg, { path: t.path("xdg/git/ignore"), text: "*.xdg\n" });
  assert.equal(readUserGitExcludes(ops, { GIT_CONFIG_NOSYSTEM: "1" }, t.path("ws")), undefined);
});

Deno.test("git excludes: the last core.excludesFile of system, global (includes followed), repository and command-line config", async () => {
  await using t = await createTempWorkspace({
    "system": "[core]\n\texcludesFile = /nonexistent/system\n",
    "home/.gitconfig": "[include]\n\tpath = more.inc\n",
    "home/more.inc": "[core]\n\texcludesfile = ~/global-ignores\n",
    "home/global-ignores": "*.global",
    "home/.config/git/ignore": "*.default\n",
    "ws/.git/HEAD": "ref: refs/heads/main\n",
    "ws/sub/a.txt": "",
    "ws/.repo-ignores": "*.repo\n",
    "env-ignores": "*.env\n",
  });
  const env = { HOME: t.path("home"), GIT_CONFIG_SYSTEM: t.path("system") };
  // The global value wins over the system one; relative to nothing but home here.
  assert.deepEqual(readUserGitExcludes(ops, env, t.path("ws/sub")), {
    path: t.path("home/global-ignores"),
    text: "*.global",
  });
  // GIT_CONFIG_GLOBAL replaces both global files: the system value, whose file is missing.
  const noGlobal = { ...env, GIT_CONFIG_GLOBAL: t.path("none") };
  assert.equal(readUserGitExcludes(ops, noGlobal, t.path("ws")), undefined);
  // The repository's own value wins, relative to its work tree.
  await Deno.writeTextFile(t.path("ws/.git/config"), "[core]\n\texcludesFile = .repo-ignores\n");
  assert.deepEqual(readUserGitExcludes(ops, env, t.path("ws/sub")), {
    path: t.path("ws/.repo-ignores"),
    text: "*.repo\n",
  });
  // A linked worktree's value is in its common directory's config.
  await Deno.mkdir(t.path("ws/.git/worktrees/wt"), { recursive: true });
  await Deno.writeTextFile(t.path("ws/.git/worktrees/wt/commondir"), "../..\n");
  await Deno.mkdir(t.path("wt"));
  await Deno.writeTextFile(t.path("wt/.git"), `gitdir: ${t.path("ws/.git/worktrees/wt")}\n`);
  await Deno.writeTextFile(t.path("wt/.repo-ignores"), "*.wt\n");
  assert.deepEqual(readUserGitExcludes(ops, env, t.path("wt")), {
    path: t.path("wt/.repo-ignores"),
    text: "*.wt\n",
  });
  // A command-line value (GIT_CONFIG_KEY_n) wins over every file.
  const cli = {
    ...env,
    GIT_CONFIG_COUNT: "2",
    GIT_CONFIG_KEY_0: "user.name",
    GIT_CONFIG_VALUE_0: "x",
    GIT_CONFIG_KEY_1: "core.excludesFile",
    GIT_CONFIG_VALUE_1: t.path("env-ignores"),
  };
  assert.deepEqual(readUserGitExcludes(ops, cli, t.path("ws")), {
    path: t.path("env-ignores"),
    text: "*.env\n",
  });
});

Deno.test("git excludes: one anchored pattern per placeholder, relative to its work tree, after the user's", async () => {
  await using t = await createTempWorkspace({
    "ws/.git/HEAD": "",
    "ws/nested/.git": "gitdir: ../.git/modules/nested\n",
    "ws/odd*[name]/x": "",
    "outside/x": "",
  });
  const ws = t.path("ws");
  const text = placeholderExcludes(ops, [
    { path: `${ws}/.vscode`, kind: "dir" },
    { path: `${ws}/.envrc`, kind: "file" },
    { path: `${ws}/nested/.vscode`, kind: "dir" },
    { path: `${ws}/odd*[name]/.claude`, kind: "dir" },
    { path: t.path("outside/.claude"), kind: "dir" },
  ], { path: "/x", text: "*.log" });
  assert.equal(
    text,
    "*.log\n# moat's placeholders for protected paths (removed after the run)\n" +
      "/.envrc\n/.vscode/\n/odd\\*\\[name\\]/.claude/\n",
  );
  assert.equal(
    placeholderExcludes(ops, [{ path: `${ws}/.moat`, kind: "dir" }], undefined),
    "# moat's placeholders for protected paths (removed after the run)\n/.moat/\n",
  );
});

Deno.test("git excludes: the file is appended to the GIT_CONFIG_COUNT entries already there", () => {
  assert.deepEqual(withGitExcludesFile({ PATH: "/bin" }, "/s/x"), {
    PATH: "/bin",
    GIT_CONFIG_COUNT: "1",
    GIT_CONFIG_KEY_0: "core.excludesFile",
    GIT_CONFIG_VALUE_0: "/s/x",
  });
  const env = { GIT_CONFIG_COUNT: "1", GIT_CONFIG_KEY_0: "a.b", GIT_CONFIG_VALUE_0: "c" };
  assert.deepEqual(withGitExcludesFile(env, "/s/x"), {
    ...env,
    GIT_CONFIG_COUNT: "2",
    GIT_CONFIG_KEY_1: "core.excludesFile",
    GIT_CONFIG_VALUE_1: "/s/x",
  });
});

Deno.test("git excludes: the user's file is copied only where the view shows it", () => {
  const grants = { read: ["/home/u", "/ws"], denyRead: ["/home/u/.secret"] };
  assert.equal(readableIn(grants, "/home/u/.config/git/ignore"), true);
  assert.equal(readableIn(grants, "/home/u/.secret/ignore"), false);
  assert.equal(readableIn(grants, "/etc/ignore"), false);
  assert.equal(readableIn({ read: true, denyRead: [] }, "/etc/ignore"), true);
});
