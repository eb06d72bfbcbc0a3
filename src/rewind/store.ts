/**
 * The checkpoint store of `/rewind` (issue 30): snapshots of a work tree's files (tracked and
 * untracked-but-not-ignored, by the work tree's own .gitignore files) kept as commits in a private
 * git directory outside the workspace, and restored without losing anything. It never reads or
 * writes the workspace's own `.git` or index: every call names the private `--git-dir`, a private
 * `GIT_INDEX_FILE`, no hooks and no global or system config.
 *
 * Restoring never loses data: it first records a checkpoint of the current state (`before`, so
 * the restore can be undone by restoring it), and it leaves alone every path someone other than
 * the agent changed. "What the agent last left" is the `expected` checkpoint — the one taken
 * after the agent's last change; by default the newest checkpoint in the store. A path whose
 * current content differs from `expected` was changed by someone else: it is kept as it is and
 * reported, unless `force`. This covers files created after the checkpoint too: they are removed
 * only when they still are as in `expected`.
 */
import {
  BUILD_INDEX,
  CHAIN_REF,
  git,
  type GitOutcome,
  parseRawDiff,
  type StoreRepo,
  type StoreResult,
} from "./_git.ts";
import { chainHead, recordCheckpoint, snapshot, type SnapshotState } from "./_snapshot.ts";
import type { GitOps } from "./git_ops.ts";
import { isAbsolute, relative, resolve as resolvePath, sep } from "node:path";

/** Where the store keeps its repository and which work tree it snapshots. */
export interface CheckpointStoreOptions {
  /** The private git directory (created on first use); must lie outside `workTree`. */
  gitDir: string;
  /** The directory snapshotted and restored; it need not be a git repository. */
  workTree: string;
  git: GitOps;
}

/** One recorded checkpoint. */
export interface Checkpoint {
  /** The commit id in the private repository. */
  id: string;
  label: string;
  /** When it was taken, in milliseconds since the epoch (second precision). */
  time: number;
}

/** A path that differs between a checkpoint and the work tree now. */
export interface ChangedPath {
  path: string;
  /** "added": created since the checkpoint; "deleted": gone since; "modified": content, mode or type. */
  change: "added" | "deleted" | "modified";
}

/** What restoring did. */
export interface RestoreReport {
  /** The checkpoint of the state just before the restore: restore it to undo. */
  before: string;
  /** The checkpoint of the state the restore left. */
  after: string;
  /** Paths brought back to the checkpoint (written, or removed). */
  restored: string[];
  /** Paths changed by someone else since `expected`, left as they are (empty with `force`). */
  kept: string[];
  /** Paths `allow` refused (outside the write grants), left as they are even with `force`. */
  outside: string[];
}

export type { StoreResult };

/** How to restore. */
export interface RestoreOptions {
  /** Overwrite (or remove) paths changed by someone else too. */
  force?: boolean;
  /** The checkpoint taken after the agent's last change; the newest checkpoint when absent. */
  expected?: string;
  /** More paths changed by someone else (e.g. between two turns), kept unless `force`. */
  others?: readonly string[];
  /** Whether a path may be touched at all (the write grants); every path when absent. */
  allow?: (path: string) => boolean;
}

/** Checkpoints of one work tree. */
export interface CheckpointStore {
  /** Records the work tree's files now, under `label`. */
  checkpoint(label: string): Promise<StoreResult<{ id: string }>>;
  /**
   * Hashes the work tree into the private index and objects without recording a checkpoint, so
   * the next `checkpoint` only hashes what changed since (start it early, off the critical path).
   */
  prepare(): Promise<StoreResult<void>>;
  /** Every checkpoint, newest first. */
  list(): Promise<StoreResult<Checkpoint[]>>;
  /** The paths that differ between checkpoint `id` and the work tree now, sorted. */
  diff(id: string): Promise<StoreResult<ChangedPath[]>>;
  /** The paths that differ between checkpoints `from` and `to`, sorted. */
  between(from: string, to: string): Promise<StoreResult<ChangedPath[]>>;
  /** Brings the work tree's files back to checkpoint `id` (see the module comment). */
  restore(id: string, options?: RestoreOptions): Promise<StoreResult<RestoreReport>>;
}

/** Creates the store; nothing runs until the first call. Calls run one at a time. */
export function createCheckpointStore(options: CheckpointStoreOptions): CheckpointStore {
  const repo: StoreRepo = { git: options.git, gitDir: options.gitDir, workTree: options.workTree };
  const inside = relative(resolvePath(options.workTree), resolvePath(options.gitDir));
  const misplaced = inside === "" || !(inside.split(sep)[0] === ".." || isAbsolute(inside));
  let ready: Promise<GitOutcome> | undefined;
  let queue: Promise<unknown> = Promise.resolve();
  const state: SnapshotState = { hashed: false, chain: false };
  /** Runs `op` after the calls before it; `hashed` says whether the call before was a prepare. */
  const serial = <T>(op: (hashed: boolean) => Promise<StoreResult<T>>) => {
    const run = queue.then(async (): Promise<StoreResult<T>> => {
      const hashed = state.hashed;
      state.hashed = false;
      if (misplaced) {
        return {
          ok: false,
          error: `Checkpoint store: its git directory "${options.gitDir}" lies in the work tree ` +
            `"${options.workTree}": keep it outside the workspace`,
        };
      }
      ready ??= git(repo, ["init", "--quiet"]);
      const init = await ready;
      if (!init.ok) {
        ready = undefined; // a later call tries again
        return init;
      }
      return await op(hashed);
    });
    queue = run.catch(() => {});
    return run;
  };
  return {
    checkpoint: (label) => serial((hashed) => recordCheckpoint(repo, state, { label, hashed })),
    prepare: () =>
      serial(async () => {
        const tree = await snapshot(repo);
        if (!tree.ok) return tree;
        state.chain ||= await chainHead(repo) !== undefined;
        state.hashed = true;
        return { ok: true, value: undefined };
      }),
    list: () => serial(() => list(repo)),
    diff: (id) => serial(() => diff(repo, id)),
    between: (from, to) => serial(() => between(repo, from, to)),
    restore: (id, opts = {}) => serial(() => restore(repo, state, id, opts)),
  };
}

async function list(repo: StoreRepo): Promise<StoreResult<Checkpoint[]>> {
  if (!(await chainHead(repo))) return { ok: true, value: [] };
  const log = await git(repo, ["log", "--format=%H%x1f%ct%x1f%B%x1e", CHAIN_REF]);
  if (!log.ok) return log;
  const value = log.stdout.split("\x1e").map((r) => r.replace(/^\n/, "")).filter((r) => r)
    .map((r) => {
      const [id = "", time = "0", label = ""] = r.split("\x1f");
      return { id, time: Number(time) * 1000, label: label.replace(/\n+$/, "") };
    });
  return { ok: true, value };
}

/** The full id of checkpoint `id`, when it is one of this store's. */
async function resolve(repo: StoreRepo, id: string): Promise<StoreResult<string>> {
  const unknown = {
    ok: false as const,
    error: `Checkpoint store: no checkpoint "${id}": list the checkpoints to pick one`,
  };
  if (!/^[0-9a-f]{4,64}$/.test(id)) return unknown;
  const full = await git(repo, ["rev-parse", "--verify", "--quiet", `${id}^{commit}`]);
  if (!full.ok) return unknown;
  const commit = full.stdout.trim();
  const chain = await git(repo, ["merge-base", "--is-ancestor", commit, CHAIN_REF]);
  return chain.ok ? { ok: true, value: commit } : unknown;
}

async function changes(repo: StoreRepo, from: string, to: string) {
  const out = await git(repo, ["diff-tree", "-r", "-z", "--raw", "--no-renames", from, to]);
  return out.ok ? { ok: true as const, value: parseRawDiff(out.stdout) } : out;
}

async function diff(repo: StoreRepo, id: string): Promise<StoreResult<ChangedPath[]>> {
  const commit = await resolve(repo, id);
  if (!commit.ok) return commit;
  const tree = await snapshot(repo);
  if (!tree.ok) return tree;
  return changedPaths(repo, commit.value, tree.value);
}

async function between(
  repo: StoreRepo,
  from: string,
  to: string,
): Promise<StoreResult<ChangedPath[]>> {
  const a = await resolve(repo, from);
  if (!a.ok) return a;
  const b = await resolve(repo, to);
  if (!b.ok) return b;
  return changedPaths(repo, a.value, b.value);
}

async function changedPaths(
  repo: StoreRepo,
  from: string,
  to: string,
): Promise<StoreResult<ChangedPath[]>> {
  const found = await changes(repo, from, to);
  if (!found.ok) return found;
  const value = found.value.map((c): ChangedPath => ({
    path: c.path,
    change: c.status === "A" ? "added" : c.status === "D" ? "deleted" : "modified",
  }));
  return {
    ok: true,
    value: value.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)),
  };
}

async function restore(
  repo: StoreRepo,
  state: SnapshotState,
  id: string,
  options: RestoreOptions,
): Promise<StoreResult<RestoreReport>> {
  const target = await resolve(repo, id);
  if (!target.ok) return target;
  const expected = options.expected === undefined
    ? { ok: true as const, value: await chainHead(repo) ?? target.value }
    : await resolve(repo, options.expected);
  if (!expected.ok) return expected;
  const before = await recordCheckpoint(repo, state, {
    label: `Before restoring ${target.value.slice(0, 12)}`,
  });
  if (!before.ok) return before;
  const now = before.value.id;
  const wanted = await changes(repo, now, target.value);
  const touched = await changes(repo, expected.value, now);
  if (!wanted.ok) return wanted;
  if (!touched.ok) return touched;
  const others = new Set(
    options.force ? [] : [...touched.value.map((c) => c.path), ...(options.others ?? [])],
  );
  const allow = options.allow ?? (() => true);
  const outside = wanted.value.filter((c) => !allow(c.path)).map((c) => c.path);
  const inside = wanted.value.filter((c) => allow(c.path));
  const kept = inside.filter((c) => others.has(c.path)).map((c) => c.path);
  const restored = inside.filter((c) => !others.has(c.path)).map((c) => c.path);
  if (restored.length > 0) {
    const tree = await buildTree(repo, target.value, now, [...kept, ...outside]);
    if (!tree.ok) return tree;
    const update = await git(repo, ["read-tree", "-m", "-u", now, tree.value]);
    if (!update.ok) return update;
  }
  const after = await recordCheckpoint(repo, state, {
    label: `Restored ${target.value.slice(0, 12)}`,
  });
  if (!after.ok) return after;
  return { ok: true, value: { before: now, after: after.value.id, restored, kept, outside } };
}

/** The tree of `target` with each of `keep` as it is in `now` (absent there: absent). */
async function buildTree(
  repo: StoreRepo,
  target: string,
  now: string,
  keep: string[],
): Promise<StoreResult<string>> {
  const index = { index: BUILD_INDEX };
  const read = await git(repo, ["read-tree", target], index);
  if (!read.ok) return read;
  if (keep.length > 0) {
    const current = await git(repo, ["ls-tree", "-r", "-z", "--full-tree", now, "--", ...keep]);
    if (!current.ok) return current;
    const present = new Set<string>();
    const lines: string[] = [];
    for (const entry of current.stdout.split("\0").filter((e) => e)) {
      const [meta = "", path = ""] = entry.split("\t");
      const [mode, , object] = meta.split(" ");
      present.add(path);
      lines.push(`${mode} ${object}\t${path}`);
    }
    for (const path of keep) if (!present.has(path)) lines.push(`0 ${"0".repeat(40)}\t${path}`);
    const info = await git(repo, ["update-index", "-z", "--index-info"], {
      ...index,
      stdin: lines.map((l) => `${l}\0`).join(""),
    });
    if (!info.ok) return info;
  }
  const tree = await git(repo, ["write-tree"], index);
  return tree.ok ? { ok: true, value: tree.stdout.trim() } : tree;
}
