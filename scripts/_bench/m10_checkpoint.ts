/**
 * Measure 10: the rewind checkpoint of a turn (issue 30) on the 50,000-file tree of measure 5:
 * the first checkpoint of a session (every file hashed into the private git directory), then
 * the per-turn one, taken before a turn's first change after one file changed (git re-hashes
 * only what changed, from its private index's stat data).
 */
import { join } from "node:path";
import { createCheckpointStore } from "../../src/rewind/mod.ts";
import { createDenoGitOps } from "../../src/sys/git.ts";
import type { Measure } from "./measure.ts";
import { summarize } from "./stats.ts";
import { ratio } from "./table.ts";

/** Measure 10. */
export const checkpoint: Measure = {
  id: 10,
  name: "checkpoint",
  title: "rewind checkpoint",
  async run(env, data) {
    const tree = await data.tree();
    const cold: number[] = [];
    const warm: number[] = [];
    const marker = join(tree.dir, "moat-bench-turn.txt");
    try {
      for (let i = 0; i < env.options.runs; i++) {
        const store = createCheckpointStore({
          gitDir: env.path(`checkpoints-${i}.git`),
          workTree: tree.dir,
          git: createDenoGitOps(),
        });
        let t = performance.now();
        const first = await store.checkpoint("Before turn 1");
        if (!first.ok) throw new Error(first.error);
        cold.push(performance.now() - t);
        await Deno.writeTextFile(marker, `turn ${i}\n`);
        t = performance.now();
        const next = await store.checkpoint("Before turn 2");
        if (!next.ok) throw new Error(next.error);
        warm.push(performance.now() - t);
        await Deno.remove(marker);
        await Deno.remove(env.path(`checkpoints-${i}.git`), { recursive: true });
      }
    } finally {
      await Deno.remove(marker).catch(() => {});
    }
    const c = summarize(cold);
    const w = summarize(warm);
    return [{
      id: 10,
      measure: `rewind checkpoint per turn (${tree.files.toLocaleString("en")} files, one changed)`,
      moat: { stat: w, unit: "ms" },
      baselineLabel: "first checkpoint of a session",
      baseline: { stat: c, unit: "ms" },
      compare: ratio(w.median, c.median),
      target: "≤ 1 s per turn",
      met: w.median <= 1000,
      note:
        `Checkpoints: \`git add --all\` + \`write-tree\` + \`commit-tree\` into a private git ` +
        `directory outside the tree (its own index, no hooks, no user config), taken before a ` +
        `turn's first change and so on the critical path of that call; the per-turn figure is ` +
        `the second checkpoint after one new file, the baseline the session's first (every ` +
        `file hashed). Turns that only read take none.`,
    }];
  },
};
