/** Deno implementation of the CLI's and the session store's file operations. */
import type { CliFs } from "../cli/io.ts";
import type { SessionFileInfo } from "../session/store.ts";

/**
 * `op`'s value, or `missing` when the path (or a parent directory on it) does not exist or may
 * not be examined: the caller's next step (reading the file) then reports the real cause.
 */
async function unlessMissing<T, M>(op: () => Promise<T>, missing: M): Promise<T | M> {
  try {
    return await op();
  } catch (e) {
    if (
      e instanceof Deno.errors.NotFound || e instanceof Deno.errors.NotADirectory ||
      e instanceof Deno.errors.PermissionDenied
    ) return missing;
    throw e;
  }
}

/** A file's text, or null when it does not exist. */
export async function readTextOrNull(path: string): Promise<string | null> {
  try {
    return await Deno.readTextFile(path);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return null;
    throw e;
  }
}

/** Creates the Deno-backed CliFs (also a SessionFs). */
export function createDenoCliFs(): CliFs {
  return {
    readTextFile: readTextOrNull,
    async appendTextFile(path, text) {
      // Sessions hold whatever the tools read: private to the user (mode applies on creation).
      await Deno.writeTextFile(path, text, { append: true, create: true, mode: 0o600 });
    },
    async mkdirp(path) {
      await Deno.mkdir(path, { recursive: true, mode: 0o700 });
    },
    async listFiles(path) {
      const files: SessionFileInfo[] = [];
      try {
        for await (const entry of Deno.readDir(path)) {
          if (!entry.isFile) continue;
          const info = await Deno.stat(`${path}/${entry.name}`);
          files.push({ name: entry.name, mtimeMs: info.mtime?.getTime() ?? 0, size: info.size });
        }
      } catch (e) {
        if (e instanceof Deno.errors.NotFound) return null;
        throw e;
      }
      return files;
    },
    async readBytes(path) {
      try {
        return await Deno.readFile(path);
      } catch (e) {
        if (e instanceof Deno.errors.NotFound) return null;
        throw e;
      }
    },
    async appendBytes(path, bytes) {
      await Deno.writeFile(path, bytes, { append: true, create: true, mode: 0o600 });
    },
    async truncateFile(path, length) {
      await Deno.truncate(path, length);
    },
    isDirectory: (path) => unlessMissing(async () => (await Deno.stat(path)).isDirectory, false),
    exists: (path) => unlessMissing(() => Deno.lstat(path).then(() => true), false),
    realPath: (path) => unlessMissing(() => Deno.realPath(path), null),
    async makeTempDir(prefix) {
      return await Deno.realPath(await Deno.makeTempDir({ prefix }));
    },
    async writeTextFile(path, text) {
      const mode = await unlessMissing(async () => (await Deno.stat(path)).mode, null);
      const temp = `${path}.${crypto.randomUUID().slice(0, 8)}.tmp`;
      try {
        await Deno.writeTextFile(temp, text, { createNew: true, mode: (mode ?? 0o644) & 0o777 });
        await Deno.rename(temp, path);
      } catch (e) {
        await Deno.remove(temp).catch(() => {});
        throw e;
      }
    },
    async removeTree(path) {
      try {
        await Deno.remove(path, { recursive: true });
      } catch {
        // Best effort: a leftover temp directory is harmless and must not fail the run.
      }
    },
  };
}
