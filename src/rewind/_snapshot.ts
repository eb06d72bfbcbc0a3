/**
 * Snapshots of the work tree into the private index, and checkpoints recorded from them.
 *
 * A snapshot is `git add --all` + `write-tree`. Right after the work tree was hashed (a turn's
 * start), the checkpoint before the turn's first change is on that call's critical path and
 * usually finds nothing changed: it then only checks, with two processes side by side, that no
 * tracked file differs from the index (`update-index --refresh`, which re-hashes whatever stat
 * data cannot vouch for, and fails on any difference of content, mode, type or presence) and
 * that there is no new file (`ls-files --others --exclude-standard`, the same ignore rules as
 * `add`), and writes the index's tree as it is. Anything found falls back to the full snapshot,
 * so the tree is always the work tree's as it is now, whatever the in-memory state says.
 */
import { CHAIN_REF, git, type StoreRepo, type StoreResult } from "./_git.ts";

/** What the store remembers between its calls (only ever a hint: every call stays correct). */
export interface SnapshotState {
  /** The last call hashed the work tree (`prepare`): little will have changed since. */
  hashed: boolean;
  /** The chain of checkpoints exists (once it does it never goes away). */
  chain: boolean;
}

/** The work tree's files as a tree object, through the private index. */
export async function snapshot(
  repo: StoreRepo,
  options: { hashed?: boolean } = {},
): Promise<StoreResult<string>> {
  if (options.hashed && await unchanged(repo)) {
    const tree = await git(repo, ["write-tree"]);
    if (tree.ok) return { ok: true, value: tree.stdout.trim() };
  }
  const add = await git(repo, ["add", "--all", "--", "."]);
  if (!add.ok) return add;
  const tree = await git(repo, ["write-tree"]);
  return tree.ok ? { ok: true, value: tree.stdout.trim() } : tree;
}

/** Whether the work tree holds exactly what the private index does (false when unsure). */
async function unchanged(repo: StoreRepo): Promise<boolean> {
  const [tracked, others] = await Promise.all([
    // No --ignore-missing and no -q: a deleted or changed file fails it.
    git(repo, ["update-index", "--refresh"]),
    git(repo, ["ls-files", "-z", "--others", "--exclude-standard"]),
  ]);
  return tracked.ok && tracked.stdout === "" && others.ok && others.stdout === "";
}

/** Records the work tree as a checkpoint labelled `label` at the head of the chain. */
export async function recordCheckpoint(
  repo: StoreRepo,
  state: SnapshotState,
  options: { label: string; hashed?: boolean },
): Promise<StoreResult<{ id: string }>> {
  const tree = await snapshot(repo, { hashed: options.hashed ?? false });
  if (!tree.ok) return tree;
  // Once the chain exists its head is named, not looked up: one process less, and the update
  // below still fails if someone else moved the chain since.
  const parent = state.chain ? CHAIN_REF : await chainHead(repo);
  const commit = await git(
    repo,
    ["commit-tree", tree.value, ...(parent ? ["-p", parent] : []), "-F", "-"],
    { stdin: options.label },
  );
  const id = commit.ok ? commit.stdout.trim() : "";
  const update = commit.ok
    ? await git(repo, ["update-ref", CHAIN_REF, id, ...(parent ? [`${id}^`] : [])])
    : commit;
  state.chain = update.ok; // after a failure the next checkpoint looks the head up again
  if (!update.ok) return update;
  return { ok: true, value: { id } };
}

/** The newest checkpoint, or undefined when there is none yet. */
export async function chainHead(repo: StoreRepo): Promise<string | undefined> {
  const found = await git(repo, ["rev-parse", "--verify", "--quiet", CHAIN_REF]);
  return found.ok ? found.stdout.trim() : undefined;
}
