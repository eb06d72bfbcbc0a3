/**
 * The file operations the tools get inside the tool Worker: Deno's FsOps plus what Deno's Worker
 * permissions cannot express — deny lists (`--deny-read`, `--deny-write`) that also hold for files
 * a tree walk (grep, find) reaches without naming them, and protected paths (git hooks and
 * config, `.moat`, …) that no write may touch. (The race re-check after each open lives in
 * src/sys/fs.ts: `createDenoFsOps({ recheckRealPath })`.)
 */
import { findProtection, isWithin, protectedDetail, type Protection } from "../../policy/mod.ts";
// The tools' interfaces and path helper themselves, not tools/mod.ts: grep's helper Workers load
// this module too, and need none of the tools.
import {
  type FileInfo,
  FsError,
  type FsOps,
  readHandleFully,
  type SyncFileHandle,
} from "../../tools/ops.ts";
import { realLocation } from "../../tools/paths.ts";

/** What `guardFsOps` enforces on top of the Worker's permissions. */
export interface FsGuard {
  /** Real paths nothing may be read from (`--deny-read`). */
  denyRead: readonly string[];
  /** Real paths nothing may be written to (`--deny-write`). */
  denyWrite: readonly string[];
  /** Protected paths: refused to every write unless carved out by a named write grant. */
  protection?: Protection;
  /**
   * Identities ("dev:ino") of the denied files at the start: a denied file stays denied under
   * another name (a hardlink, or a rename the OS sandbox could not stop).
   */
  deniedIds?: { read: readonly string[]; write: readonly string[] };
}

/** Wraps `inner` so that the deny lists hold for every open, walk and write. */
export function guardFsOps(inner: FsOps, guard: FsGuard): FsOps {
  const deniedRead = (p: string) => guard.denyRead.some((d) => isWithin(p, d));
  const deniedWrite = (p: string) => guard.denyWrite.some((d) => isWithin(p, d));
  const refuse = (path: string, flag: "deny-read" | "deny-write") =>
    new FsError("not_granted", path, `Access to "${path}" is denied by --${flag}`);
  const readIds = new Set(guard.deniedIds?.read ?? []);
  const writeIds = new Set(guard.deniedIds?.write ?? []);
  const idOf = (info: FileInfo) =>
    info.dev === null || info.ino === null ? "" : `${info.dev}:${info.ino}`;
  /** Refuses an open handle whose file is denied for reading (under whatever name). */
  const checkHandle = <H extends { info: FileInfo; close(): void }>(handle: H, path: string) => {
    if (readIds.size > 0 && readIds.has(idOf(handle.info))) {
      handle.close();
      throw refuse(path, "deny-read");
    }
    return handle;
  };

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
      if (deniedRead(handle.path)) {
        handle.close();
        throw refuse(path, "deny-read");
      }
      return checkHandle(handle, path);
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
      if (writeIds.size > 0) {
        const existing = await inner.lstat(target).catch(() => undefined);
        if (existing !== undefined && writeIds.has(idOf(existing))) {
          throw refuse(path, "deny-write");
        }
      }
      const protection = guard.protection;
      if (protection !== undefined) {
        // Both forms: the real path finds what a symlink leads to, the path as given a `.git`
        // reached through a symlinked directory.
        const hit = findProtection(protection, target) ?? findProtection(protection, path);
        if (hit !== undefined) {
          throw new FsError(
            "protected",
            path,
            `Writing "${path}" is refused: ${protectedDetail(protection, hit)}`,
          );
        }
      }
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
      return checkHandle(openWalked(path), path);
    };
  }
  if (inner.homeDir !== undefined) guarded.homeDir = inner.homeDir.bind(inner);
  return guarded;
}
