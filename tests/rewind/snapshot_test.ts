/**
 * The checkpoint right after a turn's start hash (`prepare`): on the critical path of the turn's
 * first change it only checks that nothing changed, and it still holds the work tree exactly as
 * it is, whatever changed between the hash and the change. With the real git.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  type CheckpointStore,
  createCheckpointStore,
  type GitCommand,
} from "../../src/rewind/mod.ts";
import { createDenoGitOps } from "../../src/sys/git.ts";

/** A work tree and its store, whose git calls are recorded (their subcommands, in order). */
async function withTree(
  fn: (work: string, store: CheckpointStore, calls: string[]) => Promise<void>,
) {
  const root = await Deno.makeTempDir({ prefix: "moat-snapshot-" });
  try {
    const work = join(root, "work");
    await Deno.mkdir(work);
    const real = createDenoGitOps();
    const calls: string[] = [];
    const store = createCheckpointStore({
      gitDir: join(root, "store.git"),
      workTree: work,
      git: {
        run: (command: GitCommand) => {
          calls.push(subcommand(command.args));
          return real.run(command);
        },
      },
    });
    await fn(work, store, calls);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

/** The git subcommand of an argument list (after the `-c` settings and the `--` options). */
function subcommand(args: string[]): string {
  for (let i = 0; i < args.length; i++) {
    if (args[i] === "-c") i++;
    else if (!args[i]!.startsWith("--")) return args[i]!;
  }
  return "";
}

function must<T>(r: { ok: true; value: T } | { ok: false; error: string }): T {
  if (!r.ok) throw new Error(r.error);
  return r.value;
}

const write = (work: string, path: string, text: string) =>
  Deno.writeTextFile(join(work, path), text);

async function show(work: string, store: CheckpointStore, id: string, path: string) {
  // What the checkpoint holds: restoring it (forced) into the work tree, then reading the file.
  must(await store.restore(id, { force: true }));
  return await Deno.readTextFile(join(work, path));
}

async function seed(work: string): Promise<void> {
  await write(work, ".gitignore", "*.log\n");
  await write(work, "a.txt", "one\n");
  await write(work, "b.txt", "two\n");
  await write(work, "run.sh", "#!/bin/sh\n");
  await Deno.mkdir(join(work, "dir"));
  await write(work, "dir/c.txt", "three\n");
  await Deno.symlink("a.txt", join(work, "link"));
}

Deno.test("after the turn-start hash, the first change's checkpoint runs no git add and no head lookup when nothing changed", async () => {
  await withTree(async (work, store, calls) => {
    await seed(work);
    must(await store.checkpoint("session start"));
    await write(work, "a.txt", "changed before the turn\n");
    must(await store.prepare());
    calls.length = 0;
    const id = must(await store.checkpoint("Before turn")).id;
    assert.ok(!calls.includes("add"), calls.join(" "));
    assert.ok(!calls.includes("rev-parse"), calls.join(" "));
    assert.deepEqual(must(await store.diff(id)), []);
    assert.equal(await show(work, store, id, "a.txt"), "changed before the turn\n");
  });
});

Deno.test("whatever changed between the turn-start hash and the first change is in its checkpoint as it was just before the change", async () => {
  await withTree(async (work, store) => {
    await seed(work);
    must(await store.checkpoint("session start"));
    must(await store.prepare());
    // After the hash: an edit of the same size, a new file, a new file in a new directory, a
    // deletion, a mode change, a symlink pointed elsewhere, a file replaced by a directory, and
    // an ignored file (which stays out).
    await write(work, "a.txt", "ONE\n");
    await write(work, "new.txt", "new\n");
    await Deno.mkdir(join(work, "fresh"));
    await write(work, "fresh/d.txt", "four\n");
    await Deno.remove(join(work, "b.txt"));
    await Deno.chmod(join(work, "run.sh"), 0o755);
    await Deno.remove(join(work, "link"));
    await Deno.symlink("new.txt", join(work, "link"));
    await Deno.remove(join(work, "dir/c.txt"));
    await Deno.mkdir(join(work, "dir/c.txt"));
    await write(work, "dir/c.txt/e.txt", "five\n");
    await write(work, "debug.log", "ignored\n");
    const id = must(await store.checkpoint("Before turn"));
    // The change itself comes after the checkpoint.
    await write(work, "a.txt", "the agent's edit\n");
    await write(work, "new.txt", "the agent's edit\n");
    const changed = must(await store.diff(id.id)).map((c) => c.path);
    assert.deepEqual(changed, ["a.txt", "new.txt"]);
    assert.equal(await show(work, store, id.id, "a.txt"), "ONE\n");
    assert.equal(await Deno.readTextFile(join(work, "new.txt")), "new\n");
    assert.equal(await Deno.readTextFile(join(work, "fresh/d.txt")), "four\n");
    assert.equal(await Deno.readTextFile(join(work, "dir/c.txt/e.txt")), "five\n");
    assert.equal(await Deno.readLink(join(work, "link")), "new.txt");
    assert.equal((await Deno.stat(join(work, "run.sh"))).mode! & 0o111, 0o111);
    await assert.rejects(Deno.stat(join(work, "b.txt")), Deno.errors.NotFound);
    assert.equal(await Deno.readTextFile(join(work, "debug.log")), "ignored\n");
  });
});

Deno.test("each kind of change after the turn-start hash alone is caught by the first change's checkpoint", async () => {
  const changes: Record<string, (work: string) => Promise<void>> = {
    "an edit": (work) => write(work, "a.txt", "ONE\n"),
    "a new file": (work) => write(work, "dir/new.txt", "new\n"),
    "a deletion": (work) => Deno.remove(join(work, "b.txt")),
    "a mode change": (work) => Deno.chmod(join(work, "run.sh"), 0o755),
    "a symlink pointed elsewhere": async (work) => {
      await Deno.remove(join(work, "link"));
      await Deno.symlink("b.txt", join(work, "link"));
    },
  };
  for (const [name, change] of Object.entries(changes)) {
    await withTree(async (work, store) => {
      await seed(work);
      const start = must(await store.checkpoint("session start")).id;
      must(await store.prepare());
      await change(work);
      const id = must(await store.checkpoint("Before turn")).id;
      assert.deepEqual(must(await store.diff(id)), [], name);
      assert.notEqual(must(await store.between(start, id)).length, 0, name);
    });
  }
});

Deno.test("a checkpoint extends the chain another store of the same directory moved meanwhile", async () => {
  await withTree(async (work, store) => {
    await seed(work);
    const first = must(await store.checkpoint("one")).id;
    const gitDir = join(work, "..", "store.git");
    const other = createCheckpointStore({ gitDir, workTree: work, git: createDenoGitOps() });
    await write(work, "a.txt", "other\n");
    const second = must(await other.checkpoint("two")).id;
    await write(work, "a.txt", "mine\n");
    const third = must(await store.checkpoint("three")).id;
    assert.deepEqual(must(await store.list()).map((c) => c.id), [third, second, first]);
  });
});
