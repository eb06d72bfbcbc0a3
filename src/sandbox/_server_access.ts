/**
 * The access of one confined program (an MCP server) with write grants of its own: the tools'
 * grants with those paths writable, and the protected paths of the widened grants found as at the
 * start (git hooks and config, moat's config and code) added to the run's, so they stay read-only in its
 * view. Its write paths never lift a protection: they are not `--allow-write=` carve-outs.
 */
import { computeProtection, type MoatCodePath, type Protection } from "../policy/mod.ts";
import type { ScanOps } from "../policy/ops.ts";
import { confinedCommand, type ConfineSpec, type HostSetup } from "./host_start.ts";
import type { HostAccess } from "./hosts.ts";

/**
 * The sandbox's `confine`: `confinedCommand` with the current access widened by the spec's
 * `readWrite`, and the tools' environment under the spec's `env`.
 */
export function serverConfiner(
  setup: HostSetup,
  current: () => HostAccess,
  options: { workspace: string; env: Record<string, string>; code: readonly MoatCodePath[] },
): (spec: ConfineSpec) => ReturnType<typeof confinedCommand> {
  return (spec) =>
    confinedCommand(
      setup,
      serverAccess(current(), spec.readWrite ?? [], { ...options, ops: setup.sys.paths }),
      { ...spec, env: { ...setup.toolOptions.env, ...spec.env } },
    );
}

/** `access` widened by `readWrite` (real paths) for one confined program. */
export function serverAccess(
  access: HostAccess,
  readWrite: readonly string[],
  options: {
    workspace: string;
    env: Record<string, string>;
    code: readonly MoatCodePath[];
    ops: ScanOps;
  },
): HostAccess {
  const { grants } = access;
  if (readWrite.length === 0 || grants.write === true) return access;
  const write = [...new Set([...grants.write, ...readWrite])];
  const widened = { ...grants, write };
  const found = computeProtection(widened, {
    workspace: options.workspace,
    env: options.env,
    ops: options.ops,
    code: options.code,
  }).protection;
  const known = new Set(access.protection.paths.map((p) => p.path));
  const protection: Protection = {
    ...access.protection,
    paths: [...access.protection.paths, ...found.paths.filter((p) => !known.has(p.path))],
    anchors: [...new Set([...access.protection.anchors, ...found.anchors])],
  };
  return { grants: widened, protection };
}
