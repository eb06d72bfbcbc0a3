/** An in-memory FsOps for unit tests: files, directories, symlinks, modes and injected faults. */
import { basename, dirname, isAbsolute, join, resolve } from "node:path";
import {
  type DirEntry,
  type FileHandle,
  type FileInfo,
  FsError,
  type FsErrorCode,
  type FsOps,
  readHandleFully,
  type WriteResult,
} from "../../src/tools/ops.ts";

type Node =
  | { kind: "file"; data: Uint8Array; mode: number; ino: number }
  | { kind: "dir"; mode: number; ino: number }
  | { kind: "symlink"; target: string; ino: number };

/** A fault injected into the next matching operation. */
export interface Fault {
  op: "openFile" | "readFile" | "writeFile" | "readDir" | "realPath" | "stat" | "lstat";
  path: string;
  code: FsErrorCode;
}

/** In-memory filesystem rooted at "/". */
export class MemoryFs implements FsOps {
  readonly #nodes = new Map<string, Node>();
  #nextIno = 1;
  readonly #home: string | undefined;
  /** Faults consumed by the next matching operation. */
  readonly faults: Fault[] = [];
  /** Largest chunk a single handle read returned (for bounded-memory assertions). */
  maxReadChunk = 0;
  /** Handles opened and not closed yet. */
  openHandles = 0;

  constructor(files: Record<string, string | Uint8Array> = {}, options: { home?: string } = {}) {
    this.#home = options.home;
    this.#nodes.set("/", { kind: "dir", mode: 0o755, ino: this.#nextIno++ });
    for (const [path, data] of Object.entries(files)) this.addFile(path, data);
  }

  /** Creates a file (and its parents). */
  addFile(path: string, data: string | Uint8Array, options: { mode?: number } = {}): void {
    const abs = resolve(path);
    this.addDir(dirname(abs));
    const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
    this.#nodes.set(abs, {
      kind: "file",
      data: bytes,
      mode: options.mode ?? 0o644,
      ino: this.#nextIno++,
    });
  }

  /** Creates a directory and its parents. */
  addDir(path: string): void {
    const abs = resolve(path);
    if (this.#nodes.has(abs)) return;
    if (abs !== "/") this.addDir(dirname(abs));
    this.#nodes.set(abs, { kind: "dir", mode: 0o755, ino: this.#nextIno++ });
  }

  /** Creates a symlink at `path` pointing to `target` (relative to the link's directory). */
  addSymlink(path: string, target: string): void {
    const abs = resolve(path);
    this.addDir(dirname(abs));
    this.#nodes.set(abs, { kind: "symlink", target, ino: this.#nextIno++ });
  }

  /** The text of a file, or undefined. */
  text(path: string): string | undefined {
    const node = this.#nodes.get(resolve(path));
    return node?.kind === "file"
      ? new TextDecoder("utf-8", { ignoreBOM: true }).decode(node.data)
      : undefined;
  }

  /** The bytes of a file, or undefined. */
  bytes(path: string): Uint8Array | undefined {
    const node = this.#nodes.get(resolve(path));
    return node?.kind === "file" ? node.data : undefined;
  }

  /** The mode of a file, or undefined. */
  mode(path: string): number | undefined {
    const node = this.#nodes.get(resolve(path));
    return node?.kind === "file" || node?.kind === "dir" ? node.mode : undefined;
  }

  /** Every path in the filesystem, sorted. */
  paths(): string[] {
    return [...this.#nodes.keys()].sort();
  }

  #fault(op: Fault["op"], path: string): void {
    const i = this.faults.findIndex((f) => f.op === op && resolve(f.path) === resolve(path));
    if (i === -1) return;
    const [fault] = this.faults.splice(i, 1);
    if (fault) throw new FsError(fault.code, path, `Injected ${fault.code} on "${path}"`);
  }

  /** Resolves symlinks in every component; `follow` decides for the last one. */
  #resolve(path: string, follow: boolean): string {
    const parts = resolve(path).split("/").filter((p) => p !== "");
    let current = "/";
    let hops = 0;
    while (parts.length > 0) {
      const name = parts.shift() as string;
      const next = join(current, name);
      const node = this.#nodes.get(next);
      if (node === undefined) {
        throw new FsError("not_found", path, `No such file or directory: "${path}"`);
      }
      if (node.kind === "symlink" && (follow || parts.length > 0)) {
        if (++hops > 40) throw new FsError("not_found", path, `Symlink loop: "${path}"`);
        const target = isAbsolute(node.target) ? node.target : join(current, node.target);
        parts.unshift(...target.split("/").filter((p) => p !== ""));
        current = "/";
        continue;
      }
      if (node.kind === "file" && parts.length > 0) {
        throw new FsError("not_a_directory", path, `A parent of "${path}" is not a directory`);
      }
      current = next;
    }
    return current;
  }

  #info(node: Node): FileInfo {
    return {
      isFile: node.kind === "file",
      isDirectory: node.kind === "dir",
      isSymlink: node.kind === "symlink",
      size: node.kind === "file" ? node.data.length : 0,
      mode: node.kind === "symlink" ? 0o777 : node.mode,
      dev: 1,
      ino: node.ino,
    };
  }

  realPath(path: string): Promise<string> {
    this.#fault("realPath", path);
    return Promise.resolve(this.#resolve(path, true));
  }

  lstat(path: string): Promise<FileInfo> {
    this.#fault("lstat", path);
    const real = this.#resolve(path, false);
    return Promise.resolve(this.#info(this.#nodes.get(real) as Node));
  }

  stat(path: string): Promise<FileInfo> {
    this.#fault("stat", path);
    const real = this.#resolve(path, true);
    return Promise.resolve(this.#info(this.#nodes.get(real) as Node));
  }

  async *readDir(path: string): AsyncIterable<DirEntry> {
    this.#fault("readDir", path);
    const real = this.#resolve(path, true);
    const node = this.#nodes.get(real) as Node;
    if (node.kind !== "dir") {
      throw new FsError("not_a_directory", path, `"${path}" is not a directory`);
    }
    const entries: DirEntry[] = [];
    for (const [p, n] of this.#nodes) {
      if (p === "/" || dirname(p) !== real) continue;
      entries.push({
        name: p.slice(real === "/" ? 1 : real.length + 1),
        isFile: n.kind === "file",
        isDirectory: n.kind === "dir",
        isSymlink: n.kind === "symlink",
      });
    }
    await Promise.resolve();
    yield* entries;
  }

  openFile(path: string): Promise<FileHandle> {
    this.#fault("openFile", path);
    const real = this.#resolve(path, true);
    const node = this.#nodes.get(real) as Node;
    if (node.kind === "dir") {
      return Promise.reject(new FsError("is_a_directory", path, `"${path}" is a directory`));
    }
    if (node.kind !== "file") {
      return Promise.reject(new FsError("not_a_file", path, `"${path}" is not a regular file`));
    }
    const data = node.data;
    let offset = 0;
    let closed = false;
    this.openHandles++;
    const handle: FileHandle = {
      path: real,
      info: this.#info(node),
      read: (into) => {
        if (closed) return Promise.reject(new Error("read after close"));
        if (offset >= data.length) return Promise.resolve(null);
        const n = Math.min(into.length, data.length - offset);
        into.set(data.subarray(offset, offset + n));
        offset += n;
        this.maxReadChunk = Math.max(this.maxReadChunk, n);
        return Promise.resolve(n);
      },
      close: () => {
        if (closed) return;
        closed = true;
        this.openHandles--;
      },
    };
    return Promise.resolve(handle);
  }

  async readFile(path: string, options: { maxBytes?: number } = {}): Promise<Uint8Array> {
    this.#fault("readFile", path);
    const handle = await this.openFile(path);
    try {
      return await readHandleFully(handle, path, options.maxBytes);
    } finally {
      handle.close();
    }
  }

  writeFile(
    path: string,
    data: Uint8Array,
    options: { createParents?: boolean } = {},
  ): Promise<WriteResult> {
    this.#fault("writeFile", path);
    // Real location: follow symlinks in the parents (and a live final symlink).
    let target: string;
    try {
      target = this.#resolve(path, true);
    } catch (e) {
      if (!(e instanceof FsError) || e.code !== "not_found") throw e;
      let parent = dirname(resolve(path));
      const missing = [basename(resolve(path))];
      for (;;) {
        try {
          parent = this.#resolve(parent, true);
          break;
        } catch (inner) {
          if (!(inner instanceof FsError) || inner.code !== "not_found") throw inner;
          missing.unshift(basename(parent));
          parent = dirname(parent);
        }
      }
      if (missing.length > 1 && !options.createParents) {
        throw new FsError("not_found", path, `Parent directory of "${path}" does not exist`);
      }
      target = join(parent, ...missing);
    }
    const existing = this.#nodes.get(target);
    if (existing?.kind === "dir") {
      throw new FsError("is_a_directory", path, `"${path}" is a directory`);
    }
    if (this.#nodes.get(dirname(target))?.kind !== "dir") this.addDir(dirname(target));
    const created = existing?.kind !== "file";
    this.#nodes.set(target, {
      kind: "file",
      data: data.slice(),
      mode: existing?.kind === "file" ? existing.mode : 0o644,
      ino: this.#nextIno++,
    });
    return Promise.resolve({ path: target, created });
  }

  homeDir(): string | undefined {
    return this.#home;
  }
}
