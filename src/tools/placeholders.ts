/**
 * The sandbox's placeholders as the reading tools see them: the OS sandbox makes an empty, marked
 * (mtime 0) file or directory at each missing protected or denied path it masks, so that the path
 * stays read-only if it appears. They are not the workspace's: read, ls, find and grep treat one
 * as missing while it is still that empty, marked entry; anything written there shows.
 */
import { FsError, type FsOps } from "./ops.ts";

/** Which of the tools' paths are the sandbox's placeholders right now. */
export interface PlaceholderFilter {
  /** True when `path` (real, absolute) is a placeholder path at all; no I/O. */
  names(path: string): boolean;
  /** True when `path` is a placeholder path that still holds an empty, marked entry. */
  hides(path: string): Promise<boolean>;
  /** Like `hides`, for a path not resolved yet (a tool's argument). */
  hidesResolved(path: string): Promise<boolean>;
}

/** The filter of `paths` (the placeholders of the run, real paths) over `fs`. */
export function placeholderFilter(
  fs: FsOps,
  paths: readonly string[] | undefined,
): PlaceholderFilter {
  const set = new Set(paths ?? []);
  const hides = async (path: string): Promise<boolean> => {
    if (!set.has(path)) return false;
    try {
      const info = await fs.lstat(path);
      if (info.mtime !== 0 || info.isSymlink) return false;
      if (info.isFile) return info.size === 0;
      if (!info.isDirectory) return false;
      for await (const _ of fs.readDir(path)) return false;
      return true;
    } catch (e) {
      if (e instanceof FsError) return false;
      throw e;
    }
  };
  return {
    names: (path) => set.has(path),
    hides,
    async hidesResolved(path) {
      if (set.size === 0) return false;
      try {
        return await hides(await fs.realPath(path));
      } catch (e) {
        if (e instanceof FsError) return false;
        throw e;
      }
    },
  };
}

/** The error a tool reports for a hidden placeholder at `path`: the one of a missing path. */
export function hiddenAsMissing(path: string): FsError {
  return new FsError("not_found", path, `"${path}" does not exist`);
}
