/**
 * The file operations of the tools in a tool-host Worker and in grep's helper Workers, from the
 * guard the host sends: Deno's FsOps as the sandbox mode needs them, behind the deny lists and
 * protected paths (_guarded_fs.ts). One definition, so a helper reads exactly as its tool does.
 */
import type { FsOps } from "../../tools/mod.ts";
import type { WireFsGuard } from "../host/protocol.ts";
import { guardFsOps } from "./_guarded_fs.ts";

/** The options of src/sys/fs.ts `createDenoFsOps` that the sandbox mode decides. */
export interface DenoFsMode {
  recheckRealPath?: boolean;
  confined?: boolean;
}

/**
 * The tools' FsOps for `guard`: without bubblewrap (`recheckOpens`) every open is re-checked;
 * in bubblewrap's view (`recheckOpens: false`) a walk's files are opened without the checks that
 * only guard against reaching outside the view. Without a guard: Deno's defaults, unguarded.
 */
export function toolFsOps(
  guard: WireFsGuard | undefined,
  createDenoFsOps: (mode: DenoFsMode) => FsOps,
): FsOps {
  if (guard === undefined) return createDenoFsOps({});
  const deno = createDenoFsOps(guard.recheckOpens ? { recheckRealPath: true } : { confined: true });
  return guardFsOps(deno, {
    denyRead: guard.denyRead,
    denyWrite: guard.denyWrite,
    ...(guard.ignoreRead === undefined ? {} : { ignoreRead: guard.ignoreRead }),
    ...(guard.ignoredIds === undefined ? {} : { ignoredIds: guard.ignoredIds }),
    ...(guard.protection === undefined ? {} : { protection: guard.protection }),
    ...(guard.deniedIds === undefined ? {} : { deniedIds: guard.deniedIds }),
  });
}
