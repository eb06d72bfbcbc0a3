/**
 * The rewind checkpoints of a run (src/cli/rewind.ts over src/rewind/), with the real git: a
 * checkpoint before each turn's first change and after its last, and rewinds that never lose a
 * file — the user's edits are kept and reported, a rewind can be undone, paths outside the
 * write grants are never touched.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { AnyTool, ToolCallGate } from "../../src/agent/mod.ts";
import { createRunCheckpoints, sessionStore, writablePath } from "../../src/cli/rewind.ts";
import { planRewind, readTurns, rewindTo, type TurnEntry, undoTurn } from "../../src/rewind/mod.ts";
import { createDenoGitOps } from "../../src/sys/git.ts";
import { createDenoRewindFs } from "../../src/sys/rewind_fs.ts";
import { defaultGrants } from "../support/grants.ts";
import { replRewind } from "../../src/cli/rewind_repl.ts";
import type { Message } from "../../src/model/types.ts";
import type { SessionWriter } from "../../src/session/store.ts";
import { createDenoScanOps } from "../../src/sys/paths.ts";

const deps = { git: createDenoGitOps(), fs: createDenoRewindFs() };

/** A tool of `kind` whose call runs `effect` (what edit, write and bash do to the files). */
function tool(name: string, kind: AnyTool["kind"], effect: () => Promise<void>): AnyTool {
  return {
    name,
    kind,
    description: name,
    parameters: {},
    execute: async () => (await effect(), { output: "done" }),
  } as unknown as AnyTool;
}

async function sh(cwd: string, script: string): Promise<void> {
  const out = await new Deno.Command("sh", { args: ["-c", script], cwd }).output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
}

async function withSession(
  fn: (s: {
    work: string;
    turn: (prompt: string, ...calls: AnyTool[]) => Promise<void>;
    turns: () => Promise<TurnEntry[]>;
    calls: string[];
  }) => Promise<void>,
) {
  const root = await Deno.makeTempDir({ prefix: "moat-rewind-cli-" });
  try {
    const work = join(root, "work");
    await Deno.mkdir(work);
    await Deno.mkdir(join(root, "state"));
    const session = join(root, "state", "s1.jsonl");
    const checkpoints = createRunCheckpoints(deps, {
      workspace: work,
      now: () => 0,
      warn: (m) => assert.fail(m),
    });
    const calls: string[] = [];
    const policy: ToolCallGate = (call) => void calls.push(`policy ${call.name}`);
    const gate = checkpoints.gate(policy);
    const turn = (prompt: string, ...tools: AnyTool[]) =>
      checkpoints.turn(
        { path: session, messages: 0 },
        { role: "user", content: prompt },
        async () => {
          for (const t of tools) {
            await gate({
              toolCallId: t.name,
              name: t.name,
              args: {},
              tool: t,
              signal: new AbortController().signal,
            });
            await t.execute({}, new AbortController().signal, {
              toolCallId: t.name,
              onUpdate: () => {},
            });
          }
        },
      );
    const turns = async () => {
      const read = await readTurns(deps.fs, sessionStore(deps, session, work).paths.index);
      assert.ok(read.ok);
      return read.turns;
    };
    await fn({ work, turn, turns, calls });
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

const store = (work: string, session: string) => sessionStore(deps, session, work).store;

Deno.test("a turn's edit, write and bash change are checkpointed before the first change and rewound", async () => {
  await withSession(async ({ work, turn, turns }) => {
    await Deno.writeTextFile(join(work, "a.txt"), "one\n");
    // The store lives next to the session, on the host, never in the work tree.
    const gitDir = join(work, "..", "state", "s1.rewind", "git");
    await turn("look only", tool("read", "read", async () => {}));
    assert.deepEqual(await turns(), [], "a turn of read-only calls takes no checkpoint");
    await turn(
      "change things\nsecond line",
      tool("edit", "write", () => Deno.writeTextFile(join(work, "a.txt"), "two\n")),
      tool("write", "write", () => Deno.writeTextFile(join(work, "new.txt"), "new\n")),
      tool("bash", "execute", () => sh(work, "mkdir d && echo made > d/b.txt")),
    );
    const [entry] = await turns();
    assert.equal(entry?.prompt, "change things");
    assert.deepEqual(entry?.files, ["a.txt", "d/b.txt", "new.txt"]);
    assert.ok(entry?.after !== undefined);
    assert.ok((await Deno.stat(gitDir)).isDirectory);
    const s = store(work, join(work, "..", "state", "s1.jsonl"));
    const plan = await planRewind(s, await turns(), 1);
    assert.ok(plan.ok);
    assert.deepEqual(plan.value.restore.map((c) => `${c.change} ${c.path}`), [
      "modified a.txt",
      "added d/b.txt",
      "added new.txt",
    ]);
    const index = join(work, "..", "state", "s1.rewind", "turns.json");
    const done = await rewindTo(s, await turns(), 1, { fs: deps.fs, index, now: () => 1 });
    assert.ok(done.ok, done.ok ? "" : done.error);
    assert.equal(await Deno.readTextFile(join(work, "a.txt")), "one\n");
    await assert.rejects(Deno.stat(join(work, "new.txt")), Deno.errors.NotFound);
    await assert.rejects(Deno.stat(join(work, "d/b.txt")), Deno.errors.NotFound);
  });
});

Deno.test("a file the user edited after the turn is reported and kept; forcing overwrites it", async () => {
  await withSession(async ({ work, turn, turns }) => {
    await Deno.writeTextFile(join(work, "a.txt"), "one\n");
    await Deno.writeTextFile(join(work, "b.txt"), "one\n");
    await turn(
      "edit both",
      tool("edit", "write", () => sh(work, "echo agent > a.txt; echo agent > b.txt")),
    );
    // The user edits a.txt between the turns; the next turn edits b.txt only.
    await Deno.writeTextFile(join(work, "a.txt"), "user\n");
    await turn(
      "edit b",
      tool("edit", "write", () => Deno.writeTextFile(join(work, "b.txt"), "agent 2\n")),
    );
    const s = store(work, join(work, "..", "state", "s1.jsonl"));
    const plan = await planRewind(s, await turns(), 1);
    assert.ok(plan.ok);
    assert.deepEqual(plan.value.kept, ["a.txt"]);
    const index = join(work, "..", "state", "s1.rewind", "turns.json");
    const done = await rewindTo(s, await turns(), 1, { fs: deps.fs, index, now: () => 1 });
    assert.ok(done.ok);
    assert.deepEqual(done.value.kept, ["a.txt"]);
    assert.deepEqual(done.value.restored, ["b.txt"]);
    assert.equal(await Deno.readTextFile(join(work, "a.txt")), "user\n", "the user's edit stays");
    assert.equal(await Deno.readTextFile(join(work, "b.txt")), "one\n");
    const forced = await rewindTo(s, await turns(), 1, {
      fs: deps.fs,
      index,
      now: () => 2,
      force: true,
    });
    assert.ok(forced.ok);
    assert.equal(await Deno.readTextFile(join(work, "a.txt")), "one\n");
  });
});

Deno.test("a rewind is listed as a turn and undone by rewinding to it", async () => {
  await withSession(async ({ work, turn, turns }) => {
    await Deno.writeTextFile(join(work, "a.txt"), "one\n");
    await turn(
      "edit",
      tool("edit", "write", () => Deno.writeTextFile(join(work, "a.txt"), "two\n")),
    );
    const s = store(work, join(work, "..", "state", "s1.jsonl"));
    const index = join(work, "..", "state", "s1.rewind", "turns.json");
    assert.ok((await rewindTo(s, await turns(), 1, { fs: deps.fs, index, now: () => 1 })).ok);
    assert.equal(await Deno.readTextFile(join(work, "a.txt")), "one\n");
    const listed = await turns();
    assert.deepEqual(listed.map((t) => t.kind), ["turn", "rewind"]);
    const undo = undoTurn(listed);
    assert.equal(undo, 2);
    const undone = await rewindTo(s, listed, undo!, { fs: deps.fs, index, now: () => 2 });
    assert.ok(undone.ok);
    assert.equal(await Deno.readTextFile(join(work, "a.txt")), "two\n");
  });
});

Deno.test("a rewind never touches a path outside the write grants, even forced", async () => {
  await withSession(async ({ work, turn, turns }) => {
    await Deno.mkdir(join(work, "src"));
    await Deno.writeTextFile(join(work, "src/a.txt"), "one\n");
    await Deno.writeTextFile(join(work, "top.txt"), "one\n");
    await turn(
      "edit",
      tool("bash", "execute", () => sh(work, "echo 2 > src/a.txt; echo 2 > top.txt")),
    );
    const grants = { ...defaultGrants(work), write: [join(work, "src")] };
    const allow = writablePath(work, grants, undefined);
    const s = store(work, join(work, "..", "state", "s1.jsonl"));
    const index = join(work, "..", "state", "s1.rewind", "turns.json");
    const done = await rewindTo(s, await turns(), 1, {
      fs: deps.fs,
      index,
      now: () => 1,
      allow,
      force: true,
    });
    assert.ok(done.ok);
    assert.deepEqual(done.value.outside, ["top.txt"]);
    assert.equal(await Deno.readTextFile(join(work, "src/a.txt")), "one\n");
    assert.equal(await Deno.readTextFile(join(work, "top.txt")), "2\n");
  });
});

Deno.test("the checkpoint waits for the policy: a blocked call takes none", async () => {
  await withSession(async ({ work, turns }) => {
    const checkpoints = createRunCheckpoints(deps, {
      workspace: work,
      now: () => 0,
      warn: assert.fail,
    });
    const gate = checkpoints.gate(() => ({ block: true, reason: "no", source: "permissions" }));
    const t = tool("write", "write", async () => {});
    const session = { path: join(work, "..", "state", "s1.jsonl"), messages: 0 };
    await checkpoints.turn(session, { role: "user", content: "x" }, async () => {
      await gate({
        toolCallId: "1",
        name: "write",
        args: {},
        tool: t,
        signal: new AbortController().signal,
      });
    });
    assert.deepEqual(await turns(), []);
  });
});

Deno.test("/rewind lists the turns, then rewinds the files and, with 'chat', the conversation", async () => {
  await withSession(async ({ work, turn }) => {
    await Deno.writeTextFile(join(work, "a.txt"), "one\n");
    await turn(
      "make it two",
      tool("edit", "write", () => Deno.writeTextFile(join(work, "a.txt"), "two\n")),
    );
    const compactions: unknown[] = [];
    const writer = {
      path: join(work, "..", "state", "s1.jsonl"),
      appendCompaction: (line: unknown) => void compactions.push(line),
    } as unknown as SessionWriter;
    const history: Message[] = [
      { role: "user", content: "make it two" },
      {
        role: "assistant",
        blocks: [{ type: "text", text: "Done." }],
        stopReason: "stop",
        usage: { inputTokens: 0, outputTokens: 0, cachedTokens: 0, totalTokens: 0 },
      },
    ];
    const context = {
      deps,
      workspace: work,
      env: { HOME: "/nonexistent" },
      grants: defaultGrants(work),
      ops: createDenoScanOps(),
      writer,
      history,
    };
    assert.match(await replRewind("", context), /^ {2}1 {2}make it two {2}\(a\.txt\)\n\/rewind N/);
    const said = await replRewind("1 chat", context);
    assert.match(said, /Rewound the files to before turn 1: 1 restored\./);
    assert.equal(await Deno.readTextFile(join(work, "a.txt")), "one\n");
    assert.equal(history.length, 0);
    assert.equal(compactions.length, 1);
    assert.match(await replRewind("undo", context), /1 restored/);
    assert.equal(await Deno.readTextFile(join(work, "a.txt")), "two\n");
  });
});
