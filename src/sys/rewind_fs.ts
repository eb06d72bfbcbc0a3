/** The Deno implementation of RewindFs (the rewind index and its directory). */
import { dirname } from "node:path";
import type { RewindFs } from "../rewind/mod.ts";
import { readTextOrNull } from "./session_fs.ts";

/** Creates Deno-backed rewind file operations. */
export function createDenoRewindFs(): RewindFs {
  return {
    readTextFile: readTextOrNull,
    async writeTextFile(path, text) {
      await Deno.mkdir(dirname(path), { recursive: true, mode: 0o700 });
      const temp = `${path}.${crypto.randomUUID()}.tmp`;
      await Deno.writeTextFile(temp, text, { mode: 0o600 });
      await Deno.rename(temp, path);
    },
    async mkdirp(path) {
      await Deno.mkdir(path, { recursive: true, mode: 0o700 });
    },
    async removeTree(path) {
      try {
        await Deno.remove(path, { recursive: true });
      } catch (e) {
        if (!(e instanceof Deno.errors.NotFound)) throw e;
      }
    },
    async listNames(path) {
      try {
        const names: string[] = [];
        for await (const entry of Deno.readDir(path)) names.push(entry.name);
        return names.sort();
      } catch (e) {
        if (e instanceof Deno.errors.NotFound) return null;
        throw e;
      }
    },
  };
}
