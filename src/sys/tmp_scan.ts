/** Deno implementation of the tool host's TmpScanOps (src/sandbox/host/private_tmp.ts). */
import type { TmpEntry, TmpScanOps } from "../sandbox/host/private_tmp.ts";

/** Creates TmpScanOps backed by Deno.readDirSync and Deno.lstatSync. */
export function createDenoTmpScanOps(): TmpScanOps {
  return {
    entries(dir) {
      try {
        const out: TmpEntry[] = [];
        for (const entry of Deno.readDirSync(dir)) {
          const info = Deno.lstatSync(`${dir}/${entry.name}`);
          out.push({
            name: entry.name,
            isDirectory: info.isDirectory,
            mtimeMs: info.mtime?.getTime() ?? 0,
          });
        }
        return out;
      } catch {
        return undefined;
      }
    },
  };
}
