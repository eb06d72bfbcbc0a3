/**
 * `--ignore-read` in bash's view: an ignored path must not be there at all, and a bind mount
 * always leaves an entry, so the directory holding it is rebuilt for each bash call — a
 * read-only tmpfs over it with every other entry bound back from the tool host's view (listed
 * at the call, so files the tools created since show). bash cannot create, rename or remove
 * entries directly in such a directory (each entry is a mount point); inside them it can.
 */
import { join } from "node:path";
import { isWithin } from "../../policy/mod.ts";

/** A directory of bash's view that holds ignored paths, and the mounts that show its entries. */
export interface HiddenDir {
  /** Real path of the directory. */
  dir: string;
  /** The ignored names in it. */
  names: string[];
  /** The view's mounts at or around the directory: an entry keeps the deepest one's mode. */
  mounts: Array<{ path: string; mode: "ro" | "rw" }>;
}

/** One entry of a hidden directory as the tool host sees it. */
export interface ListedEntry {
  name: string;
  /** Where a symlink points (recreated as a symlink, never followed). */
  symlinkTarget?: string;
}

/**
 * The bwrap arguments that rebuild each of `dirs` without its ignored names (shallow first),
 * from `entries` (the listing of each directory in the tool host's view).
 */
export function hiddenDirArgs(
  dirs: readonly HiddenDir[],
  entries: ReadonlyMap<string, readonly ListedEntry[]>,
): string[] {
  const args: string[] = [];
  const ordered = [...dirs].sort((a, b) => a.dir.split("/").length - b.dir.split("/").length);
  for (const hidden of ordered) {
    args.push("--tmpfs", hidden.dir);
    for (const entry of entries.get(hidden.dir) ?? []) {
      if (hidden.names.includes(entry.name)) continue;
      const p = join(hidden.dir, entry.name);
      if (entry.symlinkTarget !== undefined) {
        args.push("--symlink", entry.symlinkTarget, p);
        continue;
      }
      const holder = hidden.mounts.filter((m) => isWithin(p, m.path))
        .sort((a, b) => b.path.length - a.path.length)[0];
      args.push(holder?.mode === "rw" ? "--bind" : "--ro-bind", p, p);
    }
    args.push("--remount-ro", hidden.dir);
  }
  return args;
}
