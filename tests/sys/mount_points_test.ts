import assert from "node:assert/strict";
import { join } from "node:path";
import {
  createDenoMountPointOps,
  REMOVER_SCRIPT,
  removeUnusedPlaceholders,
} from "../../src/sys/mount_points.ts";
import type { MountPointOps } from "../../src/sandbox/ops.ts";

/** The names in `dir`, sorted. */
function names(dir: string): string[] {
  return [...Deno.readDirSync(dir)].map((e) => e.name).sort();
}

/**
 * Placeholders in `dir` (recorded with `remover`) that the remover must keep or remove: one held
 * by another run, two written to, one touched, one swapped for a symlink, one gone. `check`
 * (after the remover's end and the other run's release) asserts what is left.
 */
async function removerScenario(
  dir: string,
  ops: MountPointOps,
  record: (path: string) => void,
): Promise<{ release: () => void; check: () => Promise<void> }> {
  const path = (name: string) => join(dir, name);
  const placeholders = {
    file: "file",
    dir: "dir",
    held: "dir",
    written: "file",
    filled: "dir",
    unmarked: "file",
    swapped: "file",
    missing: "dir",
  } as const;
  for (const [name, kind] of Object.entries(placeholders)) {
    record(path(name));
    assert.ok(ops.create(path(name), kind), name);
  }
  record(path("never-made"));
  // Another run holds one (a shared lock of its own).
  const other = ops.hold(path("held"));
  assert.ok(other !== undefined);
  // Someone wrote into two, touched one, swapped one for a symlink to a placeholder elsewhere.
  await Deno.writeTextFile(path("written"), "mine\n");
  await Deno.writeTextFile(join(path("filled"), "x"), "");
  await Deno.utime(path("unmarked"), 1000, 1000);
  await Deno.remove(path("swapped"));
  await Deno.mkdir(path("elsewhere"));
  assert.ok(ops.create(join(path("elsewhere"), "target"), "file"));
  await Deno.symlink(join(path("elsewhere"), "target"), path("swapped"));
  await Deno.remove(path("missing"));
  return {
    release: () => other.release(),
    async check() {
      assert.deepEqual(names(dir), [
        "elsewhere",
        "filled",
        "held",
        "swapped",
        "unmarked",
        "written",
      ]);
      assert.deepEqual(names(path("elsewhere")), ["target"]);
      assert.equal(await Deno.readTextFile(path("written")), "mine\n");
    },
  };
}

Deno.test("close() removes only unused, still-marked, still-empty placeholders, and never a symlink", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const ops = createDenoMountPointOps();
    const remover = ops.startRemover();
    assert.ok(remover !== undefined);
    const scenario = await removerScenario(dir, ops, (path) => assert.ok(remover.record(path)));
    await remover.close();
    scenario.release();
    await scenario.check();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the remover alone (moat killed before close) removes only unused, still-marked, still-empty placeholders", async () => {
  const dir = await Deno.makeTempDir();
  const ws = join(dir, "ws");
  await Deno.mkdir(ws);
  try {
    const ops = createDenoMountPointOps();
    const list = join(dir, "list");
    await Deno.writeTextFile(list, "");
    const scenario = await removerScenario(
      ws,
      ops,
      (path) => Deno.writeTextFileSync(list, `${path}\n`, { append: true }),
    );
    const mark = join(dir, "mark");
    await Deno.writeTextFile(mark, "");
    await Deno.utime(mark, 0, 0);
    const out = await new Deno.Command("bash", {
      args: ["-c", REMOVER_SCRIPT, "moat-placeholders", list, mark],
      stdin: "null",
    }).output();
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
    scenario.release();
    await scenario.check();
    assert.deepEqual(names(dir), ["ws"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

function isFile(path: string): boolean {
  try {
    return Deno.statSync(path).isFile;
  } catch {
    return false;
  }
}

Deno.test("the remover forks no program but flock, rm and rmdir (its checks are bash's own)", async () => {
  const dir = await Deno.makeTempDir();
  try {
    // A PATH of these three alone: a check that ran another program would keep everything.
    const bin = join(dir, "bin");
    await Deno.mkdir(bin);
    for (const program of ["flock", "rm", "rmdir"]) {
      const found = ["/usr/bin", "/bin"].map((d) => join(d, program)).find(isFile);
      assert.ok(found !== undefined, program);
      await Deno.symlink(found, join(bin, program));
    }
    const ws = join(dir, "ws");
    await Deno.mkdir(ws);
    const ops = createDenoMountPointOps();
    for (const [name, kind] of [["a", "dir"], ["b", "file"]] as const) {
      assert.ok(ops.create(join(ws, name), kind));
    }
    const list = join(dir, "list");
    await Deno.writeTextFile(list, `${join(ws, "a")}\n${join(ws, "b")}\n`);
    const mark = join(dir, "mark");
    await Deno.writeTextFile(mark, "");
    await Deno.utime(mark, 0, 0);
    const out = await new Deno.Command("/bin/bash", {
      args: ["-c", REMOVER_SCRIPT, "moat-placeholders", list, mark],
      clearEnv: true,
      env: { PATH: bin },
      stdin: "null",
    }).output();
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
    assert.deepEqual(names(ws), []);
    // The list and the mark go too.
    assert.deepEqual(names(dir), ["bin", "ws"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("hold() waits for the mark of an empty entry made moments ago: another run's placeholder in the making", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = join(dir, ".idea");
    await Deno.mkdir(path);
    // The other run marks it only once this one locked it (as if preempted before its mark).
    const marker = new Deno.Command("bash", {
      args: [
        "-c",
        'while flock -n -x "$1" true; do sleep 0.01; done; touch -d @0 "$1"',
        "marker",
        path,
      ],
      stdin: "null",
    }).spawn();
    const ops = createDenoMountPointOps({ markWaitMs: 30_000 });
    const held = ops.hold(path);
    // Not waited for: the other run would wait for this one's lock forever.
    if (held === undefined) marker.kill("SIGKILL");
    const status = await marker.status;
    assert.ok(held !== undefined, "held once marked");
    assert.equal(status.code, 0);
    held.release();
    // An empty entry not made moments ago is somebody's own: not waited for, not held.
    await Deno.utime(path, 1000, 1000);
    assert.equal(ops.hold(path), undefined);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/** A directory holding a link to bash alone: a PATH on which no other program is found. */
async function bashOnly(dir: string): Promise<string> {
  const bin = join(dir, "bin");
  await Deno.mkdir(bin);
  const bash = ["/usr/bin/bash", "/bin/bash"].find(isFile);
  assert.ok(bash !== undefined);
  await Deno.symlink(bash, join(bin, "bash"));
  return bin;
}

Deno.test("close() removes the placeholders in moat's own process: no flock, rm or rmdir is run", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const ws = join(dir, "ws");
    const tmp = join(dir, "tmp");
    await Deno.mkdir(ws);
    await Deno.mkdir(tmp);
    // The remover's PATH is moat's: with bash alone on it, only moat's own calls can remove.
    const moat = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", new URL("./_placeholders_close_entry.ts", import.meta.url).pathname, ws],
      clearEnv: true,
      env: { PATH: await bashOnly(dir), TMPDIR: tmp, HOME: Deno.env.get("HOME") ?? dir },
      stdout: "null",
      stderr: "piped",
    }).output();
    assert.equal(moat.code, 0, new TextDecoder().decode(moat.stderr));
    assert.deepEqual(names(ws), []);
    // The remover's list and mark go too.
    assert.deepEqual(names(tmp), []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the remover runs no program once moat has removed its list and mark", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const out = await new Deno.Command(join(await bashOnly(dir), "bash"), {
      args: ["-c", REMOVER_SCRIPT, "moat-placeholders", join(dir, "list"), join(dir, "mark")],
      clearEnv: true,
      env: { PATH: join(dir, "bin") },
      stdin: "null",
    }).output();
    assert.equal(out.code, 0);
    // A program it tried to run would be "command not found" here.
    assert.equal(new TextDecoder().decode(out.stderr), "");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("removeUnusedPlaceholders() names those locked elsewhere, for the remover to look at again", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const ops = createDenoMountPointOps();
    const paths = ["a", "b", "c"].map((n) => join(dir, n));
    for (const path of paths) assert.ok(ops.create(path, "dir"));
    // Locked elsewhere: another run, or a process of moat's between fork and exec.
    const first = ops.hold(paths[0]!);
    const last = ops.hold(paths[2]!);
    assert.ok(first !== undefined && last !== undefined);
    assert.deepEqual(removeUnusedPlaceholders(paths), [paths[0], paths[2]]);
    assert.deepEqual(names(dir), ["a", "c"]);
    first.release();
    last.release();
    assert.deepEqual(removeUnusedPlaceholders(paths), []);
    assert.deepEqual(names(dir), []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
