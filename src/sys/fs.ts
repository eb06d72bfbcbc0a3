/**
 * The Deno implementation of FsOps. Reads open files by their resolved real path and verify the
 * open handle against an lstat of that path; writes go to the real path via temp file + rename
 * (fs_write.ts). Together with Deno's permission checks this is the boundary when no OS sandbox
 * is available.
 */
import {
  type DirEntry,
  type FileHandle,
  type FileInfo,
  FsError,
  type FsOps,
  readHandleFully,
  type SyncFileHandle,
} from "../tools/ops.ts";
import { checkOpenedIdentity, lstatOrNull, raced, toFsError, toInfo } from "./fs_common.ts";
import { writeFileAtomic } from "./fs_write.ts";

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
  /**
   * The tools run in bubblewrap's view, which confines every open: `openWalkedFileSync` skips the
   * checks that only guard against reaching outside it — no lstat before the open, no identity
   * check after it — and fetches the handle's info only when asked for (an fstat; under scoped
   * Deno permissions that costs as much as the open). The walk that produced the path saw a
   * regular file there; one swapped for a FIFO in between can block the open, as in ripgrep.
   * Ignored when `recheckRealPath` is set.
   */
  confined?: boolean;
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

  function openWalkedConfined(path: string): SyncFileHandle {
    let file: Deno.FsFile;
    try {
      file = Deno.openSync(path, { read: true });
    } catch (e) {
      throw toFsError(e, path);
    }
    return syncHandle(file, path, null);
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
    return syncHandle(file, path, info);
  }

  /** A SyncFileHandle of an open file; `known` is its info when the open already fetched it. */
  function syncHandle(file: Deno.FsFile, path: string, known: FileInfo | null): SyncFileHandle {
    let info = known;
    let closed = false;
    return {
      get info(): FileInfo {
        if (info === null) {
          try {
            info = toInfo(file.statSync());
          } catch (e) {
            throw toFsError(e, path);
          }
        }
        return info;
      },
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
    // The re-check wins should both be set: skipping it must never happen by mistake.
    openWalkedFileSync: options.confined && !options.recheckRealPath
      ? openWalkedConfined
      : openWalkedSync,
    async readFile(path, opts = {}) {
      const handle = await openVerified(path);
      try {
        return await readHandleFully(handle, path, opts.maxBytes);
      } finally {
        handle.close();
      }
    },
    writeFile: writeFileAtomic,
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
