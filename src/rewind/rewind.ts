/**
 * Rewinding to before a turn: what it would change (`planRewind`) and doing it (`rewindTo`).
 * A path is left alone when someone other than the agent changed it since — after the last
 * turn, or between two turns from the chosen one on — unless forced; a path outside the write
 * grants is never touched. The rewind is itself an entry of the index: rewinding to it undoes it.
 */
import type { ChangedPath, CheckpointStore, RestoreReport, StoreResult } from "./store.ts";
import { type RewindFs, type TurnEntry, writeTurns } from "./turn_index.ts";

/** How to rewind. */
export interface RewindOptions {
  /** Overwrite paths someone else changed too. */
  force?: boolean;
  /** Whether a path (relative to the work tree) may be touched: within the write grants. */
  allow?: (path: string) => boolean;
}

/** What rewinding to before turn `turn` (1-based) would do. */
export interface RewindPlan {
  turn: number;
  entry: TurnEntry;
  /** Paths it would bring back. */
  restore: ChangedPath[];
  /** Paths someone else changed: left as they are (unless forced). */
  kept: string[];
  /** Paths outside the write grants: never touched. */
  outside: string[];
}

/** The entry of turn `turn` (1-based), or why there is none. */
function entryOf(turns: readonly TurnEntry[], turn: number): StoreResult<TurnEntry> {
  const entry = Number.isInteger(turn) ? turns[turn - 1] : undefined;
  if (entry !== undefined) return { ok: true, value: entry };
  return {
    ok: false,
    error: turns.length === 0
      ? "This session has no checkpoints yet: no turn changed a file"
      : `No turn ${turn}: pick one of 1 to ${turns.length} (list them with --list)`,
  };
}

/** The paths someone other than the agent changed since turn `turn` began. */
async function othersSince(
  store: CheckpointStore,
  turns: readonly TurnEntry[],
  turn: number,
): Promise<StoreResult<Set<string>>> {
  const others = new Set<string>();
  for (let i = turn - 1; i + 1 < turns.length; i++) {
    const after = turns[i]!.after;
    if (after === undefined) continue;
    const gap = await store.between(after, turns[i + 1]!.before);
    if (!gap.ok) return gap;
    for (const c of gap.value) others.add(c.path);
  }
  const last = turns.at(-1)?.after;
  if (last !== undefined) {
    const since = await store.diff(last);
    if (!since.ok) return since;
    for (const c of since.value) others.add(c.path);
  }
  return { ok: true, value: others };
}

/** What rewinding to before turn `turn` would change, keep and leave outside. */
export async function planRewind(
  store: CheckpointStore,
  turns: readonly TurnEntry[],
  turn: number,
  options: RewindOptions = {},
): Promise<StoreResult<RewindPlan>> {
  const entry = entryOf(turns, turn);
  if (!entry.ok) return entry;
  const wanted = await store.diff(entry.value.before);
  if (!wanted.ok) return wanted;
  const others = await othersSince(store, turns, turn);
  if (!others.ok) return others;
  const allow = options.allow ?? (() => true);
  const inside = wanted.value.filter((c) => allow(c.path));
  const kept = options.force ? [] : inside.filter((c) => others.value.has(c.path));
  return {
    ok: true,
    value: {
      turn,
      entry: entry.value,
      restore: inside.filter((c) => !kept.includes(c)),
      kept: kept.map((c) => c.path),
      outside: wanted.value.filter((c) => !allow(c.path)).map((c) => c.path),
    },
  };
}

/** Rewinds to before turn `turn` and records the rewind in the index. */
export async function rewindTo(
  store: CheckpointStore,
  turns: readonly TurnEntry[],
  turn: number,
  options: RewindOptions & { fs: RewindFs; index: string; now: () => number },
): Promise<StoreResult<RestoreReport & { turns: TurnEntry[] }>> {
  const entry = entryOf(turns, turn);
  if (!entry.ok) return entry;
  const others = await othersSince(store, turns, turn);
  if (!others.ok) return others;
  const last = turns.at(-1)?.after;
  const report = await store.restore(entry.value.before, {
    ...(last === undefined ? {} : { expected: last }),
    others: [...others.value],
    ...(options.force ? { force: true } : {}),
    ...(options.allow ? { allow: options.allow } : {}),
  });
  if (!report.ok) return report;
  const label = entry.value.kind === "rewind"
    ? `undo of: ${entry.value.prompt}`
    : entry.value.prompt;
  const rewind: TurnEntry = {
    kind: "rewind",
    prompt: `Rewound to before turn ${turn} (${label})`,
    time: options.now(),
    before: report.value.before,
    after: report.value.after,
    files: report.value.restored,
  };
  const next = [...turns, rewind];
  await writeTurns(options.fs, options.index, next);
  return { ok: true, value: { ...report.value, turns: next } };
}

/** The turn number that undoes the newest rewind, or undefined when there was none. */
export function undoTurn(turns: readonly TurnEntry[]): number | undefined {
  for (let i = turns.length - 1; i >= 0; i--) if (turns[i]!.kind === "rewind") return i + 1;
  return undefined;
}
