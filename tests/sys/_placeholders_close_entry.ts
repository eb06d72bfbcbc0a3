/**
 * Test entry: makes a placeholder directory and a placeholder file in `Deno.args[0]`, records
 * them with a remover, closes it and exits 0 (1 when the remover did not start).
 */
import { join } from "node:path";
import { createDenoMountPointOps } from "../../src/sys/mount_points.ts";

const ops = createDenoMountPointOps();
const remover = ops.startRemover();
if (remover === undefined) Deno.exit(1);
for (const [name, kind] of [["dir", "dir"], ["file", "file"]] as const) {
  const path = join(Deno.args[0]!, name);
  if (!remover.record(path) || !ops.create(path, kind)) Deno.exit(1);
}
await remover.close();
Deno.exit(0);
