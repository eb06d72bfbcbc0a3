/**
 * A scoped --allow-run: the programs a bash command line names are found by a parse before it
 * runs, asked about on a terminal, and otherwise refused with the whole flag — nothing of the
 * command runs first (a non-idempotent command never runs twice).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { PermissionDecision } from "../../src/policy/check.ts";
import { loadBashCommandParser } from "../../src/sandbox/_bash_commands.ts";
import { parseGrantFlags } from "../support/grants.ts";
import { BWRAP, callTool, createLayout, openSandbox, textOf } from "./_helpers.ts";

Deno.test("the command parse finds programs through pipelines, lists, wrappers and nesting", async () => {
  const parser = await loadBashCommandParser();
  const cases: Array<[string, string[]]> = [
    ["ls | head -3", ["ls", "head"]],
    ["git status && wc -l x || (sort y; uniq z)", ["git", "wc", "sort", "uniq"]],
    ["echo $(date) `id` >(tee x) <(cut -f1 y)", ["date", "id", "tee", "cut"]],
    ["env X=1 nice -n 5 sudo -u me cat f", ["env", "nice", "sudo", "cat"]],
    ["X=1 timeout -s KILL 5 sleep 1", ["timeout", "sleep"]],
    ["exec -a name tail -f x; command -v jq; command grep y; time du -s", ["tail", "grep", "du"]],
    ["find . -name '*.ts' | xargs -I {} wc {}; ls | xargs", ["find", "xargs", "wc", "ls", "echo"]],
    ["f() { awk 1; }; f x; cd /; echo hi; [ -f x ] && true", ["awk"]],
    ["sh -c 'rev x | tac'; bash -c \"$x\"; eval 'od -c x'", ["sh", "rev", "tac", "bash", "od"]],
    ["/usr/bin/stat x; ./run.sh; l\\s; 'md5sum' x", ["/usr/bin/stat", "./run.sh", "ls", "md5sum"]],
    ['$CMD x; "$(which y)" z; eval "$z"', ["which"]],
  ];
  for (const [command, programs] of cases) {
    assert.deepEqual(parser.programs(command).programs, programs, command);
  }
});

function bwrapTest(name: string, fn: () => Promise<void>) {
  Deno.test({ name: `[bwrap] ${name}`, ignore: !BWRAP, fn });
}

bwrapTest(
  "a scoped --allow-run refuses a bash call naming an ungranted program before it runs",
  async () => {
    const layout = await createLayout();
    await using _ = layout.root;
    const parsed = parseGrantFlags({ "allow-run": ["git"] }, { cwd: layout.ws });
    if (!parsed.ok) throw parsed.error;
    const decisions: PermissionDecision[] = [];
    const sb = await openSandbox(layout, "bwrap", parsed.grants, {
      onDecision: (d) => decisions.push(d),
    });
    try {
      const marker = join(layout.ws, "ran.txt");
      const out = textOf(
        await callTool(sb, "bash", { command: `echo x >> ran.txt; ls | head -3` }),
      );
      assert.equal(
        out,
        'BLOCKED: run access to "ls" and "head" is not granted: bash was not run (add ' +
          "--allow-run=git,ls,head)",
      );
      await assert.rejects(Deno.lstat(marker), Deno.errors.NotFound, "nothing of it ran");
      assert.deepEqual(
        decisions.filter((d) => d.access === "run" && d.outcome === "denied")
          .map((d) => [d.target, d.by, d.hint, d.during]),
        [
          ["ls", "no_prompt", "--allow-run=git,ls,head", undefined],
          ["head", "no_prompt", "--allow-run=git,ls,head", undefined],
        ],
      );
      // A script in the workspace runs as is; the interpreter of its #! line is asked about.
      await Deno.writeTextFile(join(layout.ws, "run.sh"), "#!/usr/bin/env sh\necho ran\n");
      await Deno.chmod(join(layout.ws, "run.sh"), 0o755);
      assert.equal(
        textOf(await callTool(sb, "bash", { command: "./run.sh" })),
        'BLOCKED: run access to "env" and "sh" is not granted: bash was not run (add ' +
          "--allow-run=git,env,sh)",
      );
      // Builtins, functions and programs that exist nowhere are never refused.
      const fine = textOf(
        await callTool(sb, "bash", { command: "f() { echo in-f; }; f; echo hi; nosuchprog; true" }),
      );
      assert.match(fine, /in-f\nhi/);
    } finally {
      await sb.close();
    }

    const asked: string[] = [];
    const answers = ["once", "always"];
    const tty = await openSandbox(layout, "bwrap", parsed.grants, {
      prompter: {
        ask: (r) => {
          asked.push(r.question);
          return Promise.resolve(answers.shift() as "once" | "always");
        },
      },
    });
    try {
      const out = textOf(
        await callTool(tty, "bash", { command: "echo x >> ran.txt; ls | head -3" }),
      );
      assert.deepEqual(asked, [
        "moat wants to run ls (bash). Allow? [y]es once / [a]lways this run / [N]o (Enter)",
        "moat wants to run head (bash). Allow? [y]es once / [a]lways this run / [N]o (Enter)",
      ]);
      assert.match(out, /a\.txt/);
      assert.doesNotMatch(out, /not granted|command not found|run the command again/);
      assert.equal(await Deno.readTextFile(join(layout.ws, "ran.txt")), "x\n", "it ran once");
    } finally {
      await tty.close();
    }
  },
);

bwrapTest(
  "the PermissionRequest hooks answer bash's program checks before anyone is asked, before and after the call",
  async () => {
    const layout = await createLayout();
    await using _ = layout.root;
    const parsed = parseGrantFlags({ "allow-run": ["git"] }, { cwd: layout.ws });
    if (!parsed.ok) throw parsed.error;
    const decisions: PermissionDecision[] = [];
    const hooked: string[] = [];
    const sb = await openSandbox(layout, "bwrap", parsed.grants, {
      noPrompt: true,
      onDecision: (d) => decisions.push(d),
      permissionHook: (request) => {
        const program = request.location?.access === "run" ? request.location.program : "?";
        hooked.push(`${request.toolName} ${program}`);
        return Promise.resolve(
          program === "head"
            ? { decision: "deny" as const, reason: "head is off here" }
            : program === "ls" || program === "cat"
            ? { decision: "always" as const }
            : undefined,
        );
      },
    });
    try {
      // Before the call: ls is allowed for the run, head is denied with the hook's reason.
      assert.equal(
        textOf(await callTool(sb, "bash", { command: "ls | head -3" })),
        "BLOCKED: head is off here (bash was not run)",
      );
      assert.match(textOf(await callTool(sb, "bash", { command: "ls" })), /a\.txt/);
      // After the call (a program the parse cannot see): the hook's allow, for the next calls.
      const late = textOf(await callTool(sb, "bash", { command: "p=cat; $p a.txt" }));
      assert.match(late, /a PermissionRequest hook allowed it for the rest of this run/);
      assert.doesNotMatch(
        textOf(await callTool(sb, "bash", { command: "p=cat; $p a.txt" })),
        /not granted/,
      );
      assert.deepEqual(hooked, ["bash ls", "bash head", "bash cat"]);
      assert.deepEqual(
        decisions.filter((d) => d.access === "run" && d.by !== "grants")
          .map((d) => [d.target, d.outcome, d.by]),
        [
          ["ls", "approved_always", "hook"],
          ["head", "denied", "hook"],
          ["cat", "approved_always", "hook"],
        ],
      );
    } finally {
      await sb.close();
    }
  },
);
