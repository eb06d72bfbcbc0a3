/**
 * The file operations the tools get inside the tool Worker: Deno's FsOps plus what Deno's Worker
 * permissions cannot express. Deny lists (`--deny-read`, `--deny-write`) also hold for files that
 * a tree walk (grep, find) reaches without naming them, and, without the OS sandbox, every opened
 * file must still be at a symlink-free real path after the open (a parent directory swapped for a
 * symlink between the check and the open is refused as a race).
 */
import { isWithin } from "../policy/bwrap.ts";
import { realLocation } from "../tools/_paths.ts";
import { FsError, type FsOps, readHandleFully, type SyncFileHandle } from "../tools/ops.ts";

/** What `guardFsOps` enforces on top of the Worker's permissions. */
export interface FsGuard {
  /** Real paths nothing may be read from (`--deny-read`). */
  denyRead: readonly string[];
  /** Real paths nothing may be written to (`--deny-write`). */
  denyWrite: readonly string[];
  /**
   * Without the OS sandbox: after each open, the opened path must still be its own real path
   * and still name the opened file (device and inode). Synchronous look-ups serve the
   * synchronous scan path; each returns undefined when the path cannot be looked up.
   */
  recheck?: {
    realPathSync(path: string): string | undefined;
    identitySync(path: string): { dev: number; ino: number } | undefined;
  };
}

/** Wraps `inner` so that deny lists and (without bubblewrap) the post-open re-check hold. */
export function guardFsOps(inner: FsOps, guard: FsGuard): FsOps {
  const deniedRead = (p: string) => guard.denyRead.some((d) => isWithin(p, d));
  const deniedWrite = (p: string) => guard.denyWrite.some((d) => isWithin(p, d));
  const refuse = (path: string, flag: "deny-read" | "deny-write") =>
    new FsError("not_granted", path, `Access to "${path}" is denied by --${flag}`);
  const raced = (path: string) =>
    new FsError("changed", path, `"${path}" changed while being opened (possible symlink race)`);

  const guarded: FsOps = {
    realPath: (path) => inner.realPath(path),
    lstat: (path) => inner.lstat(path),
    stat: (path) => inner.stat(path),
    async *readDir(path) {
      if (deniedRead(path)) throw refuse(path, "deny-read");
      yield* inner.readDir(path);
    },
    async openFile(path) {
      const handle = await inner.openFile(path);
      try {
        if (deniedRead(handle.path)) throw refuse(path, "deny-read");
        if (guard.recheck !== undefined) {
          // The open went through `handle.path`; if a parent directory was a symlink at that
          // moment, the real path differs now or the file there is another one.
          const now = await inner.realPath(handle.path).catch(() => undefined);
          if (now !== handle.path) throw raced(path);
          const at = await inner.lstat(handle.path).catch(() => undefined);
          if (at === undefined || at.dev !== handle.info.dev || at.ino !== handle.info.ino) {
            throw raced(path);
          }
        }
      } catch (e) {
        handle.close();
        throw e;
      }
      return handle;
    },
    async readFile(path, options = {}) {
      // Through the guarded open, so the checks above hold for whole-file reads too.
      const handle = await guarded.openFile(path);
      try {
        return await readHandleFully(handle, path, options.maxBytes);
      } finally {
        handle.close();
      }
    },
    async writeFile(path, data, options) {
      // Without read access to the path's directory it cannot be resolved here; the path the
      // tool passes is then already the real location its policy check resolved.
      const target = await realLocation(inner, path).catch((e) => {
        if (e instanceof FsError && e.code === "not_granted") return path;
        throw e;
      });
      if (deniedWrite(target) || deniedWrite(path)) throw refuse(path, "deny-write");
      return await inner.writeFile(path, data, options);
    },
  };
  if (inner.readDirSync !== undefined) {
    const readDirSync = inner.readDirSync.bind(inner);
    guarded.readDirSync = (path) => {
      if (deniedRead(path)) throw refuse(path, "deny-read");
      return readDirSync(path);
    };
  }
  if (inner.openWalkedFileSync !== undefined) {
    const openWalked = inner.openWalkedFileSync.bind(inner);
    guarded.openWalkedFileSync = (path): SyncFileHandle => {
      // A walked path is already real (the walk starts at a real path and follows no symlink).
      if (deniedRead(path)) throw refuse(path, "deny-read");
      const handle = openWalked(path);
      const recheck = guard.recheck;
      if (recheck !== undefined) {
        const at = recheck.realPathSync(path) === path ? recheck.identitySync(path) : undefined;
        if (at === undefined || at.dev !== handle.info.dev || at.ino !== handle.info.ino) {
          handle.close();
          throw raced(path);
        }
      }
      return handle;
    };
  }
  if (inner.homeDir !== undefined) guarded.homeDir = inner.homeDir.bind(inner);
  return guarded;
}
