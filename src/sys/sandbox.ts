/** Deno implementation of the sandbox's effects (`SandboxSys`), for the entry points to pass in. */
import type { SandboxSys } from "../sandbox/ops.ts";
import { createDenoCommandOps } from "./command.ts";
import { createDenoFsOps } from "./fs.ts";
import { createDenoHostProcessOps } from "./host_process.ts";
import { createDenoMountPointOps } from "./mount_points.ts";
import { createDenoNetOps } from "./net.ts";
import { startGroupReaper } from "./group_reaper.ts";
import { createDenoFetchNet } from "./fetch_net.ts";
import { systemClock } from "./clock.ts";
import { createDenoApprovalFileOps, createDenoScanOps } from "./paths.ts";
import { createDenoProcessOps } from "./process.ts";
import { createDenoRuntimeOps } from "./runtime.ts";

/**
 * Creates the SandboxSys backed by Deno: processes, runtime facts, paths, commands, files, net,
 * tools; `moduleRoot` is where moat's Worker modules are (main.ts's directory as a URL).
 */
export function createDenoSandboxSys(moduleRoot?: string): SandboxSys {
  return {
    processes: createDenoHostProcessOps(),
    runtime: createDenoRuntimeOps(moduleRoot),
    paths: createDenoScanOps(),
    commands: createDenoCommandOps(),
    files: createDenoApprovalFileOps(),
    mountPoints: createDenoMountPointOps(),
    net: createDenoNetOps(),
    groupReaper: startGroupReaper,
    tools: { fs: createDenoFsOps(), process: createDenoProcessOps() },
    fetch: { net: createDenoFetchNet(), clock: systemClock, fs: createDenoFsOps() },
  };
}
