/**
 * Measure 5: moat's grep vs ripgrep on a 50,000-file tree with a .gitignore; equal match sets.
 * Two rows per search: the tool as the bubblewrap host runs it (opens confined by the view) and
 * as it runs with `--sandbox=off` (every open re-checked), each against ripgrep in the same run.
 */
import type { BenchEnv } from "./env.ts";
import type { GeneratedTree } from "./gen.ts";
import type { Measure } from "./measure.ts";
import { findRipgrep } from "./ripgrep.ts";
import { timeCommand } from "./run_cmd.ts";
import { summarize } from "./stats.ts";
import { ratio, type Row } from "./table.ts";

interface GrepResult {
  ms: number;
  matches: string[];
}

/** The sandbox modes measured, as the job's `mode` param and the row label. */
const MODES = [
  { mode: "bwrap", label: "sandbox: bwrap" },
  { mode: "off", label: "sandbox: off" },
] as const;

/** ripgrep flags that make its file set equal to moat's grep: hidden files included, .gitignore
 * honoured without a .git directory, and no ignore files from outside the tree or the user. */
const RG_FLAGS = [
  "--line-number",
  "--with-filename",
  "--no-heading",
  "--color=never",
  "--hidden",
  "--no-require-git",
  "--no-ignore-parent",
  "--no-ignore-global",
];

async function rg(env: BenchEnv, tree: GeneratedTree, pattern: string, literal: boolean) {
  const args = [...RG_FLAGS, ...(literal ? ["--fixed-strings"] : []), "-e", pattern, "."];
  const r = await timeCommand(env, "rg", args, { cwd: tree.dir });
  if (r.code > 1) throw new Error(`rg failed (code ${r.code}): ${r.stderr}`);
  const matches: string[] = [];
  for (const line of r.stdout.split("\n")) {
    const m = line.match(/^(?:\.\/)?(.+?):(\d+):/);
    if (m) matches.push(`${m[1]}:${m[2]}`);
  }
  return { ms: r.ms, matches };
}

function compareSets(moat: string[], ref: string[]): string | null {
  const a = new Set(moat);
  const b = new Set(ref);
  const onlyMoat = [...a].filter((x) => !b.has(x));
  const onlyRg = [...b].filter((x) => !a.has(x));
  if (onlyMoat.length === 0 && onlyRg.length === 0 && a.size === moat.length) return null;
  return `match sets differ: moat ${moat.length} (${a.size} distinct), rg ${ref.length}; only ` +
    `moat: ${onlyMoat.slice(0, 3).join(", ") || "none"}; only rg: ${
      onlyRg.slice(0, 3).join(", ") || "none"
    }`;
}

/** Measure 5. */
export const grep: Measure = {
  id: 5,
  name: "grep",
  title: "grep",
  async run(env, data) {
    const tree = await data.tree();
    const rgStatus = await findRipgrep((m) => env.log(m));
    const cases = [
      { label: `rare literal`, pattern: tree.rareLiteral, literal: true },
      { label: `common regex \`${tree.commonRegex}\``, pattern: tree.commonRegex, literal: false },
    ];
    const rows: Row[] = [];
    for (const c of cases) {
      const times: Record<string, number[]> = { bwrap: [], off: [] };
      const base: number[] = [];
      let count = 0;
      for (let i = 0; i < env.options.runs; i++) {
        let ref: GrepResult | undefined;
        if (rgStatus.available) {
          ref = await rg(env, tree, c.pattern, c.literal);
          base.push(ref.ms);
        }
        for (const { mode } of MODES) {
          const { result } = await env.job<GrepResult>("grep", {
            cwd: tree.dir,
            spillDir: env.path("grep-spill"),
            mode,
            pattern: c.pattern,
            literal: c.literal,
          }, { timeoutMs: 300_000 });
          (times[mode] as number[]).push(result.ms);
          count = result.matches.length;
          if (count === 0) throw new Error(`moat's grep found no match for ${c.pattern}`);
          const diff = ref === undefined ? null : compareSets(result.matches, ref.matches);
          if (diff !== null) throw new Error(`${c.label} (${mode}): ${diff}`);
        }
      }
      const b = base.length > 0 ? summarize(base) : undefined;
      for (const { mode, label } of MODES) {
        const t = summarize(times[mode] as number[]);
        rows.push({
          id: 5,
          measure: `grep (${label}): ${c.label} (${count.toLocaleString("en")} match${
            count === 1 ? "" : "es"
          })`,
          moat: { stat: t, unit: "ms" },
          ...(b === undefined
            ? { baselineLabel: "rg not installed" }
            : { baseline: { stat: b, unit: "ms" }, baselineLabel: "ripgrep" }),
          ...(b === undefined ? {} : { compare: ratio(t.median, b.median) }),
          target: "≤ 3× ripgrep",
          ...(b === undefined ? {} : { met: t.median <= 3 * b.median }),
          ...(rows.length === 0 ? { note: note(tree, rgStatus) } : {}),
        });
      }
    }
    return rows;
  },
};

function note(tree: GeneratedTree, rgStatus: { available: boolean; version?: string }): string {
  return `Tree: ${tree.files.toLocaleString("en")} files, ${
    (tree.totalBytes / 1024 ** 2).toFixed(0)
  } MB, ${tree.ignoredFiles.toLocaleString("en")} excluded by root and nested .gitignore files, ` +
    `${tree.binaryFiles} binary files (skipped), hidden files included. moat: the grep tool's ` +
    `execute with limits raised so every match is listed, timed in a Worker started as the tool ` +
    `host starts its Worker — the permissions of the default grants (read: the tree), the file ` +
    `operations of the sandbox mode, helper Workers (cores − 1) started by its parent — in a ` +
    `fresh process per run. bwrap: opens confined by bubblewrap's view, so no per-file race ` +
    `checks (the process itself is not in a bubblewrap namespace); off: every open re-checked ` +
    `(lstat, fstat, realpath, lstat). ${
      rgStatus.available
        ? `ripgrep (${rgStatus.version}, all cores, \`rg ${RG_FLAGS.join(" ")}\`) timed from ` +
          `spawn. Match sets (path:line) asserted equal on every run.`
        : "ripgrep (rg) is not installed and could not be installed: no baseline, no " +
          "match-set check."
    }`;
}
