/**
 * Reading a file to show an approval question's diff, under the rule the read tool runs under:
 * the file is opened by its real path (symlinks followed, as the tools resolve them) and its
 * content is shown only when Deno's permission engine lets the tools read that real path, or
 * when it is the very path being approved (an approved write also grants reading it); a path on
 * a --deny-read list is never shown. At most DIFF_MAX_BYTES are read.
 */
import type { ToolLocation } from "../agent/tool.ts";
import type { PermissionEngine } from "../policy/mod.ts";
import {
  DIFF_MAX_BYTES,
  type FileHandle,
  FsError,
  type FsOps,
  readHandleFully,
} from "../tools/mod.ts";

/**
 * Reads `absPath` for the question about `asked`: its bytes, or null when it does not exist;
 * throws FsError "not_granted" when the tools may not read it (other FsErrors as FsOps throws).
 */
export type PreviewRead = (absPath: string, asked: ToolLocation) => Promise<Uint8Array | null>;

/** The guarded reader over the run's permission engine and moat's own file access. */
export function createPreviewRead(
  engine: PermissionEngine,
  fs: Pick<FsOps, "openFile">,
): PreviewRead {
  return async (absPath, asked) => {
    let handle: FileHandle;
    try {
      handle = await fs.openFile(absPath);
    } catch (e) {
      if (e instanceof FsError && e.code === "not_found") return null;
      throw e;
    }
    try {
      // The path opened, not the one given: a link cannot lead the preview somewhere else.
      const real = handle.path;
      const answer = await engine.query([{ access: "read", path: real }]);
      if (!answer.ok) {
        throw new FsError("not_granted", absPath, `the permission check failed: ${answer.reason}`);
      }
      const state = answer.states[0];
      const approving = "path" in asked && asked.path === real;
      if (state === "denied") {
        throw new FsError("not_granted", absPath, `reading "${real}" is denied by --deny-read`);
      }
      if (state !== "granted" && !approving) {
        throw new FsError("not_granted", absPath, `reading "${real}" is not granted`);
      }
      return await readHandleFully(handle, absPath, DIFF_MAX_BYTES);
    } finally {
      handle.close();
    }
  };
}
