/** Running `git` against the store's private repository, and reading its `-z` raw diffs. */
import type { GitOps, GitResult } from "./git_ops.ts";

/** The private repository: where it lives and which work tree it snapshots. */
export interface StoreRepo {
  git: GitOps;
  gitDir: string;
  workTree: string;
}

/** A `git` call's outcome: its output, or a sentence saying what failed. */
export type GitOutcome = { ok: true; stdout: string } | { ok: false; error: string };

/** An expected failure of the store, as a sentence. */
export type StoreResult<T> = { ok: true; value: T } | { ok: false; error: string };

/** Where the chain of checkpoints is kept in the private repository. */
export const CHAIN_REF = "refs/moat/checkpoints";

/** The private index, and a second one for building the tree a restore writes. */
const INDEX = "moat-index";
export const BUILD_INDEX = "moat-build-index";

/** Settings for every call: no hooks, no line-ending or signing surprises, content as is. */
const CONFIG = [
  "core.hooksPath=/dev/null",
  "core.autocrlf=false",
  "core.safecrlf=false",
  "core.fileMode=true",
  "core.symlinks=true",
  "core.quotePath=false",
  "core.fsmonitor=false",
  "core.bare=false",
  "commit.gpgSign=false",
  "gc.auto=0",
];

/** Runs `git` on the private repository (its own index unless `index` names another). */
export async function git(
  repo: StoreRepo,
  args: string[],
  options: { stdin?: string; index?: string } = {},
): Promise<GitOutcome> {
  const result = await repo.git.run({
    args: [
      ...CONFIG.flatMap((c) => ["-c", c]),
      `--git-dir=${repo.gitDir}`,
      `--work-tree=${repo.workTree}`,
      ...args,
    ],
    env: {
      GIT_INDEX_FILE: `${repo.gitDir}/${options.index ?? INDEX}`,
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_CONFIG_GLOBAL: "/dev/null",
      GIT_AUTHOR_NAME: "moat",
      GIT_AUTHOR_EMAIL: "moat@localhost",
      GIT_COMMITTER_NAME: "moat",
      GIT_COMMITTER_EMAIL: "moat@localhost",
      GIT_TERMINAL_PROMPT: "0",
      LC_ALL: "C",
    },
    cwd: repo.workTree,
    ...(options.stdin === undefined ? {} : { stdin: options.stdin }),
  });
  return result.code === 0
    ? { ok: true, stdout: result.stdout }
    : { ok: false, error: failure(args, result) };
}

function failure(args: string[], result: GitResult): string {
  const detail = result.stderr.trim().split("\n").slice(-3).join(" ") || `exit code ${result.code}`;
  return `Checkpoint store: "git ${args[0]}" failed: ${detail}`;
}

/** One path that differs between two trees. */
export interface RawChange {
  path: string;
  /** "A" added, "D" deleted, "M" modified, "T" type changed (e.g. file to symlink). */
  status: string;
}

/** Reads `git diff-tree -r -z --raw` output. */
export function parseRawDiff(stdout: string): RawChange[] {
  const parts = stdout.split("\0");
  const changes: RawChange[] = [];
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const meta = parts[i]!.replace(/^:/, "").split(" ");
    changes.push({ path: parts[i + 1]!, status: meta[4]?.charAt(0) ?? "M" });
  }
  return changes;
}
