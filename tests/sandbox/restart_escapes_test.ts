/**
 * The tool host restart (after an "always" approval) is where escapes lived: deny paths that
 * became symlinks, renamed denied files, and approvals of paths whose directory is missing. Each
 * attack is run for real in bubblewrap, with an approval that restarts the host afterwards.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { PermissionDecision } from "../../src/policy/check.ts";
import { UsageError } from "../../src/policy/grants.ts";
import type { CommandOps } from "../../src/policy/ops.ts";
import { createDenoCommandOps } from "../../src/sys/command.ts";
import { type Grants, grantsOf } from "../support/grants.ts";
import type { Sandbox } from "../../src/sandbox/mod.ts";
import {
  BWRAP,
  callTool,
  createLayout,
  type Layout,
  MODES,
  openSandbox,
  SECRET,
  textOf,
} from "./_helpers.ts";

function bwrapTest(name: string, fn: () => Promise<void>) {
  Deno.test({ name: `[bwrap] restart: ${name}`, ignore: !BWRAP, fn });
}

/** A sandbox that answers "always" to every question, and a way to force a host restart. */
async function alwaysSandbox(layout: Layout, grants: Grants) {
  const sb = await openSandbox(layout, "bwrap", grants, {
    prompter: { ask: () => Promise.resolve("always") },
  });
  let n = 0;
  const restart = async (sandbox: Sandbox) => {
    // Approving read access to a new outside file widens the grants: the next call gets a new host.
    const extra = join(layout.root.dir, `extra-${++n}.txt`);
    await Deno.writeTextFile(extra, "extra\n");
    const read = textOf(await callTool(sandbox, "read", { path: extra }));
    return read;
  };
  return { sb, restart };
}

const bash = async (sb: Sandbox, command: string) =>
  textOf(await callTool(sb, "bash", { command: `${command}; echo "rc=$?"` }));

bwrapTest(
  "a denied path and the directories above it cannot be renamed or replaced by bash",
  async () => {
    const layout = await createLayout({
      "cfg/app.json": "{}\n",
      "config/secrets.json": `${SECRET}\n`,
    });
    await using _ = layout.root;
    const grants = grantsOf(layout.ws, {
      "deny-write": ["cfg"],
      "deny-read": ["config/secrets.json"],
    });
    const { sb, restart } = await alwaysSandbox(layout, grants);
    try {
      for (
        const command of [
          `mv cfg cfg_old && ln -s ${layout.outside} cfg`,
          "mv config config2",
          "mv config/secrets.json config/s.json",
          "rm -rf cfg",
        ]
      ) {
        assert.doesNotMatch(await bash(sb, command), /rc=0\b/, command);
      }
      await restart(sb);
      for (const path of ["config/secrets.json", "config2/secrets.json"]) {
        assert.doesNotMatch(textOf(await callTool(sb, "read", { path })), new RegExp(SECRET), path);
      }
      assert.doesNotMatch(
        textOf(await callTool(sb, "grep", { pattern: SECRET })),
        /secrets\.json:1/,
      );
      const seen = await bash(sb, `cat config/secrets.json config2/secrets.json cfg/secret.txt`);
      assert.doesNotMatch(seen, new RegExp(SECRET), seen);
    } finally {
      await sb.close();
    }
  },
);

bwrapTest(
  "a denied path swapped for a symlink from outside stops the next host instead of mounting its target",
  async () => {
    const layout = await createLayout({ "cfg/app.json": "{}\n" });
    await using _ = layout.root;
    const { sb, restart } = await alwaysSandbox(
      layout,
      grantsOf(layout.ws, { "deny-write": ["cfg"] }),
    );
    try {
      assert.match(await bash(sb, "ls cfg"), /app\.json/);
      // Outside the sandbox (where mount points do not pin names), the path becomes a symlink.
      await Deno.rename(join(layout.ws, "cfg"), join(layout.ws, "cfg_old"));
      await Deno.symlink(layout.outside, join(layout.ws, "cfg"));
      const read = await restart(sb);
      assert.match(
        read,
        /the denied path ".*\/cfg" \(--deny-write\) changed since the start/,
        read,
      );
      const out = await bash(sb, "cat cfg/secret.txt");
      assert.doesNotMatch(out, new RegExp(SECRET), out);
      assert.match(out, /changed since the start/);
    } finally {
      await sb.close();
    }
  },
);

bwrapTest(
  "approving a path whose directory does not exist mounts nothing: the real /tmp stays hidden",
  async () => {
    const layout = await createLayout();
    await using _ = layout.root;
    const marker = await Deno.makeTempFile({ prefix: "moat-marker-" });
    try {
      const { sb } = await alwaysSandbox(layout, grantsOf(layout.ws, {}));
      try {
        const missing = `/moat-no-such-dir-${crypto.randomUUID().slice(0, 8)}/report.md`;
        const write = textOf(await callTool(sb, "write", { path: missing, content: "x" }));
        assert.match(write, /not found|does not exist/i, write);
        const listing = await bash(sb, "ls -a /tmp /; ls /root 2>&1");
        assert.ok(!listing.includes(marker.split("/").at(-1) as string), listing);
        await assert.rejects(Deno.lstat(missing.replace("/report.md", "")));
      } finally {
        await sb.close();
      }
    } finally {
      await Deno.remove(marker);
    }
  },
);

bwrapTest(
  "approving a new file outside creates exactly that file, and bash sees none of its directory",
  async () => {
    const layout = await createLayout();
    await using _ = layout.root;
    const { sb } = await alwaysSandbox(layout, grantsOf(layout.ws, {}));
    try {
      const target = join(layout.outside, "new.txt");
      const write = textOf(await callTool(sb, "write", { path: target, content: "hello\n" }));
      assert.doesNotMatch(write, /Error/, write);
      assert.equal(await Deno.readTextFile(target), "hello\n");
      const out = await bash(sb, `cat ${layout.outside}/secret.txt; ls ${layout.outside}`);
      assert.doesNotMatch(out, new RegExp(SECRET), out);
      assert.doesNotMatch(out, /secret\.txt\n/, out);
      // bash sees the approved file from the next call on, and its writes reach the real file.
      assert.match(await bash(sb, `echo more >> ${target}`), /rc=0\b/);
      assert.equal(await Deno.readTextFile(target), "hello\nmore\n");
    } finally {
      await sb.close();
    }
  },
);

bwrapTest("a hardlink to a denied file made before the run is refused to the tools", async () => {
  const layout = await createLayout({ ".env": `${SECRET}\n` });
  await using _ = layout.root;
  await Deno.link(join(layout.ws, ".env"), join(layout.ws, "env-copy"));
  const sb = await openSandbox(layout, "bwrap", grantsOf(layout.ws, { "deny-read": [".env"] }));
  try {
    for (const path of [".env", "env-copy"]) {
      assert.doesNotMatch(textOf(await callTool(sb, "read", { path })), new RegExp(SECRET), path);
    }
    const grep = textOf(await callTool(sb, "grep", { pattern: SECRET }));
    assert.doesNotMatch(grep, /env-copy:1/, grep);
  } finally {
    await sb.close();
  }
});

for (const mode of MODES) {
  Deno.test(`[${mode}] a link to an outside file is refused the same way whether the file exists or not`, async () => {
    const layout = await createLayout();
    await using _ = layout.root;
    await Deno.symlink(join(layout.outside, "missing.txt"), join(layout.ws, "dangling"));
    const sb = await openSandbox(layout, mode, grantsOf(layout.ws, {}));
    try {
      for (const tool of ["read", "edit", "ls"]) {
        const args = (path: string) =>
          tool === "edit" ? { path, oldText: "a", newText: "b" } : { path };
        const existing = textOf(await callTool(sb, tool, args("link-file")));
        const missing = textOf(await callTool(sb, tool, args("dangling")));
        const shape = (text: string) =>
          text.replaceAll(layout.outside, "OUT").replace(/secret\.txt|missing\.txt/g, "NAME");
        assert.equal(shape(missing), shape(existing), `${tool}: ${existing} / ${missing}`);
        assert.match(existing, /is not granted/);
      }
    } finally {
      await sb.close();
    }
  });
}

bwrapTest("--deny-run masks every name of a program: hardlinks and identical copies", async () => {
  const layout = await createLayout();
  await using _ = layout.root;
  const perl = (await Deno.realPath("/usr/bin/perl").catch(() => "")) !== "";
  const git = (await Deno.lstat("/usr/lib/git-core/git").catch(() => null)) !== null;
  // The test needs a machine that has these (Debian's perl and git do).
  if (!perl || !git) return;
  const perlNames = [...Deno.readDirSync("/usr/bin")]
    .filter((e) => /^perl5\.\d+\.\d+$/.test(e.name)).map((e) => `/usr/bin/${e.name}`);
  const sb = await openSandbox(layout, "bwrap", grantsOf(layout.ws, { "deny-run": ["perl,git"] }));
  try {
    for (
      const command of [
        "perl -e 'print 42'",
        "/usr/bin/perl -e 'print 42'",
        ...perlNames.map((p) => `${p} -e 'print 42'`),
        "/usr/lib/git-core/git --version",
        "git --version",
        "cp /usr/lib/git-core/git ./g && ./g --version",
      ]
    ) {
      const out = await bash(sb, command);
      assert.doesNotMatch(out, /rc=0\b/, `${command}: ${out}`);
    }
    // Other programs still run.
    assert.match(await bash(sb, "ls / >/dev/null"), /rc=0\b/);
  } finally {
    await sb.close();
  }
});

bwrapTest(
  "--deny-run refuses to start when the search for a program's other names does not finish",
  async () => {
    // The search runs only for programs the machine has (Debian's perl and git).
    if ((await Deno.lstat("/usr/bin/perl").catch(() => null)) === null) return;
    const layout = await createLayout();
    await using _ = layout.root;
    const real = createDenoCommandOps();
    // A loaded machine: find is killed at its deadline before it printed a name (so perl's
    // hardlinks and git's copy in /usr/lib/git-core were never listed).
    const commands: CommandOps = {
      output: (program, args, options) =>
        program === "find"
          ? Promise.resolve({
            ok: true,
            success: false,
            code: 137,
            signal: "SIGKILL",
            stdout: "",
            stderr: "",
          })
          : real.output(program, args, options),
    };
    const grants = grantsOf(layout.ws, { "deny-run": ["perl,git"] });
    let sb: Sandbox | undefined;
    try {
      sb = await openSandbox(layout, "bwrap", grants, { sys: { commands } });
      // The old behaviour: a host whose view left every name the search had not reached runnable.
      const perlNames = [...Deno.readDirSync("/usr/bin")]
        .filter((e) => /^perl5\.\d+\.\d+$/.test(e.name)).map((e) => `/usr/bin/${e.name}`);
      const names = [...perlNames, "/usr/lib/git-core/git"].map((p) => `${p} --version`);
      assert.fail(`the sandbox started; bash: ${await bash(sb, names.join("; "))}`);
    } catch (e) {
      assert.ok(e instanceof UsageError, String(e));
      assert.match(
        e.message,
        /^--deny-run=perl,git cannot be enforced: .*"find" over .* was stopped by SIGKILL/,
      );
    } finally {
      await sb?.close();
    }
  },
);

bwrapTest(
  '"[d]irectory" approves the whole directory for the run, and its own git hooks stay protected',
  async () => {
    const layout = await createLayout();
    await using _ = layout.root;
    // A repository in the directory that is approved later.
    await Deno.mkdir(join(layout.outside, ".git/hooks"), { recursive: true });
    await Deno.writeTextFile(join(layout.outside, ".git/HEAD"), "ref: refs/heads/main\n");
    await Deno.writeTextFile(join(layout.outside, ".git/config"), "[core]\n");
    const questions: string[] = [];
    const sb = await openSandbox(layout, "bwrap", grantsOf(layout.ws, {}), {
      prompter: {
        ask: (r) => {
          questions.push(r.question);
          return Promise.resolve("directory");
        },
      },
    });
    try {
      const first = textOf(
        await callTool(sb, "write", { path: join(layout.outside, "a.txt"), content: "a\n" }),
      );
      assert.doesNotMatch(first, /BLOCKED|Error/, first);
      assert.equal(questions.length, 1);
      assert.match(questions[0] ?? "", new RegExp(`\\[d\\]irectory ${layout.outside} this run`));
      const second = textOf(
        await callTool(sb, "write", { path: join(layout.outside, "b.txt"), content: "b\n" }),
      );
      assert.doesNotMatch(second, /BLOCKED|Error/, second);
      assert.equal(questions.length, 1, "a sibling is not asked about again");
      assert.match(await bash(sb, `echo c > ${layout.outside}/c.txt`), /rc=0\b/);
      assert.equal(await Deno.readTextFile(join(layout.outside, "c.txt")), "c\n");
      const hook = textOf(
        await callTool(sb, "write", {
          path: join(layout.outside, ".git/hooks/pre-commit"),
          content: "id\n",
        }),
      );
      assert.match(hook, /is protected/, hook);
      assert.doesNotMatch(
        await bash(sb, `echo id > ${layout.outside}/.git/hooks/pre-commit`),
        /rc=0\b/,
      );
      await assert.rejects(Deno.lstat(join(layout.outside, ".git/hooks/pre-commit")));
    } finally {
      await sb.close();
    }
  },
);

bwrapTest(
  "a program a scoped --allow-run keeps from bash that no parse can know is named after the call as not granted, and asked about on a terminal",
  async () => {
    const layout = await createLayout();
    await using _ = layout.root;
    const decisions: PermissionDecision[] = [];
    const grants = grantsOf(layout.ws, { "allow-run": ["git"] });
    const quiet = await openSandbox(layout, "bwrap", grants, {
      onDecision: (d) => decisions.push(d),
    });
    try {
      const out = await bash(quiet, "p=ls; $p a.txt");
      assert.match(out, /rc=127/);
      assert.match(out, /ls: not granted \(moat's --allow-run does not include it\)/);
      assert.doesNotMatch(out, /command not found/);
      assert.ok(
        out.includes(
          `[moat: bash could not run "ls": run access to "ls" is not granted (add ` +
            `--allow-run=git,ls)]`,
        ),
        out,
      );
      assert.deepEqual(decisions.filter((d) => d.during).map((d) => [d.target, d.outcome, d.by]), [
        ["ls", "denied", "no_prompt"],
      ]);
      // A typo is not a refusal: nothing of that name exists to allow.
      assert.doesNotMatch(await bash(quiet, "p=lss; $p a.txt"), /moat: bash could not run/);
    } finally {
      await quiet.close();
    }

    const answers = ["once", "always"];
    const asked: string[] = [];
    const sb = await openSandbox(layout, "bwrap", grants, {
      prompter: {
        ask: (r) => {
          asked.push(r.question);
          return Promise.resolve(answers.shift() as "once" | "always");
        },
      },
    });
    try {
      assert.match(await bash(sb, "p=ls; $p a.txt"), /allowed it for the next bash call/);
      assert.match(asked[0] ?? "", /bash tried to run ls, which --allow-run does not include/);
      assert.match(await bash(sb, "p=ls; $p a.txt"), /a\.txt\nrc=0/);
      assert.match(await bash(sb, "p=ls; $p a.txt"), /allowed it for the rest of this run/);
      assert.match(await bash(sb, "p=ls; $p a.txt"), /a\.txt\nrc=0/);
      assert.match(await bash(sb, "p=ls; $p a.txt"), /a\.txt\nrc=0/);
      assert.equal(asked.length, 2);
    } finally {
      await sb.close();
    }
  },
);
