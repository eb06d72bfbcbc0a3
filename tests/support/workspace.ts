/** Temp workspaces for tests: a fresh directory passed as cwd (tests never Deno.chdir). */
import { join } from "node:path";
import { lstatOrNull } from "../../src/sys/fs_common.ts";

/** A temporary directory removed by `[Symbol.asyncDispose]` / `cleanup()`. */
export interface TempWorkspace extends AsyncDisposable {
  /** Absolute real path of the workspace (symlinks in the temp root resolved). */
  readonly dir: string;
  /** Absolute path of `rel` inside the workspace. */
  path(rel: string): string;
  /** Writes files (creating parents) from a map of relative path → text or bytes. */
  write(files: Record<string, string | Uint8Array>): Promise<void>;
  /** Removes the workspace and everything in it. */
  cleanup(): Promise<void>;
}

/** Creates a temp workspace, optionally pre-filled with files. */
export async function createTempWorkspace(
  files: Record<string, string | Uint8Array> = {},
  options: { prefix?: string } = {},
): Promise<TempWorkspace> {
  const dir = await Deno.realPath(
    await Deno.makeTempDir({ prefix: options.prefix ?? "moat-test-" }),
  );
  const ws: TempWorkspace = {
    dir,
    path: (rel) => join(dir, rel),
    async write(entries) {
      for (const [rel, data] of Object.entries(entries)) {
        const full = join(dir, rel);
        await Deno.mkdir(join(full, ".."), { recursive: true });
        if (typeof data === "string") await Deno.writeTextFile(full, data);
        else await Deno.writeFile(full, data);
      }
    },
    async cleanup() {
      try {
        await Deno.remove(dir, { recursive: true });
      } catch (e) {
        if (!(e instanceof Deno.errors.NotFound)) throw e;
      }
    },
    [Symbol.asyncDispose]() {
      return ws.cleanup();
    },
  };
  await ws.write(files);
  return ws;
}

/** The names of the entries of directory `dir`, sorted. */
export async function entryNames(dir: string): Promise<string[]> {
  return (await Array.fromAsync(Deno.readDir(dir))).map((e) => e.name).sort();
}

/** Whether anything (a file, a directory, a dangling symlink) is at `path`. */
export async function exists(path: string): Promise<boolean> {
  return (await lstatOrNull(path)) !== null;
}
