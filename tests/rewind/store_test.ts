/**
 * The checkpoint store of `/rewind`: snapshots of a work tree in a private git directory, restored
 * without losing anything, with the real git.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { createCheckpointStore } from "../../src/rewind/mod.ts";
import { createDenoGitOps } from "../../src/sys/git.ts";
import { exists } from "../support/workspace.ts";

async function withTree(
  fn: (work: string, store: ReturnType<typeof createCheckpointStore>) => Promise<void>,
) {
  const root = await Deno.makeTempDir({ prefix: "moat-rewind-" });
  try {
    const work = join(root, "work");
    await Deno.mkdir(work);
    const store = createCheckpointStore({
      gitDir: join(root, "store.git"),
      workTree: work,
      git: createDenoGitOps(),
    });
    await fn(work, store);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

function must<T>(r: { ok: true; value: T } | { ok: false; error: string }): T {
  if (!r.ok) throw new Error(r.error);
  return r.value;
}

const write = (work: string, path: string, text: string) =>
  Deno.writeTextFile(join(work, path), text);
const read = (work: string, path: string) => Deno.readTextFile(join(work, path));
async function sh(cwd: string, ...args: string[]): Promise<string> {
  const out = await new Deno.Command("git", {
    args,
    cwd,
    env: {
      GIT_AUTHOR_NAME: "t",
      GIT_AUTHOR_EMAIL: "t@t",
      GIT_COMMITTER_NAME: "t",
      GIT_COMMITTER_EMAIL: "t@t",
    },
  }).output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  return new TextDecoder().decode(out.stdout);
}

/** Prints a measurement in the test output (timings are shown, never asserted). */
function note(line: string): void {
  Deno.stdout.writeSync(new TextEncoder().encode(`${line}\n`));
}

const BINARY = new Uint8Array([0, 255, 1, 254, 13, 10, 0, 0, 128]);

Deno.test("restore brings back edits, writes, new files and deletions, with modes, binary files and symlinks", async () => {
  await withTree(async (work, store) => {
    await write(work, "a.txt", "one\n");
    await write(work, "gone.txt", "keep me\n");
    await Deno.mkdir(join(work, "dir"));
    await write(work, "dir/run.sh", "#!/bin/sh\necho hi\n");
    await Deno.chmod(join(work, "dir/run.sh"), 0o755);
    await Deno.writeFile(join(work, "bin.dat"), BINARY);
    await Deno.symlink("a.txt", join(work, "link"));
    const start = must(await store.checkpoint("start")).id;

    await write(work, "a.txt", "two\n");
    await Deno.remove(join(work, "gone.txt"));
    await write(work, "new.txt", "created\n");
    await Deno.mkdir(join(work, "newdir"));
    await write(work, "newdir/x.txt", "x\n");
    await Deno.chmod(join(work, "dir/run.sh"), 0o644);
    await Deno.writeFile(join(work, "bin.dat"), new Uint8Array([1, 2, 3]));
    await Deno.remove(join(work, "link"));
    await write(work, "link", "now a file\n");
    must(await store.checkpoint("after the agent's turn"));

    assert.deepEqual(must(await store.diff(start)), [
      { path: "a.txt", change: "modified" },
      { path: "bin.dat", change: "modified" },
      { path: "dir/run.sh", change: "modified" },
      { path: "gone.txt", change: "deleted" },
      { path: "link", change: "modified" },
      { path: "new.txt", change: "added" },
      { path: "newdir/x.txt", change: "added" },
    ]);
    const report = must(await store.restore(start));
    assert.deepEqual(report.kept, []);
    assert.deepEqual([...report.restored].sort(), [
      "a.txt",
      "bin.dat",
      "dir/run.sh",
      "gone.txt",
      "link",
      "new.txt",
      "newdir/x.txt",
    ]);
    assert.equal(await read(work, "a.txt"), "one\n");
    assert.equal(await read(work, "gone.txt"), "keep me\n");
    assert.equal(await exists(join(work, "new.txt")), false);
    assert.equal(await exists(join(work, "newdir")), false);
    assert.equal((await Deno.stat(join(work, "dir/run.sh"))).mode! & 0o111, 0o111);
    assert.deepEqual(await Deno.readFile(join(work, "bin.dat")), BINARY);
    assert.equal(await Deno.readLink(join(work, "link")), "a.txt");
    assert.deepEqual(must(await store.diff(start)), []);
    const labels = must(await store.list()).map((c) => c.label);
    assert.deepEqual(labels.slice(2), ["after the agent's turn", "start"]);
    assert.equal(labels.length, 4);
  });
});

Deno.test("a restore is undone by restoring its before checkpoint", async () => {
  await withTree(async (work, store) => {
    await write(work, "a.txt", "one\n");
    const start = must(await store.checkpoint("start")).id;
    await write(work, "a.txt", "two\n");
    await write(work, "b.txt", "new\n");
    must(await store.checkpoint("turn"));
    const report = must(await store.restore(start));
    assert.equal(await exists(join(work, "b.txt")), false);
    const undo = must(await store.restore(report.before));
    assert.deepEqual(undo.kept, []);
    assert.equal(await read(work, "a.txt"), "two\n");
    assert.equal(await read(work, "b.txt"), "new\n");
  });
});

Deno.test("a path someone else changed since the agent's last checkpoint is kept and reported, unless forced", async () => {
  await withTree(async (work, store) => {
    await write(work, "a.txt", "one\n");
    await write(work, "b.txt", "one\n");
    const start = must(await store.checkpoint("start")).id;
    await write(work, "a.txt", "agent\n");
    await write(work, "b.txt", "agent\n");
    await write(work, "agent_new.txt", "agent\n");
    await write(work, "user_new.txt", "agent\n");
    const turn = must(await store.checkpoint("turn")).id;
    await write(work, "a.txt", "user\n"); // the user edits a file the agent also changed
    await write(work, "user_new.txt", "user\n"); // and a file the agent created
    await write(work, "mine.txt", "user\n"); // and creates one of their own

    const report = must(await store.restore(start, { expected: turn }));
    assert.deepEqual([...report.kept].sort(), ["a.txt", "mine.txt", "user_new.txt"]);
    assert.deepEqual([...report.restored].sort(), ["agent_new.txt", "b.txt"]);
    assert.equal(await read(work, "a.txt"), "user\n");
    assert.equal(await read(work, "b.txt"), "one\n");
    assert.equal(await read(work, "user_new.txt"), "user\n");
    assert.equal(await read(work, "mine.txt"), "user\n");
    assert.equal(await exists(join(work, "agent_new.txt")), false);

    const forced = must(await store.restore(start, { force: true }));
    assert.deepEqual(forced.kept, []);
    assert.equal(await read(work, "a.txt"), "one\n");
    assert.equal(await exists(join(work, "mine.txt")), false);
    // Nothing is lost: the state before the forced restore is a checkpoint.
    must(await store.restore(forced.before));
    assert.equal(await read(work, "a.txt"), "user\n");
    assert.equal(await read(work, "mine.txt"), "user\n");
  });
});

Deno.test("by default the newest checkpoint is what the agent last left", async () => {
  await withTree(async (work, store) => {
    await write(work, "a.txt", "one\n");
    const start = must(await store.checkpoint("start")).id;
    await write(work, "a.txt", "agent\n");
    must(await store.checkpoint("turn"));
    await write(work, "a.txt", "user\n");
    const report = must(await store.restore(start));
    assert.deepEqual(report.kept, ["a.txt"]);
    assert.equal(await read(work, "a.txt"), "user\n");
  });
});

Deno.test("ignored files are neither snapshotted nor touched", async () => {
  await withTree(async (work, store) => {
    await write(work, ".gitignore", "*.log\nbuild/\n");
    await write(work, "a.txt", "one\n");
    const start = must(await store.checkpoint("start")).id;
    await write(work, "out.log", "log\n");
    await Deno.mkdir(join(work, "build"));
    await write(work, "build/x", "x\n");
    await write(work, "a.txt", "two\n");
    must(await store.checkpoint("turn"));
    assert.deepEqual(must(await store.diff(start)), [{ path: "a.txt", change: "modified" }]);
    must(await store.restore(start));
    assert.equal(await read(work, "a.txt"), "one\n");
    assert.equal(await read(work, "out.log"), "log\n");
    assert.equal(await read(work, "build/x"), "x\n");
  });
});

Deno.test("in a git workspace the store leaves its .git, index and status alone", async () => {
  await withTree(async (work, store) => {
    await sh(work, "init", "-q");
    await write(work, ".gitignore", "*.log\n");
    await write(work, "a.txt", "one\n");
    await write(work, "staged.txt", "s\n");
    await sh(work, "add", ".gitignore", "a.txt");
    await sh(work, "commit", "-q", "-m", "first");
    await sh(work, "add", "staged.txt");
    await write(work, "a.txt", "dirty\n");
    await write(work, "untracked.txt", "u\n");
    const status = await sh(work, "status", "--porcelain", "--untracked-files=all");
    const log = await sh(work, "log", "--all", "--oneline");

    const start = must(await store.checkpoint("start")).id;
    await write(work, "a.txt", "agent\n");
    await write(work, "agent.txt", "agent\n");
    must(await store.checkpoint("turn"));
    must(await store.restore(start));

    assert.equal(await read(work, "a.txt"), "dirty\n");
    assert.equal(await exists(join(work, "agent.txt")), false);
    assert.equal(await sh(work, "status", "--porcelain", "--untracked-files=all"), status);
    assert.equal(await sh(work, "log", "--all", "--oneline"), log);
    assert.equal(must(await store.list()).length, 4);
  });
});

Deno.test("an unknown checkpoint is an error, not a throw", async () => {
  await withTree(async (work, store) => {
    await write(work, "a.txt", "one\n");
    must(await store.checkpoint("start"));
    const result = await store.restore("0123456789abcdef0123456789abcdef01234567");
    assert.equal(result.ok, false);
    assert.match(!result.ok ? result.error : "", /no checkpoint "0123456789ab/);
    assert.equal((await store.diff("not an id")).ok, false);
    assert.equal(await read(work, "a.txt"), "one\n");
  });
});

Deno.test("a tree of 2,000 files is checkpointed and restored", async () => {
  await withTree(async (work, store) => {
    for (let d = 0; d < 20; d++) {
      await Deno.mkdir(join(work, `d${d}`));
      for (let f = 0; f < 100; f++) await write(work, `d${d}/f${f}.txt`, `file ${d}/${f}\n`);
    }
    let t = performance.now();
    const start = must(await store.checkpoint("start")).id;
    note(`checkpoint of 2,000 files: ${(performance.now() - t).toFixed(0)} ms`);
    for (let d = 0; d < 20; d++) await write(work, `d${d}/f0.txt`, "changed\n");
    t = performance.now();
    must(await store.checkpoint("turn"));
    note(`second checkpoint (20 changed): ${(performance.now() - t).toFixed(0)} ms`);
    t = performance.now();
    const report = must(await store.restore(start));
    note(`restore (20 paths): ${(performance.now() - t).toFixed(0)} ms`);
    assert.equal(report.restored.length, 20);
    assert.equal(await read(work, "d7/f0.txt"), "file 7/0\n");
  });
});

Deno.test("a git directory inside the work tree is refused", async () => {
  const work = await Deno.makeTempDir({ prefix: "moat-rewind-" });
  try {
    const store = createCheckpointStore({
      gitDir: join(work, ".moat", "store.git"),
      workTree: work,
      git: createDenoGitOps(),
    });
    const result = await store.checkpoint("start");
    assert.match(!result.ok ? result.error : "", /lies in the work tree/);
    assert.equal(await exists(join(work, ".moat")), false);
  } finally {
    await Deno.remove(work, { recursive: true });
  }
});

Deno.test("a restore writes through no symlink to outside the work tree", async () => {
  await withTree(async (work, store) => {
    const outside = await Deno.makeTempDir({ prefix: "moat-rewind-outside-" });
    try {
      await Deno.mkdir(join(work, "dir"));
      await write(work, "dir/f.txt", "inside\n");
      const start = must(await store.checkpoint("start")).id;
      await Deno.remove(join(work, "dir"), { recursive: true });
      await Deno.symlink(outside, join(work, "dir"));
      must(await store.checkpoint("turn"));
      must(await store.restore(start));
      assert.equal((await Deno.lstat(join(work, "dir"))).isDirectory, true);
      assert.equal(await read(work, "dir/f.txt"), "inside\n");
      assert.deepEqual([...Deno.readDirSync(outside)], []);
    } finally {
      await Deno.remove(outside, { recursive: true });
    }
  });
});

Deno.test("a failed git init is tried again on the next call", async () => {
  const root = await Deno.makeTempDir({ prefix: "moat-rewind-" });
  try {
    await Deno.mkdir(join(root, "work"));
    const real = createDenoGitOps();
    let inits = 0;
    const store = createCheckpointStore({
      gitDir: join(root, "store.git"),
      workTree: join(root, "work"),
      git: {
        run: (command) =>
          command.args.includes("init") && inits++ === 0
            ? Promise.resolve({ code: 128, stdout: "", stderr: "fatal: disk full" })
            : real.run(command),
      },
    });
    const first = await store.checkpoint("one");
    assert.ok(!first.ok && first.error.includes("disk full"), JSON.stringify(first));
    must(await store.checkpoint("two"));
    assert.equal(inits, 2);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
