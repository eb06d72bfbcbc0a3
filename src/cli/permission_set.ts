/**
 * `-P[=NAME]`: the permission set of a run, from the user config or the workspace's deno.json /
 * deno.jsonc (a workspace set is the repository's word: it needs a trusted project, and the grants
 * it resolved to are shown before the first request), combined with the flags and parsed into
 * Grants like the flags alone.
 */
import { join } from "node:path";
import type { ParseError } from "jsonc-parser";
import { type GrantFlagValues, type Grants, parseGrantFlags } from "../policy/grants.ts";
import type { GrantPathOps } from "../policy/ops.ts";
import {
  parsePermissionSets,
  pickPermissionSet,
  setFlagValues,
  type SetSource,
} from "../policy/permission_sets.ts";
import type { CliFlags } from "./args.ts";
import { type Settings, userConfigPath } from "./config.ts";
import { type CliFs, readTextOrReason } from "./io.ts";
import { type AskTrust, decideProjectTrust } from "./trust.ts";

/** The grants of a run, notes for stderr, and the Deno flags to show (a workspace set's). */
export type RunGrants =
  | { ok: true; grants: Grants; notes: string[]; show?: { set: string; file: string } }
  | { ok: false; error: string };

/** Reads the `permissions` of the workspace's deno.json or deno.jsonc (JSONC), if any. */
export async function workspaceSets(
  fs: CliFs,
  workspace: string,
): Promise<{ ok: true; source?: SetSource } | { ok: false; error: string }> {
  for (const name of ["deno.json", "deno.jsonc"]) {
    const file = join(workspace, name);
    const read = await readTextOrReason(fs, file);
    if ("reason" in read) return { ok: false, error: `Could not read "${file}": ${read.reason}` };
    if (read.text === null) continue;
    // Loaded only for a workspace that has a deno.json (its UMD build takes a few ms).
    const { parse: parseJsonc, printParseErrorCode } = await import("jsonc-parser");
    const errors: ParseError[] = [];
    const data = parseJsonc(read.text, errors, { allowTrailingComma: true });
    if (errors.length > 0) {
      const first = errors[0] as ParseError;
      return {
        ok: false,
        error: `Invalid "${file}": ${printParseErrorCode(first.error)} at offset ${first.offset}` +
          ': fix the file (moat reads its "permissions" for -P)',
      };
    }
    const value = (data as Record<string, unknown> | null)?.permissions;
    if (value === undefined) return { ok: true };
    const sets = parsePermissionSets(value, file);
    if (!sets.ok) return sets;
    return { ok: true, source: { origin: "workspace", file, sets: sets.sets } };
  }
  return { ok: true };
}

/**
 * The grants of a run: the flags alone, or (`-P`) combined with the picked set. A workspace set
 * in an untrusted project asks `askTrust`, and fails closed without it.
 */
export async function runGrants(
  flags: CliFlags,
  context: {
    settings: Settings;
    workspace: string;
    fs: CliFs;
    env: Record<string, string>;
    paths: GrantPathOps;
    askTrust?: AskTrust;
  },
): Promise<RunGrants> {
  const { settings, workspace, env } = context;
  const home = env.HOME === undefined || env.HOME === "" ? {} : { home: env.HOME };
  const parse = (
    values: GrantFlagValues,
    nothing: Parameters<typeof parseGrantFlags>[1]["nothing"] = [],
  ) => {
    const result = parseGrantFlags(values, {
      cwd: workspace,
      ...home,
      paths: context.paths,
      nothing,
    });
    return result.ok ? result : { ok: false as const, error: result.error.message };
  };
  if (flags.permissionSet === undefined) return parse(flags.permissions);
  if (flags.permissions["allow-all"] === true) {
    // Deno: -A drops the set, so a workspace set needs no trust then.
    const parsed = parse(flags.permissions);
    return parsed.ok ? { ...parsed, notes: [...parsed.notes, "-A ignores -P"] } : parsed;
  }
  const sources: SetSource[] = [];
  if (settings.permissionSets !== undefined) {
    // The user config lives outside any project: its relative paths are in the workspace.
    const user = parsePermissionSets(settings.permissionSets.value, settings.permissionSets.file, {
      base: workspace,
    });
    if (!user.ok) return user;
    sources.push({ origin: "user", file: settings.permissionSets.file, sets: user.sets });
  }
  const found = await workspaceSets(context.fs, workspace);
  if (!found.ok) return found;
  if (found.source !== undefined) sources.push(found.source);
  let picked = pickPermissionSet(flags.permissionSet, sources);
  if (!picked.ok) return picked;
  if (picked.set !== undefined && picked.origin === "workspace" && !settings.project.trusted) {
    const trust = await decideProjectTrust({
      permissions: { [picked.set.name]: rawSet(picked.set) },
    }, {
      fs: context.fs,
      env,
      workspace,
      trustProject: flags.trustProject,
      trustedProjects: [],
      userPath: userConfigPath(env),
      projectPath: picked.set.file,
      projectFileFound: true,
      ...(context.askTrust === undefined ? {} : { askTrust: context.askTrust }),
      overridden: () => false,
    });
    if (!trust.ok) return trust;
    if (!trust.info.trusted) {
      // Ignored: the user's set of that name if there is one, else the flags alone.
      picked = pickPermissionSet(flags.permissionSet, sources.filter((s) => s.origin === "user"));
      if (!picked.ok || picked.set === undefined) {
        const parsed = parse(flags.permissions);
        return parsed.ok ? { ...parsed, notes: [...parsed.notes, ...trust.warnings] } : parsed;
      }
    }
  }
  if (picked.set === undefined) return parse(flags.permissions);
  const combined = setFlagValues(picked.set, flags.permissions);
  const parsed = parse(combined.values, combined.nothing);
  if (!parsed.ok) {
    return {
      ok: false,
      error: `${parsed.error} (permission set "${picked.set.name}" in "${picked.set.file}")`,
    };
  }
  const notes = [...parsed.notes, ...combined.notes];
  return picked.origin === "workspace"
    ? { ...parsed, notes, show: { set: picked.set.name, file: picked.set.file } }
    : { ...parsed, notes };
}

function rawSet(set: { all?: boolean; kinds: Record<string, unknown> }): unknown {
  return set.all === undefined ? set.kinds : { all: set.all, ...set.kinds };
}

/**
 * The grants in Deno's flag syntax, one flag per line (paths absolute): what a run may touch.
 * A kind granted nothing, and moat's own defaults, are comment lines (no flag says them).
 */
export function denoFlagLines(grants: Grants): string[] {
  const lines: string[] = [];
  const list = (items: readonly string[]) => items.join(",");
  if (grants.allowAll) lines.push("-A");
  else {
    for (const kind of ["read", "write", "run", "net", "env"] as const) {
      const scope = grants[kind];
      if (scope === true) lines.push(`--allow-${kind}`);
      else if (scope.length > 0) lines.push(`--allow-${kind}=${list(scope)}`);
      else if (kind === "run" && !grants.explicit.run) {
        lines.push("# run: bash in the OS sandbox, any program (no --allow-run)");
      } else if (kind === "env") lines.push("# env: the safe list only");
      else lines.push(`# ${kind}: nothing`);
    }
  }
  const denies = [
    ["deny-read", grants.denyRead],
    ["deny-write", grants.denyWrite],
    ["deny-run", grants.denyRun],
    ["deny-net", grants.denyNet],
    ["ignore-read", grants.ignoreRead],
    ["ignore-env", grants.ignoreEnv],
  ] as const;
  for (const [flag, items] of denies) if (items.length > 0) lines.push(`--${flag}=${list(items)}`);
  // Next to everything, the named paths still lift protected paths (src/policy/protected.ts).
  if ((grants.write === true || grants.allowAll) && grants.namedWrite.length > 0) {
    lines.push(`--allow-write=${list(grants.namedWrite)}`);
  }
  return lines;
}
