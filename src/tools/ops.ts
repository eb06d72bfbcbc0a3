/**
 * Operation interfaces the built-in tools use for every side effect. Tools never call `Deno.*`
 * for effects; the Deno implementations live in src/sys/ and tests pass in-memory fakes.
 */

// ---------------------------------------------------------------------------------------------
// FsOps (tools engineer)
// ---------------------------------------------------------------------------------------------

/** What kind of filesystem failure happened; tools turn each code into a specific message. */
export type FsErrorCode =
  | "not_found"
  | "not_a_directory"
  | "is_a_directory"
  | "not_a_file"
  | "permission_denied"
  | "not_granted"
  | "protected"
  | "changed"
  | "too_large"
  | "io";

/** A typed filesystem failure thrown by FsOps implementations (the only error tools catch). */
export class FsError extends Error {
  /** What went wrong. */
  readonly code: FsErrorCode;
  /** The path the operation was about (as given to the operation). */
  readonly path: string;

  constructor(code: FsErrorCode, path: string, message: string, options: { cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "FsError";
    this.code = code;
    this.path = path;
  }
}

/** Metadata of a path or an open file. */
export interface FileInfo {
  isFile: boolean;
  isDirectory: boolean;
  isSymlink: boolean;
  size: number;
  /** Permission bits (e.g. 0o644); null where the platform has none. */
  mode: number | null;
  /** Device and inode, the identity used by the open-file race check; null where unknown. */
  dev: number | null;
  ino: number | null;
  /** Modification time (ms since the epoch); absent or null where unknown. */
  mtime?: number | null;
}

/** One directory entry (symlinks are reported as symlinks, not followed). */
export interface DirEntry {
  name: string;
  isFile: boolean;
  isDirectory: boolean;
  isSymlink: boolean;
}

/** An open regular file, read by pulling chunks (bounded memory). Must be closed. */
export interface FileHandle {
  /** The resolved real path that was opened. */
  readonly path: string;
  /** Metadata of the open handle (not of the path). */
  readonly info: FileInfo;
  /** Reads up to `into.length` bytes; resolves to the count, or null at end of file. */
  read(into: Uint8Array): Promise<number | null>;
  /** Releases the handle; safe to call twice. */
  close(): void;
}

/**
 * Reads an open file to its end (it is not closed); throws FsError "too_large" past `maxBytes`.
 * The shared body of every FsOps.readFile.
 */
export async function readHandleFully(
  handle: Pick<FileHandle, "info" | "read">,
  path: string,
  maxBytes: number = Number.POSITIVE_INFINITY,
): Promise<Uint8Array> {
  const tooLarge = () =>
    new FsError("too_large", path, `"${path}" is larger than ${maxBytes} bytes`);
  if (handle.info.size > maxBytes) throw tooLarge();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const buf = new Uint8Array(64 * 1024);
    const n = await handle.read(buf);
    if (n === null) break;
    total += n;
    if (total > maxBytes) throw tooLarge();
    chunks.push(buf.subarray(0, n));
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

/**
 * A regular file opened synchronously for a tree scan (see `FsOps.openWalkedFileSync`). Reads
 * block the calling thread: callers read small files whole and big ones in bounded chunks, and
 * yield to the event loop between files. Must be closed.
 */
export interface SyncFileHandle {
  /** Metadata of the open handle (not of the path); may be fetched on first use (FsError then). */
  readonly info: FileInfo;
  /** Reads up to `into.length` bytes; returns the count, or null at end of file. */
  readSync(into: Uint8Array): number | null;
  /** Releases the handle; safe to call twice. */
  close(): void;
}

/** What an atomic write did. */
export interface WriteResult {
  /** The real path written. */
  path: string;
  /** True when the file did not exist before. */
  created: boolean;
}

/**
 * Filesystem operations. Every method throws `FsError` for expected failures (and nothing else
 * except bugs). Paths are absolute.
 */
export interface FsOps {
  /** Resolves every symlink; `not_found` when the path does not exist. */
  realPath(path: string): Promise<string>;
  /** Metadata without following a final symlink. */
  lstat(path: string): Promise<FileInfo>;
  /** Metadata following symlinks. */
  stat(path: string): Promise<FileInfo>;
  /** The target a symlink holds, as written (optional: without it, links are not read). */
  readLink?(path: string): Promise<string>;
  /** Entries of a directory, in no particular order. */
  readDir(path: string): AsyncIterable<DirEntry>;
  /**
   * Optional synchronous `readDir` for tree walks (one call per directory instead of a thread
   * round trip); same entries and errors. Implementations without synchronous I/O omit it.
   */
  readDirSync?(path: string): DirEntry[];
  /**
   * Opens a regular file for reading by its resolved real path, then checks that the handle is
   * the file now at that path (same dev+ino, regular file, not a symlink); `changed` otherwise.
   */
  openFile(path: string): Promise<FileHandle>;
  /**
   * Optional fast path for tree scans (grep): opens synchronously a regular file whose path a
   * walk produced from a real (symlink-free) directory without following symlinks, so the path
   * is not resolved again. The race check stays: the path is lstat'ed first (a regular file, so
   * a FIFO is never opened), and the open handle must be that same file (dev+ino), else
   * `changed` — except where an OS sandbox confines every open (src/sys/fs.ts `confined`): there
   * the walk's listing is the only check. Throws `FsError` like `openFile`. Implementations
   * without synchronous I/O omit it.
   */
  openWalkedFileSync?(path: string): SyncFileHandle;
  /** Reads a whole regular file through `openFile`; `too_large` over `maxBytes`. */
  readFile(path: string, options?: { maxBytes?: number }): Promise<Uint8Array>;
  /**
   * Atomically replaces or creates the file at the path's resolved real location (temp file in
   * the real parent directory + rename), keeping an existing file's mode.
   */
  writeFile(
    path: string,
    data: Uint8Array,
    options?: { createParents?: boolean },
  ): Promise<WriteResult>;
  /** The user's home directory for `~` expansion, when known. */
  homeDir?(): string | undefined;
}

// ---------------------------------------------------------------------------------------------
// ProcessOps (bash engineer)
// ---------------------------------------------------------------------------------------------

/** How a process ended: its exit code, or the signal that killed it; both null when unknown. */
export interface ProcessExit {
  code: number | null;
  signal: string | null;
}

/** Where and with what environment a process runs. */
export interface SpawnOptions {
  /** Absolute working directory. */
  cwd: string;
  /**
   * The complete environment (nothing is inherited). The program name is looked up in its PATH;
   * when PATH is missing, implementations use and pass on `/usr/bin:/bin`.
   */
  env: Record<string, string>;
}

/**
 * A running process that leads its own process group (pid = process-group id), stdin from null,
 * stdout and stderr piped. Both streams must be read to the end or cancelled.
 */
export interface ChildProcessHandle {
  /** Process id, which is also the id of the process group it leads. */
  readonly pid: number;
  readonly stdout: ReadableStream<Uint8Array>;
  readonly stderr: ReadableStream<Uint8Array>;
  /** Settles once the process has exited; never rejects. */
  readonly status: Promise<ProcessExit>;
  /**
   * SIGKILLs the whole process group, grandchildren included. The signal is sent before the
   * promise is returned where the platform allows; never throws or rejects; safe to repeat.
   */
  killGroup(): Promise<void>;
}

/** A spawn outcome: the child, or why it could not be started (an expected failure). */
export type SpawnResult =
  | { ok: true; child: ChildProcessHandle }
  | { ok: false; reason: "not_found" | "permission_denied" | "failed"; message: string };

/** A new file receiving spilled output; writes are sequential. Must be closed. */
export interface SpillFile {
  /** Absolute path of the file. */
  readonly path: string;
  /** Appends all of `bytes`. */
  write(bytes: Uint8Array): Promise<void>;
  /** Flushes and closes; safe to call twice. */
  close(): Promise<void>;
}

/** Process operations for the bash tool; the Deno default is `createDenoProcessOps()`. */
export interface ProcessOps {
  /** Starts `program args…` in a new process group; never throws for expected failures. */
  spawn(program: string, args: string[], options: SpawnOptions): SpawnResult;
  /**
   * Creates a new file at `path` (parent directories included; fails if it exists) for spilled
   * output. Rejects with `FsError` for expected failures.
   */
  createSpillFile(path: string): Promise<SpillFile>;
}

/** A live process group the registry can kill. */
export interface KillableGroup {
  readonly pid: number;
  killGroup(): Promise<void>;
}

/** Every live process group of a run, so the host can kill them all on exit. */
export interface ProcessRegistry {
  /** Tracks a live group; the returned function stops tracking it (idempotent). */
  add(group: KillableGroup): () => void;
  /** Process-group ids currently tracked. */
  pids(): number[];
  /** Kills every tracked group (signals are sent before it returns); never rejects. */
  killAll(): Promise<void>;
}
