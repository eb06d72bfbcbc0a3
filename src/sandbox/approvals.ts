/**
 * What an approval changes in the sandbox: the grants ("always", a "directory" — whose
 * repositories get their hooks and config protected — or "once" for one call), and with
 * bubblewrap the view, which mounts only what exists: an approved or granted new file is created
 * (empty) first, so that the next host mounts exactly that file and never its directory.
 */
import { dirname } from "node:path";
import {
  computeProtection,
  type Grants,
  type MoatCodePath,
  type PermissionPolicyOptions,
  type PolicyCall,
  type Protection,
} from "../policy/mod.ts";
import type { ToolHosts } from "./hosts.ts";
import type { SandboxSys } from "./ops.ts";
import { widenForApproval } from "./permissions.ts";

/** What approvals work on. */
export interface ApprovalSetup {
  hosts: ToolHosts;
  /** True in bubblewrap mode, where the view must show an approved new file. */
  bwrap: boolean;
  /** The workspace (real path). */
  cwd: string;
  /** moat's environment (for the git configuration of a newly approved repository). */
  env: Record<string, string>;
  /** moat's own code (./moat_code.ts): protected once an approval widens a grant around it. */
  code: readonly MoatCodePath[];
  sys: Pick<SandboxSys, "paths" | "files">;
}

/** The approval side of the sandbox. */
export interface Approvals {
  /** Applies an approval the user gave (the policy's `onApproved`). */
  onApproved: NonNullable<PermissionPolicyOptions["onApproved"]>;
  /**
   * A write grant may name a file that does not exist yet (`--allow-write=.,/tmp/out.txt`): when
   * an allowed call may write it, it is created (empty) and the next host mounts exactly it.
   */
  createGrantedFiles(call: PolicyCall): Promise<void>;
  /**
   * The file created (empty) for call `toolCallId`, once: the call's write found it there, but
   * the file is new.
   */
  takeCreatedFile(toolCallId: string): string | undefined;
}

/** Creates the approval side of a sandbox over `setup.hosts`. */
export function createApprovals(setup: ApprovalSetup): Approvals {
  const { hosts, sys } = setup;
  const created = new Map<string, string>();
  const create = (toolCallId: string, path: string) => {
    if (createApprovedFile(path, sys)) created.set(toolCallId, path);
  };
  return {
    onApproved({ toolCallId, location, scope }) {
      // The view grows by exactly the approved path: a new file is created first (its directory
      // exists), so that the host can mount that one file and never its directory.
      if (setup.bwrap && location.access === "write" && scope !== "directory") {
        create(toolCallId, location.path);
      }
      if (scope === "always") {
        hosts.widen(widenForApproval(hosts.grants, location));
      } else if (scope === "directory" && "path" in location) {
        const grants = widenForApproval(hosts.grants, {
          ...location,
          path: dirname(location.path),
        });
        hosts.widen(grants, withMoreProtection(hosts.protection, grants, setup));
      } else {
        hosts.allowOnce(toolCallId, location);
      }
    },
    async createGrantedFiles(call) {
      if (hosts.grants.write === true) return;
      // Most runs grant no missing file: then no call needs its locations resolved a second time.
      const missing = hosts.grants.write.filter((p) => sys.paths.lstat(p) === undefined);
      if (missing.length === 0) return;
      const writes = await Promise.resolve(call.tool.locations?.(call.args) ?? []).catch(() => []);
      for (const location of writes) {
        if (location.access !== "write" || !missing.includes(location.path)) continue;
        create(call.toolCallId, location.path);
        if (sys.paths.lstat(location.path) !== undefined) hosts.restart();
      }
    },
    takeCreatedFile(toolCallId) {
      const path = created.get(toolCallId);
      created.delete(toolCallId);
      return path;
    },
  };
}

/**
 * `protection` plus what protects the widened `grants` (a repository inside a newly approved
 * directory): paths and anchors are only ever added, never removed.
 */
function withMoreProtection(
  protection: Protection,
  grants: Grants,
  options: {
    cwd: string;
    env: Record<string, string>;
    code: readonly MoatCodePath[];
    sys: Pick<SandboxSys, "paths">;
  },
): Protection {
  const more = computeProtection(
    { ...grants, namedWrite: protection.named },
    { workspace: options.cwd, env: options.env, ops: options.sys.paths, code: options.code },
  ).protection;
  const known = new Set(protection.paths.map((p) => p.path));
  return {
    ...protection,
    paths: [...protection.paths, ...more.paths.filter((p) => !known.has(p.path))],
    anchors: [...new Set([...protection.anchors, ...more.anchors])],
  };
}

/**
 * Creates an approved file that does not exist yet, when its directory is a real directory;
 * true when it did.
 */
function createApprovedFile(path: string, sys: Pick<SandboxSys, "paths" | "files">): boolean {
  if (sys.paths.lstat(path) !== undefined) return false;
  const parent = dirname(path);
  const real = sys.paths.realPath(parent);
  if (!real.ok || real.path !== parent || sys.paths.stat(parent)?.kind !== "dir") return false;
  return sys.files.createEmptyFile(path);
}
