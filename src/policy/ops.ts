/**
 * Operation interfaces of the policy layer: the synchronous path look-ups that parsing grants and
 * building the bubblewrap view need, and short probe commands. Deno implementations live in
 * src/sys/paths.ts and src/sys/command.ts.
 */

/** The real path of a location, or why there is none. */
export type RealPathResult =
  | { ok: true; path: string }
  | { ok: false; reason: "not_found" | "failed"; message: string };

/** What a path is after following symlinks. */
export interface PathStat {
  kind: "file" | "dir" | "other";
  /** Unix permission bits, null where the platform has none. */
  mode: number | null;
}

/** What a path itself is (a symlink is not followed). */
export type PathLink =
  | {
    kind: "file" | "dir" | "other";
    /** Device and inode ("dev:ino"), when the platform gives them: the file's identity. */
    id?: string;
    /** Size in bytes. */
    size?: number;
  }
  | { kind: "symlink"; target: string };

/** Synchronous path look-ups. Must not throw. */
export interface PathOps {
  /** The real path of `path` (every symlink resolved). */
  realPath(path: string): RealPathResult;
  /** `path` after following symlinks; undefined when it cannot be stat'ed (missing, no access). */
  stat(path: string): PathStat | undefined;
  /** `path` itself, a symlink with its target; undefined when it cannot be lstat'ed. */
  lstat(path: string): PathLink | undefined;
}

/** Path look-ups plus the small reads the protected-path scan needs (git's files). Must not throw. */
export interface ScanOps extends PathOps {
  /** The text of regular file `path` if it has at most `maxBytes`; undefined otherwise. */
  readTextFile(path: string, maxBytes: number): string | undefined;
  /** The entry names of directory `path`; undefined when it cannot be listed. */
  readDirNames(path: string): string[] | undefined;
}

/** Path look-ups of `parseGrantFlags`; with `readDirNames`, a mistyped path names its neighbours. */
export type GrantPathOps = PathOps & Partial<Pick<ScanOps, "readDirNames">>;

/** How a short command ended: its exit and output, or why it could not run. */
export type CommandOutput =
  | {
    ok: true;
    success: boolean;
    code: number;
    signal: string | null;
    stdout: string;
    stderr: string;
  }
  | { ok: false; message: string };

/** Runs short commands to completion (stdin closed, output collected). Must not throw. */
export interface CommandOps {
  /** Runs `program` with `args`; kills it after `timeoutMs`. */
  output(program: string, args: string[], options: { timeoutMs: number }): Promise<CommandOutput>;
}
