/**
 * Deno implementation of the sandbox's MountPointOps: placeholders made with O_EXCL / mkdir and
 * marked by a modification time of 0, shared flock(2) locks held by moat's own descriptors (the
 * kernel drops them when moat dies), and the remover: a bash process in a session of its own that
 * waits for the end of its standard input and then removes each recorded path that is still an
 * unused placeholder, under an exclusive lock.
 */
import type { HeldPlaceholder, MountPointOps, PlaceholderRemover } from "../sandbox/ops.ts";
import { startAfterMoat } from "./_after_moat.ts";

/**
 * The remover (bash): `$1` is the list file, one path a line, in the order recorded; `$2` a
 * reference file with a modification time of 0 (the mark). After the end of stdin it removes
 * them last first (a placeholder directory after what was made in it), each only while no other
 * run holds it (flock -n), when the locked entry is still the one at the path (not a symlink),
 * marked (neither newer nor older than the reference), and empty: `rmdir` keeps a directory with
 * anything in it, a file is looked at again just before its `rm`. The checks are bash's own
 * tests, so only flock forks per path: the entries, still locked, go in one `rm` (files) and one
 * `rmdir` (directories, in the same order) at the end. When moat closes it, moat has already
 * made the same checks itself and removed the list and the mark: nothing is left to do, and
 * nothing forks.
 */
export const REMOVER_SCRIPT = "while IFS= read -r _; do :; done; list=$1; ref=$2; paths=(); " +
  'files=(); dirs=(); [ -f "$list" ] && mapfile -t paths < "$list"; ' +
  '[ -f "$ref" ] && [ ! -L "$ref" ] || paths=(); ' +
  "for ((i=${#paths[@]}-1; i>=0; i--)); do p=${paths[i]}; " +
  '[ -n "$p" ] && [ ! -L "$p" ] && { [ -f "$p" ] || [ -d "$p" ]; } || continue; ' +
  '{ exec {fd}<"$p"; } 2>/dev/null || continue; ' +
  'if flock -n -x "$fd" && [ ! -L "$p" ] && [ "$p" -ef "/proc/self/fd/$fd" ] && ' +
  '[ ! "$p" -nt "$ref" ] && [ ! "$p" -ot "$ref" ]; then ' +
  'if [ -d "$p" ]; then dirs+=("$p"); continue; fi; ' +
  'if [ -f "$p" ] && [ ! -s "$p" ]; then files+=("$p"); continue; fi; fi; ' +
  "exec {fd}<&-; done; empty=(); " +
  'for p in "${files[@]}"; do [ ! -L "$p" ] && [ -f "$p" ] && [ ! -s "$p" ] && empty+=("$p"); done; ' +
  '[ ${#empty[@]} -eq 0 ] && [ ! -e "$list" ] && [ ! -e "$ref" ] || ' +
  'rm -f -- "${empty[@]}" "$list" "$ref"; ' +
  '[ ${#dirs[@]} -eq 0 ] || rmdir -- "${dirs[@]}" 2>/dev/null';

/**
 * How long `hold` waits for the mark of an empty entry made moments ago: another run may be
 * between making its placeholder and marking it (preempted on a loaded machine), and a run that
 * took it for a real entry would mount over it unheld, for that run's remover to remove.
 */
const MARK_WAIT_MS = 200;
/** An entry modified longer ago than this is nobody's placeholder in the making. */
const FRESH_MS = 5000;

/**
 * The entry's info (`stat`), once it is marked (mtime 0), or when it is no fresh empty entry,
 * or after `waitMs`.
 */
function markedWithin(
  stat: () => Deno.FileInfo,
  isEmpty: (info: Deno.FileInfo) => boolean,
  waitMs: number,
): Deno.FileInfo {
  const sleeper = new Int32Array(new SharedArrayBuffer(4));
  const deadline = Date.now() + waitMs;
  for (;;) {
    const info = stat();
    const mtime = info.mtime?.getTime();
    const fresh = mtime !== undefined && mtime !== 0 && Math.abs(Date.now() - mtime) < FRESH_MS;
    if (!fresh || Date.now() >= deadline || !isEmpty(info)) return info;
    Atomics.wait(sleeper, 0, 0, 2);
  }
}

/**
 * Creates MountPointOps backed by Deno's file system calls and a bash remover. `markWaitMs`: how
 * long `hold` waits for the mark of an empty entry made moments ago (tests lengthen it).
 */
export function createDenoMountPointOps(
  options: { markWaitMs?: number } = {},
): MountPointOps {
  const markWaitMs = options.markWaitMs ?? MARK_WAIT_MS;
  return {
    create(path, kind) {
      try {
        if (kind === "dir") Deno.mkdirSync(path);
        else Deno.openSync(path, { write: true, createNew: true, mode: 0o644 }).close();
        // Marked through a descriptor of the entry just made (not the path again).
        using file = Deno.openSync(path, { read: true });
        const made = Deno.lstatSync(path);
        const opened = file.statSync();
        if (made.isSymlink || made.ino !== opened.ino || made.dev !== opened.dev) return false;
        file.utimeSync(0, 0);
        return true;
      } catch {
        return false;
      }
    },
    hold(path): HeldPlaceholder | undefined {
      let file: Deno.FsFile | undefined;
      try {
        file = openEntry(Deno.lstatSync(path), path);
        if (file === undefined) return undefined;
        file.lockSync(false);
        const opened = file;
        const isEmpty = (info: Deno.FileInfo) =>
          info.isDirectory
            ? Deno.readDirSync(path)[Symbol.iterator]().next().done === true
            : info.size === 0;
        const locked = markedWithin(() => opened.statSync(), isEmpty, markWaitMs);
        if (!stillMarked(path, locked) || !isEmpty(locked)) {
          file.close();
          return undefined;
        }
        const held = file;
        let released = false;
        return {
          id: `${locked.dev}:${locked.ino}`,
          release() {
            if (released) return;
            released = true;
            held.close();
          },
        };
      } catch {
        file?.close();
        return undefined;
      }
    },
    startRemover(): PlaceholderRemover | undefined {
      const made: string[] = [];
      try {
        made.push(Deno.makeTempFileSync({ prefix: "moat-placeholders-" }));
        // The mark to compare with: a file of the remover's own, modified at 0.
        made.push(Deno.makeTempFileSync({ prefix: "moat-placeholders-mark-" }));
        Deno.utimeSync(made[1]!, 0, 0);
      } catch {
        for (const path of made) Deno.remove(path).catch(() => {});
        return undefined;
      }
      const [list, mark] = made as [string, string];
      const remover = startAfterMoat(REMOVER_SCRIPT, "moat-placeholders", [list, mark]);
      if (remover === undefined) {
        for (const path of made) Deno.remove(path).catch(() => {});
        return undefined;
      }
      const recorded: string[] = [];
      let closing: Promise<void> | undefined;
      return {
        record(path) {
          try {
            Deno.writeTextFileSync(list, `${path}\n`, { append: true });
            recorded.push(path);
            return true;
          } catch {
            return false;
          }
        },
        close() {
          // Done here, without a process per path; the remover, left with no list, only exits
          // (it does the same work itself when moat dies first, or if a step here fails).
          closing ??= (async () => {
            const locked = removeUnusedPlaceholders(recorded);
            // A lock held elsewhere may be another run's, or a moment's (a process of moat's
            // between fork and exec holds copies of its descriptors): the remover looks at
            // those again once moat has let it go, as it does when moat dies.
            if (locked.length === 0 || !keepOnly(list, locked)) {
              for (const path of made) removeQuietly(path);
            }
            await remover.close();
          })();
          return closing;
        },
      };
    },
  };
}

/**
 * Removes, last first, each of `paths` that is still an unused placeholder: the remover's checks
 * (REMOVER_SCRIPT) made in this process, under a non-blocking exclusive flock(2) of its own —
 * locked by no other run, still the entry at the path (not a symlink), marked (modified at 0),
 * and empty (a directory is removed only while empty). Returns those locked elsewhere, in their
 * order. Must not throw.
 */
export function removeUnusedPlaceholders(paths: readonly string[]): string[] {
  const elsewhere: string[] = [];
  for (let i = paths.length - 1; i >= 0; i--) {
    const path = paths[i]!;
    let file: Deno.FsFile | undefined;
    try {
      const before = Deno.lstatSync(path);
      if (before.isFile && before.size !== 0) continue;
      file = openEntry(before, path);
      if (file === undefined) continue;
      if (!file.tryLockSync(true)) {
        elsewhere.unshift(path);
        continue;
      }
      const locked = file.statSync();
      if (!stillMarked(path, locked) || locked.isFile && locked.size !== 0) continue;
      // Still locked: a run that holds it next finds it gone and makes it again.
      Deno.removeSync(path);
    } catch {
      // Gone, or filled meanwhile (a directory with anything in it stays).
    } finally {
      file?.close();
    }
  }
  return elsewhere;
}

/**
 * `path` (whose lstat is `before`) opened for reading when it is a file or a directory: a FIFO
 * or device would block the open, and a symlink is nobody's placeholder.
 */
function openEntry(before: Deno.FileInfo, path: string): Deno.FsFile | undefined {
  return before.isFile || before.isDirectory ? Deno.openSync(path, { read: true }) : undefined;
}

/** Whether `path` is still the entry opened (`locked`: its fstat), not a symlink, and marked. */
function stillMarked(path: string, locked: Deno.FileInfo): boolean {
  const now = Deno.lstatSync(path);
  return !now.isSymlink && now.ino === locked.ino && now.dev === locked.dev &&
    locked.mtime?.getTime() === 0;
}

/** Rewrites the remover's list to `paths` only; false when it cannot. */
function keepOnly(list: string, paths: readonly string[]): boolean {
  try {
    Deno.writeTextFileSync(list, paths.map((p) => `${p}\n`).join(""));
    return true;
  } catch {
    return false;
  }
}

function removeQuietly(path: string): void {
  try {
    Deno.removeSync(path);
  } catch {
    // Gone already; the remover removes what is left.
  }
}
