/**
 * Measure 10: the rewind checkpoint of a turn (issue 30) on the 50,000-file tree of measure 5:
 * the first checkpoint of a session (every file hashed into the private git directory), then
 * the per-turn one, taken before a turn's first change after one file changed (git re-hashes
 * only what changed, from its private index's stat data), and the one on the critical path: the
 * tree hashed at the turn's start, then the checkpoint before the first change, which only checks
 * that nothing changed since.
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
    const prepared: number[] = [];
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
        // As a turn runs it: hashing starts with the turn (while the model thinks), and the
        // checkpoint before the first change only records what is hashed.
        await Deno.writeTextFile(marker, `turn ${i} again\n`);
        const ready = await store.prepare();
        if (!ready.ok) throw new Error(ready.error);
        t = performance.now();
        const last = await store.checkpoint("Before turn 3");
        if (!last.ok) throw new Error(last.error);
        prepared.push(performance.now() - t);
        await Deno.remove(marker);
        await Deno.remove(env.path(`checkpoints-${i}.git`), { recursive: true });
      }
    } finally {
      await Deno.remove(marker).catch(() => {});
    }
    const c = summarize(cold);
    const w = summarize(warm);
    const p = summarize(prepared);
    const files = tree.files.toLocaleString("en");
    return [{
      id: 10,
      measure: `rewind checkpoint per turn (${files} files, one changed)`,
      moat: { stat: w, unit: "ms" },
      baselineLabel: "first checkpoint of a session",
      baseline: { stat: c, unit: "ms" },
      compare: ratio(w.median, c.median),
      target: "≤ 1 s per turn",
      met: w.median <= 1000,
    }, {
      id: 10,
      measure: `rewind checkpoint on the critical path (${files} files, hashed at turn start)`,
      moat: { stat: p, unit: "ms" },
      baselineLabel: "not hashed at turn start",
      baseline: { stat: w, unit: "ms" },
      compare: ratio(p.median, w.median),
      target: "≤ 100 ms",
      met: p.median <= 100,
      note:
        `Checkpoints: \`git add --all\` + \`write-tree\` + \`commit-tree\` into a private git ` +
        `directory outside the tree (its own index, no hooks, no user config), taken before a ` +
        `turn's first change and so on the critical path of that call; the per-turn figure is ` +
        `the second checkpoint after one new file, the baseline the session's first (every ` +
        `file hashed). moat hashes the tree when a turn starts, while the model thinks; the ` +
        `second row is what the first change then waits for: \`update-index --refresh\` and ` +
        `\`ls-files --others --exclude-standard\` side by side (nothing changed since the ` +
        `hash: no tracked file differs, no new file; else the full \`add\`), \`write-tree\`, ` +
        `\`commit-tree\`, \`update-ref\`. Turns that only read take none.`,
    }];
  },
};
