/**
 * What the read and write paths of the Deno FsOps (fs.ts, fs_write.ts) share: Deno errors as
 * FsError, file info, and the check that an opened handle is the file now at its path.
 */
import { type FileInfo, FsError } from "../tools/ops.ts";

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

/** FileInfo of a Deno.FileInfo (mode without the file type bits). */
export function toInfo(info: Deno.FileInfo): FileInfo {
  return {
    isFile: info.isFile,
    isDirectory: info.isDirectory,
    isSymlink: info.isSymlink,
    size: info.size,
    mode: info.mode === null ? null : info.mode & 0o7777,
    dev: info.dev ?? null,
    ino: info.ino ?? null,
    mtime: info.mtime?.getTime() ?? null,
  };
}

/**
 * The race check: the open handle must be the regular file that is now at `path` (no symlink,
 * same device and inode). Throws FsError "changed" otherwise. Pure.
 */
export function checkOpenedIdentity(handle: FileInfo, atPath: FileInfo, path: string): void {
  const sameIdentity = handle.dev === null || handle.ino === null
    ? true // the platform reports no identity (Windows): the type checks still apply
    : handle.dev === atPath.dev && handle.ino === atPath.ino;
  if (atPath.isSymlink || !atPath.isFile || !handle.isFile || !sameIdentity) throw raced(path);
}

/** The FsError of a file that changed between its checks and its open. */
export function raced(path: string): FsError {
  return new FsError(
    "changed",
    path,
    `"${path}" changed while being opened (possible symlink race)`,
  );
}

/** lstat of `path`, or null when nothing is there; other failures throw FsError. */
export async function lstatOrNull(path: string): Promise<Deno.FileInfo | null> {
  try {
    return await Deno.lstat(path);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return null;
    throw toFsError(e, path);
  }
}
