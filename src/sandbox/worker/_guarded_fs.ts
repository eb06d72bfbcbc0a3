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
import { basename, dirname, join } from "node:path";

/** What `guardFsOps` enforces on top of the Worker's permissions. */
export interface FsGuard {
  /** Real paths nothing may be read from (`--deny-read`). */
  denyRead: readonly string[];
  /** Real paths nothing may be written to (`--deny-write`). */
  denyWrite: readonly string[];
  /**
   * Real paths hidden from every tool (`--ignore-read`): opened, listed, walked or looked up they
   * are missing, with the message of a missing path; writing one is refused.
   */
  ignoreRead?: readonly string[];
  /** Protected paths: refused to every write unless carved out by a named write grant. */
  protection?: Protection;
  /**
   * Identities ("dev:ino") of the denied files at the start: a denied file stays denied under
   * another name (a hardlink, or a rename the OS sandbox could not stop).
   */
  deniedIds?: { read: readonly string[]; write: readonly string[] };
  /** Identities of the ignored files at the start: hidden under another name too. */
  ignoredIds?: readonly string[];
}

/** Wraps `inner` so that the deny lists hold for every open, walk and write. */
export function guardFsOps(inner: FsOps, guard: FsGuard): FsOps {
  const deniedRead = (p: string) => guard.denyRead.some((d) => isWithin(p, d));
  const deniedWrite = (p: string) => guard.denyWrite.some((d) => isWithin(p, d));
  const refuse = (path: string, flag: "deny-read" | "deny-write") =>
    new FsError("not_granted", path, `Access to "${path}" is denied by --${flag}`);
  const ignored = guard.ignoreRead ?? [];
  // A path both lists cover is denied, as Deno decides for the same path.
  const hidden = (p: string) => ignored.some((d) => isWithin(p, d)) && !deniedRead(p);
  const ignoredIds = new Set(guard.ignoredIds ?? []);
  /** The error of a missing path (src/sys/fs_common.ts toFsError), for a hidden one. */
  const missing = (path: string) =>
    new FsError("not_found", path, `No such file or directory: "${path}"`);
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
    if (ignoredIds.size > 0 && ignoredIds.has(idOf(handle.info))) {
      handle.close();
      throw missing(path);
    }
    return handle;
  };
  /** `info` unless it is an ignored file (by identity), which is missing. */
  const shown = (info: FileInfo, path: string) => {
    if (ignoredIds.size > 0 && !info.isDirectory && ignoredIds.has(idOf(info))) {
      throw missing(path);
    }
    return info;
  };
  /** Throws the missing-path error when `path` or what it resolves to is hidden. */
  const unhide = async (path: string) => {
    if (ignored.length === 0) return;
    if (hidden(path)) throw missing(path);
    const real = await inner.realPath(path).catch(() => undefined);
    if (real !== undefined && hidden(real)) throw missing(path);
  };
  /** The entries of directory `dir` that are not hidden. */
  const visibleIn = async function* <E extends { name: string }>(
    dir: string,
    entries: AsyncIterable<E> | Iterable<E>,
  ) {
    const real = ignored.length === 0 ? dir : await inner.realPath(dir).catch(() => dir);
    for await (const entry of entries) {
      if (ignored.length > 0 && (hidden(join(real, entry.name)) || hidden(join(dir, entry.name)))) {
        continue;
      }
      yield entry;
    }
  };

  const guarded: FsOps = {
    async realPath(path) {
      if (hidden(path)) throw missing(path);
      const real = await inner.realPath(path);
      if (hidden(real)) throw missing(path);
      return real;
    },
    async lstat(path) {
      if (ignored.length > 0) {
        if (hidden(path)) throw missing(path);
        const parent = await inner.realPath(dirname(path)).catch(() => undefined);
        if (parent !== undefined && hidden(join(parent, basename(path)))) throw missing(path);
      }
      return shown(await inner.lstat(path), path);
    },
    async stat(path) {
      await unhide(path);
      return shown(await inner.stat(path), path);
    },
    async *readDir(path) {
      if (deniedRead(path)) throw refuse(path, "deny-read");
      await unhide(path);
      yield* visibleIn(path, inner.readDir(path));
    },
    async openFile(path) {
      if (hidden(path)) throw missing(path);
      const handle = await inner.openFile(path);
      if (deniedRead(handle.path)) {
        handle.close();
        throw refuse(path, "deny-read");
      }
      if (hidden(handle.path)) {
        handle.close();
        throw missing(path);
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
      // The same answer whether the hidden file exists or not: nothing tells it is there.
      if (hidden(target) || hidden(path)) {
        throw new FsError(
          "protected",
          path,
          `Writing "${path}" is refused: the path is hidden by --ignore-read; write elsewhere`,
        );
      }
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
      if (hidden(path)) throw missing(path);
      const entries = readDirSync(path);
      // A walked directory is already real (the walk follows no symlink).
      return ignored.length === 0 ? entries : entries.filter((e) => !hidden(join(path, e.name)));
    };
  }
  if (inner.openWalkedFileSync !== undefined) {
    const openWalked = inner.openWalkedFileSync.bind(inner);
    guarded.openWalkedFileSync = (path): SyncFileHandle => {
      // A walked path is already real (the walk starts at a real path and follows no symlink).
      if (deniedRead(path)) throw refuse(path, "deny-read");
      if (hidden(path)) throw missing(path);
      return checkHandle(openWalked(path), path);
    };
  }
  if (inner.homeDir !== undefined) guarded.homeDir = inner.homeDir.bind(inner);
  return guarded;
}
