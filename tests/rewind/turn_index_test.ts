/** The rewind index next to a session, and its removal with the session. */
import assert from "node:assert/strict";
import { join } from "node:path";
import { pruneOrphans, readTurns, rewindPaths, writeTurns } from "../../src/rewind/mod.ts";
import { createDenoRewindFs } from "../../src/sys/rewind_fs.ts";

const fs = createDenoRewindFs();

Deno.test("a session's rewind directory is removed once its session file is gone", async () => {
  const dir = await Deno.makeTempDir({ prefix: "moat-rewind-index-" });
  try {
    for (const id of ["kept", "gone"]) {
      await Deno.writeTextFile(join(dir, `${id}.jsonl`), "{}\n");
      await writeTurns(fs, rewindPaths(join(dir, `${id}.jsonl`)).index, []);
    }
    await Deno.remove(join(dir, "gone.jsonl"));
    assert.deepEqual(await pruneOrphans(fs, dir), ["gone.rewind"]);
    assert.deepEqual((await fs.listNames(dir))?.sort(), ["kept.jsonl", "kept.rewind"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a broken rewind index is an error naming the file, not a throw", async () => {
  const dir = await Deno.makeTempDir({ prefix: "moat-rewind-index-" });
  try {
    const { index } = rewindPaths(join(dir, "s.jsonl"));
    assert.deepEqual(await readTurns(fs, index), { ok: true, turns: [] });
    await fs.writeTextFile(index, "{not json");
    const read = await readTurns(fs, index);
    assert.ok(!read.ok && read.error.includes(index));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
