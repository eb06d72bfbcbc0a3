/**
 * The Deno implementation of FsOps. Reads open files by their resolved real path and verify the
 * open handle against an lstat of that path; writes go to the real path via temp file + rename.
 * Together with Deno's permission checks this is the boundary when no OS sandbox is available.
 */
import { basename, dirname, join } from "node:path";
import {
  type DirEntry,
  type FileHandle,
  type FileInfo,
  FsError,
  type FsOps,
  readHandleFully,
  type SyncFileHandle,
  type WriteResult,
} from "../tools/ops.ts";

/** Options for `createDenoFsOps`. */
export interface DenoFsOptions {
  /**
   * Test seam: runs after a file was opened and before its identity is checked, so tests can
   * swap the file deterministically. Never set in production.
   */
  afterOpen?: (realPath: string) => void | Promise<void>;
  /**
   * Test seam of `openWalkedFileSync`: runs after the path was lstat'ed and before it is opened,
   * so tests can swap the file deterministically. Never set in production.
   */
  beforeWalkedOpen?: (path: string) => void;
  /** Test seam: runs after a path was resolved and lstat'ed and before it is opened. */
  beforeOpen?: (realPath: string) => void | Promise<void>;
  /**
   * Without the OS sandbox: after each open, the path must still be its own real path and name
   * the opened file, so a parent directory swapped for a symlink around the open is refused.
   */
  recheckRealPath?: boolean;
}

/** Converts a Deno error into an FsError; rethrows anything that is not a filesystem failure. */
export function toFsError(e: unknown, path: string): FsError {
  if (e instanceof FsError) return e;
  if (e instanceof Deno.errors.NotFound) {
    return new FsError("not_found", path, `No such file or directory: "${path}"`, { cause: e });
  }
  if (e instanceof Deno.errors.NotADirectory) {
    return new FsError("not_a_directory", path, `A parent of "${path}" is not a directory`, {
      cause: e,
    });
  }
  if (e instanceof Deno.errors.IsADirectory) {
    return new FsError("is_a_directory", path, `"${path}" is a directory`, { cause: e });
  }
  if (e instanceof Deno.errors.NotCapable) {
    return new FsError("not_granted", path, `Access to "${path}" is not granted`, { cause: e });
  }
  if (e instanceof Deno.errors.PermissionDenied) {
    return new FsError("permission_denied", path, `Permission denied: "${path}"`, { cause: e });
  }
  if (e instanceof Deno.errors.FilesystemLoop) {
    return new FsError("not_found", path, `Too many levels of symlinks: "${path}"`, { cause: e });
  }
  if (e instanceof Error) {
    return new FsError("io", path, `Filesystem error on "${path}": ${e.message}`, { cause: e });
  }
  throw e;
}

function toInfo(info: Deno.FileInfo): FileInfo {
  return {
    isFile: info.isFile,
    isDirectory: info.isDirectory,
    isSymlink: info.isSymlink,
    size: info.size,
    mode: info.mode === null ? null : info.mode & 0o7777,
    dev: info.dev ?? null,
    ino: info.ino ?? null,
  };
}

/**
 * The race check: the open handle must be the regular file that is now at `path` (no symlink,
 * same device and inode). Throws FsError "changed" otherwise. Pure; exported for tests.
 */
export function checkOpenedIdentity(handle: FileInfo, atPath: FileInfo, path: string): void {
  const sameIdentity = handle.dev === null || handle.ino === null
    ? true // the platform reports no identity (Windows): the type checks still apply
    : handle.dev === atPath.dev && handle.ino === atPath.ino;
  if (atPath.isSymlink || !atPath.isFile || !handle.isFile || !sameIdentity) throw raced(path);
}

/** Real path of `path`, or of its nearest existing parent plus the missing segments. */
async function realLocation(path: string): Promise<string> {
  const missing: string[] = [];
  let current = path;
  for (;;) {
    try {
      const real = await Deno.realPath(current);
      return missing.length === 0 ? real : join(real, ...missing.reverse());
    } catch (e) {
      // A path that may not be read (a write grant without read, or of just that new file): it
      // stays as given (the policy resolved its real location before the call); the writes
      // below verify what they can.
      if (e instanceof Deno.errors.NotCapable) return path;
      if (!(e instanceof Deno.errors.NotFound)) throw toFsError(e, path);
      const parent = dirname(current);
      if (parent === current) throw toFsError(e, path);
      missing.push(basename(current));
      current = parent;
    }
  }
}

function raced(path: string): FsError {
  return new FsError(
    "changed",
    path,
    `"${path}" changed while being opened (possible symlink race)`,
  );
}

// For the post-open re-checks any failure (gone, no access) means the path cannot be confirmed,
// which is refused like a race: hence the broad catches in these three.
async function realPathOrNull(path: string): Promise<string | null> {
  try {
    return await Deno.realPath(path);
  } catch {
    return null;
  }
}

function realPathSyncOrNull(path: string): string | null {
  try {
    return Deno.realPathSync(path);
  } catch {
    return null;
  }
}

function lstatSyncOrNull(path: string): Deno.FileInfo | null {
  try {
    return Deno.lstatSync(path);
  } catch {
    return null;
  }
}

async function lstatOrNull(path: string): Promise<Deno.FileInfo | null> {
  try {
    return await Deno.lstat(path);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return null;
    throw toFsError(e, path);
  }
}

function tempName(target: string): string {
  const rand = crypto.getRandomValues(new Uint32Array(2)).join("");
  return join(dirname(target), `.${basename(target)}.${rand}.moat-tmp`);
}

/** Writes all of `data` to `file` (a write may take only part of it). */
export async function writeAll(file: Deno.FsFile, data: Uint8Array): Promise<void> {
  let offset = 0;
  while (offset < data.length) offset += await file.write(data.subarray(offset));
}

/** Creates the Deno-backed FsOps. */
export function createDenoFsOps(options: DenoFsOptions = {}): FsOps {
  async function openVerified(path: string): Promise<FileHandle> {
    let real: string;
    try {
      real = await Deno.realPath(path);
    } catch (e) {
      throw toFsError(e, path);
    }
    // Refuse non-regular files before opening: opening a FIFO would block.
    const before = await lstatOrNull(real);
    if (before === null) throw new FsError("not_found", path, `No such file: "${path}"`);
    if (before.isDirectory) throw new FsError("is_a_directory", path, `"${path}" is a directory`);
    if (!before.isFile) throw new FsError("not_a_file", path, `"${path}" is not a regular file`);
    if (options.beforeOpen) await options.beforeOpen(real);
    let file: Deno.FsFile;
    try {
      file = await Deno.open(real, { read: true });
    } catch (e) {
      throw toFsError(e, path);
    }
    let info: FileInfo;
    try {
      if (options.afterOpen) await options.afterOpen(real);
      info = toInfo(await file.stat());
      const after = await lstatOrNull(real);
      if (after === null) {
        throw new FsError("changed", path, `"${path}" changed while being opened (it vanished)`);
      }
      checkOpenedIdentity(info, toInfo(after), path);
      // The lstat above went through the same parents as the open; a parent that was a symlink
      // then shows now as a real path that differs from the one opened.
      if (options.recheckRealPath && (await realPathOrNull(real)) !== real) throw raced(path);
    } catch (e) {
      file.close();
      throw toFsError(e, path);
    }
    let closed = false;
    return {
      path: real,
      info,
      async read(into) {
        try {
          return await file.read(into);
        } catch (e) {
          throw toFsError(e, path);
        }
      },
      close() {
        if (closed) return;
        closed = true;
        file.close();
      },
    };
  }

  function openWalkedSync(path: string): SyncFileHandle {
    // No realpath: the walk produced a symlink-free path. lstat first so that a FIFO or device
    // is never opened (opening a FIFO blocks), then check the handle is that same file.
    let before: Deno.FileInfo;
    try {
      before = Deno.lstatSync(path);
    } catch (e) {
      throw toFsError(e, path);
    }
    if (before.isDirectory) throw new FsError("is_a_directory", path, `"${path}" is a directory`);
    if (!before.isFile) throw new FsError("not_a_file", path, `"${path}" is not a regular file`);
    options.beforeWalkedOpen?.(path);
    let file: Deno.FsFile;
    try {
      file = Deno.openSync(path, { read: true });
    } catch (e) {
      throw toFsError(e, path);
    }
    let info: FileInfo;
    try {
      info = toInfo(file.statSync());
      checkOpenedIdentity(info, toInfo(before), path);
      if (options.recheckRealPath) {
        // The walk's path had no symlink when it was listed; it must still have none now and
        // still name the opened file (a parent swapped and swapped back is caught here).
        if (realPathSyncOrNull(path) !== path) throw raced(path);
        const after = lstatSyncOrNull(path);
        if (after === null) throw raced(path);
        checkOpenedIdentity(info, toInfo(after), path);
      }
    } catch (e) {
      file.close();
      throw toFsError(e, path);
    }
    let closed = false;
    return {
      info,
      readSync(into) {
        try {
          return file.readSync(into);
        } catch (e) {
          throw toFsError(e, path);
        }
      },
      close() {
        if (closed) return;
        closed = true;
        file.close();
      },
    };
  }

  /** In-place write for grants that cover only the file itself (no temp file allowed). */
  async function writeInPlace(target: string, data: Uint8Array, exists: boolean): Promise<void> {
    let file: Deno.FsFile;
    try {
      file = await Deno.open(target, { write: true, create: !exists, createNew: !exists });
    } catch (e) {
      throw toFsError(e, target);
    }
    try {
      const after = await lstatOrNull(target);
      if (after === null) throw new FsError("changed", target, `"${target}" vanished`);
      checkOpenedIdentity(toInfo(await file.stat()), toInfo(after), target);
      // Opened by name: a parent directory swapped for a symlink would have redirected the open.
      if ((await Deno.realPath(target)) !== target) {
        if (!exists) await Deno.remove(target).catch(() => {});
        throw new FsError("changed", target, `"${target}" changed while being opened`);
      }
      await file.truncate(0);
      await writeAll(file, data);
    } catch (e) {
      throw toFsError(e, target);
    } finally {
      file.close();
    }
  }

  /**
   * Writes with a write grant but no read access (as in Deno, `--allow-write` alone may create
   * and overwrite files): nothing at the path can be examined, so the policy's check of the real
   * location (made with full access before the call) and the OS sandbox's view are what confine
   * it. A new file is created exclusively (never through a link); an existing one is truncated
   * and written in place (not atomic: Deno's rename needs read access).
   */
  async function writeBlind(
    target: string,
    data: Uint8Array,
    opts: { createParents?: boolean },
  ): Promise<WriteResult> {
    if (opts.createParents) await Deno.mkdir(dirname(target), { recursive: true }).catch(() => {});
    try {
      const file = await Deno.open(target, { write: true, createNew: true, mode: 0o666 });
      try {
        await writeAll(file, data);
      } finally {
        file.close();
      }
      return { path: target, created: true };
    } catch (e) {
      if (!(e instanceof Deno.errors.AlreadyExists)) throw toFsError(e, target);
    }
    // Deno's rename needs read access too: an existing file is overwritten where it is.
    const file = await Deno.open(target, { write: true, truncate: true }).catch((err) => {
      throw toFsError(err, target);
    });
    try {
      await writeAll(file, data);
    } finally {
      file.close();
    }
    return { path: target, created: false };
  }

  return {
    async realPath(path) {
      try {
        return await Deno.realPath(path);
      } catch (e) {
        throw toFsError(e, path);
      }
    },
    async lstat(path) {
      try {
        return toInfo(await Deno.lstat(path));
      } catch (e) {
        throw toFsError(e, path);
      }
    },
    async readLink(path) {
      try {
        return await Deno.readLink(path);
      } catch (e) {
        throw toFsError(e, path);
      }
    },
    async stat(path) {
      try {
        return toInfo(await Deno.stat(path));
      } catch (e) {
        throw toFsError(e, path);
      }
    },
    async *readDir(path): AsyncIterable<DirEntry> {
      try {
        for await (const entry of Deno.readDir(path)) {
          yield {
            name: entry.name,
            isFile: entry.isFile,
            isDirectory: entry.isDirectory,
            isSymlink: entry.isSymlink,
          };
        }
      } catch (e) {
        throw toFsError(e, path);
      }
    },
    readDirSync(path): DirEntry[] {
      try {
        // Deno's entries have exactly the DirEntry fields.
        return Array.from(Deno.readDirSync(path));
      } catch (e) {
        throw toFsError(e, path);
      }
    },
    openFile: openVerified,
    openWalkedFileSync: openWalkedSync,
    async readFile(path, opts = {}) {
      const handle = await openVerified(path);
      try {
        return await readHandleFully(handle, path, opts.maxBytes);
      } finally {
        handle.close();
      }
    },
    async writeFile(path, data, opts = {}): Promise<WriteResult> {
      const target = await realLocation(path);
      const dir = dirname(target);
      let existing: Deno.FileInfo | null;
      try {
        existing = await Deno.lstat(target);
      } catch (e) {
        if (e instanceof Deno.errors.NotCapable) return await writeBlind(target, data, opts);
        if (!(e instanceof Deno.errors.NotFound)) throw toFsError(e, path);
        existing = null;
      }
      if (existing?.isDirectory) {
        throw new FsError("is_a_directory", path, `"${path}" is a directory`);
      }
      if (existing && !existing.isFile && !existing.isSymlink) {
        throw new FsError("not_a_file", path, `"${path}" is not a regular file`);
      }
      // A symlink here is dangling (realLocation would have followed a live one): the rename
      // replaces the link itself and never writes through it.
      const exists = existing?.isFile === true;
      const mode = existing !== null && exists && existing.mode !== null
        ? existing.mode & 0o7777
        : null;
      if (opts.createParents) {
        try {
          await Deno.mkdir(dir, { recursive: true });
        } catch (e) {
          // A grant of only the file itself: its directory must already exist (checked below).
          if (!(e instanceof Deno.errors.NotCapable)) throw toFsError(e, path);
        }
      }
      const temp = tempName(target);
      try {
        await Deno.writeFile(temp, data, { createNew: true, mode: mode ?? 0o666 });
      } catch (e) {
        if (e instanceof Deno.errors.NotCapable && (exists || existing === null)) {
          // The grant covers the file but not its directory: write through a verified handle.
          await writeInPlace(target, data, exists);
          return { path: target, created: !exists };
        }
        if (e instanceof Deno.errors.NotFound) {
          throw new FsError("not_found", path, `Parent directory of "${path}" does not exist`, {
            cause: e,
          });
        }
        throw toFsError(e, path);
      }
      try {
        if (mode !== null) await Deno.chmod(temp, mode); // writeFile's mode is masked by umask
        // The parent must still be the real directory we resolved (not swapped for a symlink).
        if ((await Deno.realPath(dir)) !== dir) {
          throw new FsError("changed", path, `"${dirname(path)}" changed while writing`);
        }
        await Deno.rename(temp, target);
      } catch (e) {
        await Deno.remove(temp).catch(() => {});
        throw toFsError(e, path);
      }
      return { path: target, created: !exists };
    },
    homeDir() {
      try {
        return Deno.env.get("HOME");
      } catch (e) {
        if (e instanceof Deno.errors.NotCapable || e instanceof Deno.errors.PermissionDenied) {
          return undefined;
        }
        throw e;
      }
    },
  };
}
