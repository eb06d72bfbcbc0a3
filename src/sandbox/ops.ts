/**
 * Operation interfaces of the sandbox: spawning the tool host process, facts about the running
 * moat executable, sockets and approved files, and `SandboxSys`, all of them together. Deno
 * implementations live in src/sys/ (host_process.ts, runtime.ts, net.ts, paths.ts, command.ts,
 * fs.ts, process.ts);
 * the entry points build them and pass them in.
 */
import type { CommandOps, ScanOps } from "../policy/ops.ts";
import type { Clock } from "../agent/types.ts";
import type { FetchNet, FsOps, ProcessOps } from "../tools/mod.ts";

/** How a process ended. */
export interface HostExit {
  code: number;
  /** The signal that killed it, e.g. "SIGKILL"; null when it exited by itself. */
  signal: string | null;
}

/** A running tool host process with piped standard streams. */
export interface HostProcess {
  readonly pid: number;
  readonly stdin: WritableStream<Uint8Array>;
  readonly stdout: ReadableStream<Uint8Array>;
  readonly stderr: ReadableStream<Uint8Array>;
  /** Settles once the process has exited; never rejects. */
  readonly status: Promise<HostExit>;
  /** Sends SIGKILL; does nothing when the process is already gone. Must not throw. */
  kill(): void;
  /**
   * Sends SIGKILL to `pid`, the first process of the sandbox this process started (bwrap's
   * child, pid 1 of its pid namespace: the kernel ends every process in it with it), while this
   * process has not exited, so that `pid` is still its child and no reused number. Must not throw.
   */
  killChild(pid: number): void;
}

/** How to start a tool host process. */
export interface HostSpawnOptions {
  /**
   * A descriptor of the program's (above 2) that is its stderr too: bwrap's `--json-status-fd`,
   * whose first line names the sandbox's first process.
   */
  statusFd?: number;
}

/** Starts tool host processes. */
export interface HostProcessOps {
  /**
   * Starts `program` with `args` and piped stdin/stdout/stderr in a new session (so it leads its
   * own process group and a Ctrl-C on moat's terminal does not reach it). Throws when the program
   * cannot be started.
   */
  spawn(program: string, args: string[], options?: HostSpawnOptions): HostProcess;
}

/** Facts about the running moat executable. */
export interface RuntimeOps {
  /** The executable running moat (the deno binary under `deno run`). */
  execPath(): string;
  /** URL of the main module (the script under `deno run`). */
  mainModule(): string;
  /** True in a `deno compile` binary, which re-executes itself rather than `deno run`. */
  standalone(): boolean;
  /** Deno's cache directory (real path) as `executable info --json` reports it, if known. */
  denoDir(executable: string): Promise<string | undefined>;
  /**
   * moat's module root (main.ts's directory, as a URL), where the Worker modules are loaded
   * from; absent: next to src/sandbox/worker/worker_modules.ts (a bundled CLI's chunks are not).
   */
  moduleRoot?(): string;
  /**
   * The cache directory this Deno uses under `env` as Deno works it out (DENO_DIR, relative to the
   * current directory, else the OS default; absolute, not resolved): no subprocess, no look-up.
   */
  cacheDir(env: Record<string, string>): string | undefined;
  /**
   * The `--config` file this Deno runs the main module with (absolute), if the process's command
   * line shows one (Linux: /proc/self/cmdline); undefined elsewhere or without one.
   */
  configFile(): string | undefined;
}

/** A byte-stream connection (TCP or UNIX socket); `Deno.Conn` has this shape. */
export interface NetConn {
  /** Reads into `p`; null at the end of the stream. Rejects once the connection fails or closes. */
  read(p: Uint8Array): Promise<number | null>;
  /** Writes some of `p`; resolves to how many bytes were written. Rejects when the peer is gone. */
  write(p: Uint8Array): Promise<number>;
  /** Ends the writing half (the peer reads the end of the stream). Must not reject. */
  closeWrite(): Promise<void>;
  /** Closes both halves; pending reads and writes reject. Idempotent, must not throw. */
  close(): void;
}

/** A listening socket. */
export interface NetListener {
  /** The next connection, or null once the listener is closed. Must not reject. */
  accept(): Promise<NetConn | null>;
  /** Stops listening (a UNIX socket's file is removed). Idempotent, must not throw. */
  close(): void;
}

/** Why an outgoing connection failed (a SOCKS5 reply code is chosen from it). */
export type ConnectFailure = "refused" | "unreachable" | "timed_out" | "other";

/** An outgoing connection, or why there is none. */
export type ConnectResult =
  | { ok: true; conn: NetConn }
  | { ok: false; failure: ConnectFailure; message: string };

/** A listener, or why it could not be opened. */
export type ListenResult =
  | { ok: true; listener: NetListener; port: number }
  | { ok: false; message: string };

/** Sockets for bash's network proxy (src/sandbox/net/proxy.ts, src/sandbox/net/forward.ts). */
export interface NetOps {
  /** Listens on the UNIX socket file `path` (port 0 in the result). Must not throw. */
  listenUnix(path: string): ListenResult;
  /** Listens on TCP `hostname:port` (port 0: any free port, reported). Must not throw. */
  listenTcp(hostname: string, port: number): ListenResult;
  /** Connects over TCP (`hostname` is a name or an IP address, IPv6 without brackets). */
  connectTcp(
    hostname: string,
    port: number,
    options?: { signal?: AbortSignal },
  ): Promise<ConnectResult>;
  /** Connects to the UNIX socket file `path`. Must not reject. */
  connectUnix(path: string): Promise<ConnectResult>;
}

/**
 * Creates the file an approved write names, so that a tool host can mount exactly that file, and
 * moat's own files in the run's spill directory.
 */
export interface ApprovalFileOps {
  /**
   * Creates `path` as an empty regular file (never through a symlink); false when it exists or
   * cannot be created. Must not throw.
   */
  createEmptyFile(path: string): boolean;
  /**
   * Replaces `path` (in a directory of moat's own) with a file holding `text`, atomically (a new
   * file renamed over it, never written through a symlink); false when it cannot. Must not throw.
   */
  replaceFile(path: string, text: string): boolean;
}

/** A shared lock on a placeholder, held while the run's views mount over it. */
export interface HeldPlaceholder {
  /** Device and inode ("dev:ino") of the placeholder. */
  id: string;
  /** Releases the lock. Idempotent, must not throw. */
  release(): void;
}

/**
 * The removal of the run's placeholders: moat removes them itself when it closes, and a process
 * outside the sandbox, in a session of its own, removes what is left once its standard input
 * reaches the end (moat closed it, or moat died: however moat ended).
 */
export interface PlaceholderRemover {
  /** Records `path` (before it is created) in the remover's list; false when it cannot. */
  record(path: string): boolean;
  /**
   * Ends the list: removes what is still an unused placeholder (in moat's process, not one
   * process per path) and lets the remover exit; resolves once it has. Must not reject.
   */
  close(): Promise<void>;
}

/**
 * Placeholders: empty files and directories made where a view needs a mount point that does not
 * exist, marked by a modification time of 0 and locked (shared) by every run that mounts over
 * them, so that a remover (which takes the lock exclusively) never removes one in use.
 */
export interface MountPointOps {
  /**
   * Creates `path` as an empty, marked placeholder file or directory: never over an existing
   * entry, never through a symlink. False when it cannot. Must not throw.
   */
  create(path: string, kind: "file" | "dir"): boolean;
  /**
   * Locks (shared) the placeholder at `path`: a marked, empty file or directory that is still
   * the entry at `path` once locked. Undefined when `path` holds none. Must not throw.
   */
  hold(path: string): HeldPlaceholder | undefined;
  /** Starts the remover; undefined when it cannot be started. Must not throw. */
  startRemover(): PlaceholderRemover | undefined;
}

/**
 * Kills the process groups it is given if moat dies without closing it (killed, SIGKILL
 * included): without bubblewrap, nothing else ends a background job's group then.
 */
export interface GroupReaper {
  /** Kills group `pgid` (a live group's leader) should moat die. */
  add(pgid: number): void;
  /** moat stopped the groups itself: the reaper ends without killing; never rejects. */
  close(): Promise<void>;
}

/** The effects a sandbox uses (the entry points pass Deno's: src/sys/sandbox.ts). */
export interface SandboxSys {
  /** Spawns the tool host process (bwrap mode). */
  processes: HostProcessOps;
  /** The moat executable, main module and Deno's cache directory. */
  runtime: RuntimeOps;
  /** Path look-ups for the bwrap view, the project root and the protected paths. */
  paths: ScanOps;
  /** Runs the bubblewrap probe commands. */
  commands: CommandOps;
  /** Creates an approved new file, so that the tool host mounts exactly that file. */
  files: ApprovalFileOps;
  /** Placeholders for the view's mount points at missing paths, and their remover. */
  mountPoints: MountPointOps;
  /** Sockets of bash's network proxy under a scoped --allow-net (bwrap mode). */
  net: NetOps;
  /** Starts the reaper of the background jobs' groups (worker mode); undefined: none. */
  groupReaper?: () => GroupReaper | undefined;
  /**
   * The effects of the main process's own tool set, built for the tools' names, schemas and
   * `locations()` (their calls run in the tool hosts, whose Worker builds its own).
   */
  tools: { fs: FsOps; process: ProcessOps };
  /**
   * The fetch tool's network, clock and file writes (it runs in the main process and saves long
   * pages in the spill directory); none: no fetch tool.
   */
  fetch?: { net: FetchNet; clock: Clock; fs: Pick<FsOps, "writeFile"> };
}
