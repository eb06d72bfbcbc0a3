/**
 * Deno implementation of the policy layer's PathOps (synchronous realpath, stat and lstat) and
 * ScanOps (plus small file reads and directory listings).
 */
import type { PathLink, PathOps, PathStat, RealPathResult, ScanOps } from "../policy/ops.ts";
import type { ApprovalFileOps } from "../sandbox/ops.ts";

/** Creates PathOps backed by Deno's synchronous file system calls. */
export function createDenoPathOps(): PathOps {
  return {
    realPath(path: string): RealPathResult {
      try {
        return { ok: true, path: Deno.realPathSync(path) };
      } catch (e) {
        const message = e instanceof Error ? e.message : String(e);
        return {
          ok: false,
          reason: e instanceof Deno.errors.NotFound ? "not_found" : "failed",
          message,
        };
      }
    },
    stat(path: string): PathStat | undefined {
      try {
        const st = Deno.statSync(path);
        return { kind: kindOf(st), mode: st.mode };
      } catch {
        return undefined;
      }
    },
    lstat(path: string): PathLink | undefined {
      try {
        const st = Deno.lstatSync(path);
        if (st.isSymlink) return { kind: "symlink", target: Deno.readLinkSync(path) };
        return st.ino === null
          ? { kind: kindOf(st), size: st.size }
          : { kind: kindOf(st), id: `${st.dev}:${st.ino}`, size: st.size };
      } catch {
        return undefined;
      }
    },
  };
}

/** Creates ScanOps backed by Deno's synchronous file system calls. */
export function createDenoScanOps(): ScanOps {
  return {
    ...createDenoPathOps(),
    readTextFile(path: string, maxBytes: number): string | undefined {
      try {
        // stat first: opening a FIFO would block, and a huge file is not a config file.
        const st = Deno.statSync(path);
        if (!st.isFile || st.size > maxBytes) return undefined;
        return Deno.readTextFileSync(path);
      } catch {
        return undefined;
      }
    },
    readDirNames(path: string): string[] | undefined {
      try {
        return Array.from(Deno.readDirSync(path), (e) => e.name);
      } catch {
        return undefined;
      }
    },
  };
}

function kindOf(st: Deno.FileInfo): "file" | "dir" | "other" {
  return st.isFile ? "file" : st.isDirectory ? "dir" : "other";
}

/** Creates ApprovalFileOps backed by Deno's synchronous file system calls. */
export function createDenoApprovalFileOps(): ApprovalFileOps {
  return {
    createEmptyFile(path: string): boolean {
      try {
        // createNew (O_EXCL) fails on any existing entry, a dangling symlink included.
        Deno.openSync(path, { write: true, createNew: true, mode: 0o666 }).close();
        return true;
      } catch {
        return false;
      }
    },
    replaceFile(path: string, text: string): boolean {
      const temp = `${path}.${crypto.randomUUID().slice(0, 8)}.tmp`;
      try {
        Deno.writeTextFileSync(temp, text, { createNew: true, mode: 0o644 });
        Deno.renameSync(temp, path);
        return true;
      } catch {
        try {
          Deno.removeSync(temp);
        } catch { /* never made */ }
        return false;
      }
    },
  };
}
