/**
 * bash's command prefix with the directories that hold `--ignore-read` paths rebuilt without
 * them (../bwrap/hide_view.ts), listed at each call through the tools' guarded file operations
 * (which leave the ignored entries out already); `readLink` reads a listed symlink's target.
 */
import { hiddenDirArgs, type ListedEntry } from "../bwrap/hide_view.ts";
import type { WireToolOptions } from "../host/protocol.ts";
import { FsError, type FsOps } from "../../tools/ops.ts";
import { join } from "node:path";

/** The prefix maker of `prefix` with `hidden`'s arguments at `hidden.at`. */
export function hidingPrefix(
  prefix: readonly string[],
  hidden: NonNullable<WireToolOptions["bashHidden"]>,
  fs: FsOps,
  readLink: (path: string) => Promise<string>,
): () => Promise<string[]> {
  return async () => {
    const entries = new Map<string, ListedEntry[]>();
    for (const { dir } of hidden.dirs) {
      const listed: ListedEntry[] = [];
      try {
        for await (const entry of fs.readDir(dir)) {
          if (!entry.isSymlink) {
            listed.push({ name: entry.name });
            continue;
          }
          listed.push({ name: entry.name, symlinkTarget: await readLink(join(dir, entry.name)) });
        }
      } catch (e) {
        // A directory that vanished has nothing to show; anything else must not run bash with
        // an ignored path in sight.
        if (!(e instanceof FsError) || e.code !== "not_found") {
          throw new Error(
            `the directory "${dir}" holding an --ignore-read path cannot be listed ` +
              `(${e instanceof Error ? e.message : String(e)}); bash would see what it hides`,
          );
        }
        continue;
      }
      entries.set(dir, listed);
    }
    const present = hidden.dirs.filter((d) => entries.has(d.dir));
    const args = hiddenDirArgs(present, entries);
    return [...prefix.slice(0, hidden.at), ...args, ...prefix.slice(hidden.at)];
  };
}
