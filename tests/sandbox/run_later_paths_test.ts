/**
 * Other programs' run-later files (src/policy/_run_later.ts) in the sandbox: write, edit and bash
 * cannot create or change them, a carve-out lifts one, ordinary work is untouched, the tools do
 * not show the sandbox's placeholders, and none is left after the run.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { PermissionDecision } from "../../src/policy/check.ts";
import { RUN_LATER } from "../../src/policy/_run_later.ts";
import { defaultGrants, grantsOf } from "../support/grants.ts";
import { entryNames } from "../support/workspace.ts";
import {
  blockedReason,
  BWRAP,
  type CallOutcome,
  callTool,
  createLayout,
  GIT_IDENTITY,
  hostGit,
  type Layout,
  MODES,
  openSandbox,
  textOf,
} from "./_helpers.ts";

const GIT = [...GIT_IDENTITY, "-c", "init.defaultBranch=main"];
/** Entries that other programs read as files (the rest are directories). */
const FILES = new Set([".mcp.json", "opencode.json", "opencode.jsonc", ".envrc", ".gitmodules"]);

/** A git workspace with a real `.vscode/settings.json` and `.envrc`; the other entries missing. */
async function runLaterLayout(): Promise<Layout> {
  const layout = await createLayout({
    ".vscode/settings.json": '{"editor.tabSize": 2}\n',
    ".envrc": "export A=1\n",
    "src/main.ts": "export const x = 1;\n",
  });
  await hostGit(layout.ws, "init", "-q");
  await hostGit(layout.ws, "add", "a.txt", "src");
  await hostGit(layout.ws, "commit", "-qm", "first");
  return layout;
}

/** What each run-later entry is on the host: its files and their text, or "missing". */
async function entries(ws: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const { name } of RUN_LATER) {
    const path = join(ws, name);
    const info = await Deno.lstat(path).catch(() => undefined);
    if (info === undefined) out[name] = "missing";
    else if (info.isFile) out[name] = await Deno.readTextFile(path);
    else out[name] = JSON.stringify((await Array.fromAsync(Deno.readDir(path))).map((e) => e.name));
  }
  return out;
}

/** The tool's output text (the call must not have been blocked). */
function outputOf(outcome: CallOutcome): string {
  assert.ok("output" in outcome, textOf(outcome));
  return outcome.output.output;
}

/** The path a write to `name` targets: the file itself, or a file inside the directory. */
const target = (name: string) => FILES.has(name) ? name : `${name}/settings.json`;

for (const mode of MODES) {
  Deno.test(`[${mode}] run-later files: write and edit are refused with the flag that allows them, by the policy and by the Worker`, async () => {
    const layout = await runLaterLayout();
    await using _ = layout.root;
    const decisions: PermissionDecision[] = [];
    const sb = await openSandbox(layout, mode, defaultGrants(layout.ws), {
      onDecision: (d) => decisions.push(d),
    });
    try {
      const ws = layout.ws;
      const before = await entries(ws);
      for (const entry of RUN_LATER) {
        const file = target(entry.name);
        const expected = `write access to "${ws}/${file}" is denied: "${ws}/${entry.name}" is ` +
          `protected because ${entry.sentence}; to allow it, add it to --allow-write (e.g. ` +
          `--allow-write=.,${entry.name})`;
        const args = { path: file, content: "{}" };
        assert.equal(blockedReason(await callTool(sb, "write", args)), expected);
        const direct = textOf(await callTool(sb, "write", args, { policy: false }));
        assert.match(direct, /is protected because/, `${entry.name}: ${direct}`);
      }
      const edits: Array<[string, string]> = [
        [".vscode/settings.json", "2"],
        [".envrc", "A=1"],
      ];
      for (const [path, oldText] of edits) {
        const args = { path, edits: [{ oldText, newText: "evil" }] };
        assert.match(blockedReason(await callTool(sb, "edit", args)), /is protected because/);
        const direct = textOf(await callTool(sb, "edit", args, { policy: false }));
        assert.match(direct, /is protected because/, direct);
      }
      const denied = decisions.filter((d) => d.outcome === "denied");
      assert.equal(denied.length, RUN_LATER.length + edits.length);
      assert.ok(denied.every((d) => d.access === "write" && d.by === "protected"));
      assert.deepEqual(await entries(ws), before);
      // Ordinary work is untouched: src/, node_modules/, and the same names deeper down.
      for (const path of ["src/main.ts", "node_modules/x/index.js", "src/.vscode/settings.json"]) {
        const out = await callTool(sb, "write", { path, content: "ok\n" });
        assert.ok("output" in out && !out.output.isError, textOf(out));
        assert.equal(await Deno.readTextFile(join(ws, path)), "ok\n");
      }
    } finally {
      await sb.close();
    }
  });

  Deno.test(`[${mode}] run-later files: --allow-write=.,.vscode lifts .vscode and nothing else`, async () => {
    const layout = await runLaterLayout();
    await using _ = layout.root;
    await Deno.remove(join(layout.ws, ".vscode"), { recursive: true });
    const sb = await openSandbox(
      layout,
      mode,
      grantsOf(layout.ws, { "allow-write": [".,.vscode"] }),
    );
    try {
      const ok = await callTool(sb, "write", { path: ".vscode/tasks.json", content: "{}\n" });
      assert.ok("output" in ok && !ok.output.isError, textOf(ok));
      assert.equal(await Deno.readTextFile(join(layout.ws, ".vscode/tasks.json")), "{}\n");
      const claude = await callTool(sb, "write", { path: ".claude/settings.json", content: "{}" });
      assert.match(
        blockedReason(claude),
        /\.claude" is protected because .*\(e\.g\. --allow-write=\.,\.vscode,\.claude\)$/,
      );
      if (mode === "bwrap") {
        const out = textOf(
          await callTool(sb, "bash", {
            command: 'echo x > .vscode/launch.json; echo "a=$?"; ' +
              'mkdir -p .claude && echo x > .claude/settings.json; echo "b=$?"',
          }),
        );
        assert.match(out, /a=0/, out);
        assert.doesNotMatch(out, /b=0\b/, out);
      }
    } finally {
      await sb.close();
    }
    await assert.rejects(Deno.lstat(join(layout.ws, ".claude")), Deno.errors.NotFound);
  });
}

Deno.test({
  name:
    "[bwrap] run-later files: bash cannot create, change, remove or swap them; git commits no placeholder; none is left",
  ignore: !BWRAP,
  async fn() {
    const layout = await runLaterLayout();
    await using _ = layout.root;
    const ws = layout.ws;
    const sb = await openSandbox(layout, "bwrap", defaultGrants(ws));
    try {
      const before = await entries(ws);
      const attempts = RUN_LATER.flatMap(({ name }) =>
        FILES.has(name)
          ? [`echo x > ${name}`, `rm -rf ${name}`, `mv ${name} moved`]
          : [`mkdir -p ${name} && echo x > ${name}/settings.json`, `mv ${name} moved`]
      );
      attempts.push(
        "echo evil >> .vscode/settings.json",
        "rm -rf .vscode",
        "ln -sfn /tmp .claude",
        "ln -sf /tmp/x .mcp.json",
      );
      const command = attempts.map((c) => `( ${c} ) 2>/dev/null; echo "rc=$?"`).join("; ");
      const out = textOf(await callTool(sb, "bash", { command }));
      assert.equal(out.match(/rc=/g)?.length, attempts.length, out);
      assert.doesNotMatch(out, /rc=0\b/, out);
      assert.deepEqual(await entries(ws), {
        ...before,
        // The missing ones stand as empty read-only placeholder directories meanwhile.
        ...Object.fromEntries(
          Object.entries(before).filter(([, v]) => v === "missing").map(([k]) => [k, "[]"]),
        ),
      });
      await assert.rejects(Deno.lstat(join(ws, "moved")), Deno.errors.NotFound);
      // Ordinary work: git add -A and commit, src/ and node_modules/ writes.
      const g = `git ${GIT.join(" ")}`;
      const work = textOf(
        await callTool(sb, "bash", {
          command: `set -e; echo 'export const y = 2;' >> src/main.ts; mkdir -p node_modules/x; ` +
            `echo ok > node_modules/x/index.js; ${g} status --porcelain >/dev/null; ` +
            `${g} add -A; ${g} commit -qm second; echo committed`,
        }),
      );
      assert.match(work, /committed/, work);
    } finally {
      await sb.close();
    }
    // Committed: the real entries and the work, and no placeholder.
    const committed = (await hostGit(ws, "show", "--name-only", "--format=", "HEAD")).trim().split(
      "\n",
    );
    assert.deepEqual(committed.sort(), [
      ".envrc",
      ".vscode/settings.json",
      "link-dir",
      "link-file",
      "node_modules/x/index.js",
      "src/main.ts",
    ]);
    // After the run no placeholder remains.
    assert.deepEqual(await entryNames(ws), [
      ".envrc",
      ".git",
      ".vscode",
      "a.txt",
      "link-dir",
      "link-file",
      "node_modules",
      "src",
    ]);
  },
});

Deno.test({
  name:
    "[bwrap] run-later files: ls, find, grep and read do not show the placeholders, but show a real .vscode/settings.json and what appears in a placeholder",
  ignore: !BWRAP,
  async fn() {
    const layout = await runLaterLayout();
    await using _ = layout.root;
    const ws = layout.ws;
    const sb = await openSandbox(layout, "bwrap", defaultGrants(ws));
    try {
      // The placeholders stand in the workspace meanwhile.
      assert.ok((await entryNames(ws)).includes(".idea"));
      const ls = await callTool(sb, "ls", {}).then(outputOf);
      assert.equal(ls, ".envrc\n.git/\n.vscode/\na.txt\nlink-dir@\nlink-file@\nsrc/");
      const find = await callTool(sb, "find", { pattern: "*" }).then(outputOf);
      assert.equal(
        find,
        ".envrc\n.vscode/\n.vscode/settings.json\na.txt\nlink-dir\nlink-file\nsrc/\nsrc/main.ts",
      );
      const grep = await callTool(sb, "grep", { pattern: "tabSize|A=1" }).then(outputOf);
      assert.equal(grep, '.envrc:1: export A=1\n.vscode/settings.json:1: {"editor.tabSize": 2}');
      const read = textOf(await callTool(sb, "read", { path: ".idea" }));
      assert.match(read, /^File not found: "\.idea"/, read);
      assert.match(textOf(await callTool(sb, "ls", { path: ".claude" })), /Directory not found/);
      // The bash tool says what the empty read-only directories are.
      const bash = sb.tools.find((t) => t.name === "bash");
      assert.match(bash?.description ?? "", /Empty read-only directories such as \.vscode/);
      // The user (outside the sandbox) writes into a placeholder: it is theirs now, and shown.
      await Deno.writeTextFile(join(ws, ".idea/workspace.xml"), "<project/>\n");
      assert.match(textOf(await callTool(sb, "ls", {})), /^\.git\/\n\.idea\/\n\.vscode\//m);
      assert.match(textOf(await callTool(sb, "read", { path: ".idea/workspace.xml" })), /project/);
    } finally {
      await sb.close();
    }
    // The placeholder the user wrote into is kept; the others are gone.
    assert.deepEqual(await entryNames(ws), [
      ".envrc",
      ".git",
      ".idea",
      ".vscode",
      "a.txt",
      "link-dir",
      "link-file",
      "src",
    ]);
  },
});

Deno.test({
  name:
    "[bwrap] run-later files: git status, add, commit, stash -u and clean -fd pass over the placeholders and keep the user's global excludes",
  ignore: !BWRAP,
  async fn() {
    const layout = await runLaterLayout();
    await using _ = layout.root;
    const ws = layout.ws;
    // The user's global config names an excludes file; bash may read their home.
    const home = layout.root.path("home");
    await Deno.mkdir(home);
    await Deno.writeTextFile(join(home, ".gitconfig"), "[core]\n\texcludesFile = ~/my-ignores\n");
    await Deno.writeTextFile(join(home, "my-ignores"), "*.log\n");
    const env = { PATH: "/usr/local/bin:/usr/bin:/bin", HOME: home, LANG: "C.UTF-8" };
    const sb = await openSandbox(layout, "bwrap", grantsOf(ws, { "allow-read": [`.,${home}`] }), {
      env,
    });
    try {
      const g = `git ${GIT.join(" ")}`;
      const steps = [
        "echo x > debug.log; echo y > new.txt",
        `${g} status --porcelain --untracked-files=all`,
        `${g} add -A`,
        `${g} commit -qm second`,
        "echo z >> a.txt; echo w > untracked.txt",
        `${g} stash -u`,
        `${g} stash pop`,
        `${g} clean -fdn`,
        `${g} clean -fd`,
        `${g} ls-files`,
        "ls untracked.txt debug.log",
      ];
      const command = steps.map((c, i) => `${c} 2>&1; echo "step${i}=$?"`).join("; ");
      const out = textOf(await callTool(sb, "bash", { command }));
      for (let i = 0; i < steps.length - 1; i++) {
        assert.match(out, new RegExp(`step${i}=0\\b`), out);
      }
      assert.doesNotMatch(out, /failed to remove|Device or resource busy|warning/i, out);
      // The user's pattern still applies: debug.log is neither listed, committed nor cleaned.
      const status = out.slice(0, out.indexOf("step1="));
      assert.deepEqual(status.match(/^\?\? .*$/gm), [
        "?? .envrc",
        "?? .vscode/settings.json",
        "?? link-dir",
        "?? link-file",
        "?? new.txt",
      ]);
      assert.match(out, /Would remove untracked\.txt/, out);
      assert.match(
        out,
        /No such file or directory[^\n]*untracked\.txt|untracked\.txt[^\n]*No such/,
        out,
      );
      assert.match(out, /^debug\.log$/m, out);
    } finally {
      await sb.close();
    }
    const tracked = (await hostGit(ws, "ls-files")).trim().split("\n");
    assert.deepEqual(tracked.sort(), [
      ".envrc",
      ".vscode/settings.json",
      "a.txt",
      "link-dir",
      "link-file",
      "new.txt",
      "src/main.ts",
    ]);
    assert.equal(await Deno.readTextFile(join(ws, "a.txt")), "hello\nz\n");
  },
});

Deno.test({
  name:
    "[bwrap] run-later files: a second run in the workspace holds the first's placeholders, so they stay masked when the first ends",
  ignore: !BWRAP,
  async fn() {
    const layout = await runLaterLayout();
    await using _ = layout.root;
    const ws = layout.ws;
    const before = await entryNames(ws);
    // A denied path missing at the start has a placeholder too.
    const grants = () => grantsOf(ws, { "allow-write": ["."], "deny-write": ["build"] });
    const first = await openSandbox(layout, "bwrap", grants());
    let second: Awaited<ReturnType<typeof openSandbox>> | undefined;
    try {
      await callTool(first, "ls", {}).then(outputOf);
      assert.ok((await entryNames(ws)).includes(".idea"));
      // The second run starts while the first's placeholders stand: it finds them existing.
      second = await openSandbox(layout, "bwrap", grants());
      await callTool(second, "ls", {}).then(outputOf);
      await first.close();
      // The first run's remover left them: the second mounts over them.
      for (const name of [".idea", ".devcontainer", ".mcp.json", "build"]) {
        assert.ok((await entryNames(ws)).includes(name), `${name} removed under the second run`);
      }
      const out = outputOf(
        await callTool(second, "bash", {
          command: "mkdir -p .idea/x 2>&1; echo made=$?; touch .mcp.json/x 2>&1; echo wrote=$?; " +
            "echo x > build 2>&1; echo built=$?",
        }),
      );
      assert.match(out, /made=[1-9]/, out);
      assert.match(out, /wrote=[1-9]/, out);
      assert.match(out, /built=[1-9]/, out);
      // Placeholders are empty directories, files' names among them.
      for (const name of [".idea", ".mcp.json"]) {
        assert.deepEqual(await Array.fromAsync(Deno.readDir(join(ws, name))), [], name);
      }
      assert.equal(await Deno.readTextFile(join(ws, "build")), "");
    } finally {
      await first.close();
      await second?.close();
    }
    assert.deepEqual(await entryNames(ws), before);
  },
});
