/**
 * The write path of the Deno FsOps: an atomic write (temp file + rename in the real directory),
 * a verified in-place write when the grant covers only the file, and a blind write when there is
 * no read access. Deno's permission checks still apply to every call.
 */
import { basename, dirname, join } from "node:path";
import { FsError, type WriteResult } from "../tools/ops.ts";
import { checkOpenedIdentity, lstatOrNull, toFsError, toInfo } from "./fs_common.ts";

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

function tempName(target: string): string {
  const rand = crypto.getRandomValues(new Uint32Array(2)).join("");
  return join(dirname(target), `.${basename(target)}.${rand}.moat-tmp`);
}

/** Writes all of `data` to `file` (a write may take only part of it). */
export async function writeAll(file: Deno.FsFile, data: Uint8Array): Promise<void> {
  let offset = 0;
  while (offset < data.length) offset += await file.write(data.subarray(offset));
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

/**
 * Writes `data` to the real location of `path`: atomically (temp file + rename) where the grants
 * allow it, else in place (the file alone is granted) or blind (no read access). The FsOps'
 * `writeFile` of `createDenoFsOps`.
 */
export async function writeFileAtomic(
  path: string,
  data: Uint8Array,
  opts: { createParents?: boolean } = {},
): Promise<WriteResult> {
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
}
