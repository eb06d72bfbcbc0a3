import assert from "node:assert/strict";
import { join } from "node:path";
import type { PermissionDecision } from "../../src/policy/check.ts";
import { RUN_LATER } from "../../src/policy/_run_later.ts";
import { defaultGrants, grantsOf } from "../support/grants.ts";
import {
  blockedReason,
  BWRAP,
  callTool,
  createLayout,
  GIT_IDENTITY,
  hostGit,
  type Layout,
  MODES,
  openSandbox,
  snapshot,
  textOf,
} from "./_helpers.ts";

/** A layout whose workspace is a git repository with one commit. */
async function gitLayout(): Promise<Layout> {
  const layout = await createLayout();
  await hostGit(layout.ws, "init", "-q");
  await hostGit(layout.ws, "add", "a.txt");
  await hostGit(layout.ws, "commit", "-qm", "first");
  return layout;
}

/** The files that decide what git runs: hooks, config and `.moat`, to compare before/after. */
async function guarded(ws: string): Promise<Record<string, string>> {
  // The bwrap view may leave an empty `.moat` (its read-only mount point): same as none.
  const moat = await snapshot(join(ws, ".moat")).catch((e) => {
    if (e instanceof Deno.errors.NotFound) return {};
    throw e;
  });
  return {
    ...await snapshot(join(ws, ".git", "hooks")),
    config: await Deno.readTextFile(join(ws, ".git", "config")),
    gitIsDir: String((await Deno.lstat(join(ws, ".git"))).isDirectory),
    moat: JSON.stringify(moat),
  };
}

function bashTest(name: string, fn: () => Promise<void>) {
  Deno.test({ name: `[bwrap] protected paths: ${name}`, ignore: !BWRAP, fn });
}

bashTest("bash cannot write hooks, git config or .moat, nor swap them away", async () => {
  const layout = await gitLayout();
  await using _ = layout.root;
  await hostGit(layout.ws, "config", "core.hooksPath", ".husky/_");
  await layout.root.write({ "ws/.husky/_/pre-commit": "husky\n" });
  const sb = await openSandbox(layout, "bwrap", defaultGrants(layout.ws));
  try {
    const state = async () => ({
      repo: await guarded(layout.ws),
      husky: await snapshot(join(layout.ws, ".husky")),
    });
    const before = await state();
    const attempts = [
      "echo x > .git/hooks/pre-commit",
      "git config core.hooksPath x",
      "git config alias.x '!id'",
      "git config core.fsmonitor 'touch /tmp/x'",
      "mkdir -p .moat && echo {} > .moat/config.json",
      "mv .git .git_old",
      "mv .git/hooks .git/hooks_old",
      "rm -rf .git/hooks",
      "rm -f .git/config",
      "ln -sfn /tmp .git/hooks",
      "ln -sf /tmp/evil .git/config",
      "cp .git/config c.tmp && echo '[alias] y = !id' >> c.tmp && mv -f c.tmp .git/config",
      "mv .git/config .git/config.old",
      "echo x > .husky/_/pre-commit",
      // Renaming a directory takes the read-only mounts inside along: it must not be possible.
      "mv .husky .husky_old && mkdir -p .husky/_ && echo evil > .husky/_/pre-commit",
      "mv .git/hooks/pre-commit.sample .git/hooks/pre-commit",
    ];
    for (const command of attempts) {
      const out = textOf(await callTool(sb, "bash", { command: `${command}; echo "rc=$?"` }));
      assert.doesNotMatch(out, /rc=0\b/, `${command} succeeded: ${out}`);
    }
    assert.deepEqual(await state(), before);
    await assert.rejects(Deno.lstat(join(layout.ws, ".git_old")), Deno.errors.NotFound);
    await assert.rejects(Deno.lstat(join(layout.ws, ".husky_old")), Deno.errors.NotFound);
    assert.equal(
      await hostGit(layout.ws, "config", "--get-regexp", "alias|fsmonitor").catch(() => ""),
      "",
    );
  } finally {
    await sb.close();
  }
});

bashTest("git add, commit, checkout -b and stash still work in the sandbox", async () => {
  const layout = await gitLayout();
  await using _ = layout.root;
  const sb = await openSandbox(layout, "bwrap", defaultGrants(layout.ws));
  try {
    const g = `git ${GIT_IDENTITY.join(" ")}`;
    const out = textOf(
      await callTool(sb, "bash", {
        command: `set -e; echo new > n.txt; ${g} add n.txt; ${g} commit -qm second; ` +
          `${g} checkout -q -b b2; echo more >> a.txt; ${g} stash -q; ` +
          `echo "branch=$(git rev-parse --abbrev-ref HEAD) stashes=$(git stash list | wc -l)"`,
      }),
    );
    assert.match(out, /branch=b2 stashes=1/, out);
    assert.equal((await hostGit(layout.ws, "log", "--format=%s", "main")).trim(), "second\nfirst");
  } finally {
    await sb.close();
  }
});

bashTest("--allow-write=.,.git/hooks lifts the hooks but not the config", async () => {
  const layout = await gitLayout();
  await using _ = layout.root;
  const grants = grantsOf(layout.ws, { "allow-write": [".,.git/hooks"] });
  const sb = await openSandbox(layout, "bwrap", grants);
  try {
    const hook = textOf(
      await callTool(sb, "bash", { command: `echo hook > .git/hooks/pre-commit; echo "rc=$?"` }),
    );
    assert.match(hook, /rc=0/, hook);
    assert.equal(await Deno.readTextFile(join(layout.ws, ".git/hooks/pre-commit")), "hook\n");
    const config = textOf(
      await callTool(sb, "bash", { command: `git config alias.x '!id'; echo "rc=$?"` }),
    );
    assert.doesNotMatch(config, /rc=0\b/, config);
    const write = await callTool(sb, "write", { path: ".git/hooks/post-commit", content: "x" });
    assert.ok("output" in write && !write.output.isError, textOf(write));
    assert.match(
      blockedReason(await callTool(sb, "write", { path: ".git/config", content: "" })),
      /is protected because it can make git run programs/,
    );
  } finally {
    await sb.close();
  }
});

bashTest("a carve-out of one hook file leaves the other hooks read-only", async () => {
  const layout = await gitLayout();
  await using _ = layout.root;
  await Deno.writeTextFile(join(layout.ws, ".git/hooks/pre-commit"), "old\n");
  const grants = grantsOf(layout.ws, { "allow-write": [".", ".git/hooks/pre-commit"] });
  const sb = await openSandbox(layout, "bwrap", grants);
  try {
    const out = textOf(
      await callTool(sb, "bash", {
        command: `echo new > .git/hooks/pre-commit; echo "a=$?"; ` +
          `echo new > .git/hooks/post-commit; echo "b=$?"`,
      }),
    );
    assert.match(out, /a=0/, out);
    assert.doesNotMatch(out, /b=0\b/, out);
    assert.equal(await Deno.readTextFile(join(layout.ws, ".git/hooks/pre-commit")), "new\n");
    await assert.rejects(Deno.lstat(join(layout.ws, ".git/hooks/post-commit")));
  } finally {
    await sb.close();
  }
});

bashTest("with -A the global git config and moat's user config stay read-only", async () => {
  const layout = await gitLayout();
  await using _ = layout.root;
  const home = layout.root.path("home");
  await layout.root.write({
    "home/.gitconfig": "[user]\n\tname = me\n",
    "home/.config/moat/config.json": "{}\n",
  });
  const sb = await openSandbox(layout, "bwrap", grantsOf(layout.ws, { "allow-all": true }), {
    env: { PATH: "/usr/local/bin:/usr/bin:/bin", HOME: home, LANG: "C.UTF-8" },
  });
  try {
    const before = { home: await snapshot(home), repo: await guarded(layout.ws) };
    for (
      const command of [
        "echo '[alias] x = !id' >> ~/.gitconfig",
        "git config --global core.hooksPath /tmp",
        'echo {\\"baseUrl\\":1} > ~/.config/moat/config.json',
        "echo x > .git/hooks/pre-commit",
      ]
    ) {
      const out = textOf(await callTool(sb, "bash", { command: `${command}; echo "rc=$?"` }));
      assert.doesNotMatch(out, /rc=0\b/, `${command}: ${out}`);
    }
    assert.deepEqual({ home: await snapshot(home), repo: await guarded(layout.ws) }, before);
    const reason = blockedReason(
      await callTool(sb, "write", { path: join(home, ".gitconfig"), content: "" }),
    );
    assert.equal(
      reason,
      `write access to "${home}/.gitconfig" is denied: "${home}/.gitconfig" is protected ` +
        "because it is a global git configuration, which can make git run programs; to allow " +
        `it, add it to --allow-write (e.g. -A --allow-write=${home}/.gitconfig)`,
    );
  } finally {
    await sb.close();
  }
});

bashTest('an "always" approval restarts the host without lifting any protection', async () => {
  const layout = await gitLayout();
  await using _ = layout.root;
  const questions: string[] = [];
  const sb = await openSandbox(layout, "bwrap", defaultGrants(layout.ws), {
    prompter: {
      ask: (r) => {
        questions.push(r.question);
        return Promise.resolve("always");
      },
    },
  });
  try {
    const before = await guarded(layout.ws);
    const outside = `${layout.outside}/secret.txt`;
    assert.ok(!textOf(await callTool(sb, "read", { path: outside })).startsWith("BLOCKED"));
    assert.equal(questions.length, 1);
    const hook = await callTool(sb, "write", { path: ".git/hooks/pre-commit", content: "x" });
    assert.match(blockedReason(hook), /"[^"]+\/\.git\/hooks" is protected/);
    assert.equal(questions.length, 1, "a protected path is never asked about");
    const out = textOf(
      await callTool(sb, "bash", { command: `echo x > .git/hooks/pre-commit; echo "rc=$?"` }),
    );
    assert.doesNotMatch(out, /rc=0\b/, out);
    const gitAndMoat = sb.protection.paths.filter((p) => !RUN_LATER.some((e) => e.why === p.why));
    assert.deepEqual(gitAndMoat.map((p) => p.path), [
      `${layout.ws}/.git/config`,
      `${layout.ws}/.git/hooks`,
      `${layout.ws}/.moat`,
    ]);
    assert.deepEqual(await guarded(layout.ws), before);
  } finally {
    await sb.close();
  }
});

bashTest("a protected directory that became a symlink stops the next tool host", async () => {
  const layout = await gitLayout();
  await using _ = layout.root;
  const sb = await openSandbox(layout, "bwrap", defaultGrants(layout.ws), {
    prompter: { ask: () => Promise.resolve("always") },
  });
  try {
    // The first host is up (its mounts are made) before the swap.
    assert.match(textOf(await callTool(sb, "read", { path: "a.txt" })), /hello/);
    const hooks = join(layout.ws, ".git/hooks");
    await Deno.rename(hooks, join(layout.ws, ".git/hooks.real"));
    await Deno.symlink(layout.outside, hooks);
    const before = await snapshot(layout.outside);
    // An "always" approval restarts the tool host, which re-reads the protected paths.
    const read = textOf(await callTool(sb, "read", { path: `${layout.outside}/secret.txt` }));
    const expected = `the protected path "${hooks}" changed since the start (it is now a ` +
      `symlink to "${layout.outside}")`;
    assert.ok(read.includes(expected), read);
    const bash = textOf(
      await callTool(sb, "bash", { command: "echo x > .git/hooks/pwn; echo done" }),
    );
    assert.ok(bash.includes(expected), bash);
    assert.deepEqual(await snapshot(layout.outside), before);
  } finally {
    await sb.close();
  }
});

for (const mode of MODES) {
  Deno.test(`[${mode}] protected paths: write and edit are denied, by the policy and by the Worker`, async () => {
    const layout = await gitLayout();
    await using _ = layout.root;
    const decisions: PermissionDecision[] = [];
    const sb = await openSandbox(layout, mode, defaultGrants(layout.ws), {
      onDecision: (d) => decisions.push(d),
    });
    try {
      const ws = layout.ws;
      const before = await guarded(ws);
      const reason = (target: string, protectedPath: string, why: string, flag: string) =>
        `write access to "${ws}/${target}" is denied: "${ws}/${protectedPath}" is protected ` +
        `because ${why}; to allow it, add it to --allow-write (e.g. --allow-write=.,${flag})`;
      const cases: Array<[string, Record<string, unknown>, string]> = [
        [
          "write",
          { path: ".git/hooks/pre-commit", content: "x" },
          reason(
            ".git/hooks/pre-commit",
            ".git/hooks",
            "git runs it outside the sandbox",
            ".git/hooks",
          ),
        ],
        [
          "edit",
          {
            path: ".git/config",
            edits: [{ oldText: "[core]", newText: "[alias]\n\tx = !id\n[core]" }],
          },
          reason(".git/config", ".git/config", "it can make git run programs", ".git/config"),
        ],
        [
          "write",
          { path: ".moat/config.json", content: "{}" },
          reason(".moat/config.json", ".moat", "it holds moat's own project settings", ".moat"),
        ],
      ];
      for (const [name, args, expected] of cases) {
        assert.equal(blockedReason(await callTool(sb, name, args)), expected, name);
        // Layer 2 on its own (the policy replaced by allow-all) refuses too.
        const direct = textOf(await callTool(sb, name, args, { policy: false }));
        assert.match(direct, /is protected because/, direct);
      }
      assert.deepEqual(
        decisions.filter((d) => d.outcome === "denied").map((d) => [d.access, d.by]),
        [["write", "protected"], ["write", "protected"], ["write", "protected"]],
      );
      assert.deepEqual(await guarded(ws), before);
      // A repository created during the run is protected by its shape.
      await hostGit(ws, "init", "-q", "sub");
      const late = { path: "sub/.git/hooks/pre-push", content: "x" };
      assert.match(blockedReason(await callTool(sb, "write", late)), /sub\/\.git\/hooks" is/);
      assert.match(textOf(await callTool(sb, "write", late, { policy: false })), /is protected/);
      await assert.rejects(Deno.lstat(join(ws, "sub/.git/hooks/pre-push")));
      // Everything else in .git stays writable for the tools.
      const ok = await callTool(sb, "write", { path: ".git/info/exclude", content: "*.log\n" });
      assert.ok("output" in ok && !ok.output.isError, textOf(ok));
    } finally {
      await sb.close();
    }
  });
}
