/**
 * The permission sets a session offers as modes: the user config's `permissions`, and the
 * workspace deno.json / deno.jsonc's only in a trusted project; each described by the grants it
 * resolves to with the command line's flags (`-P NAME`), in Deno's flag syntax.
 */
import type { CliFlags } from "../cli/args.ts";
import { denoFlagLines, runGrants, workspaceSets } from "../cli/permission_set.ts";
import type { RunSetup } from "../cli/setup.ts";
import type { Grants } from "../policy/grants.ts";
import type { GrantPathOps } from "../policy/ops.ts";
import {
  flagsUnderSet,
  parsePermissionSets,
  pickPermissionSet,
  type SetSource,
} from "../policy/permission_sets.ts";
import type { SetMode } from "./modes.ts";

/** A permission set offered as a mode, with the flags its engine is opened with. */
export interface OfferedSet extends SetMode {
  flags: CliFlags;
}

/**
 * The sets of a session's setup as modes (none under `-A`, which drops any set), and notes. A
 * set's mode runs under exactly its grants: `-P NAME` with the command line's flags that the
 * set does not replace (flagsUnderSet).
 */
export async function sessionSets(
  setup: RunSetup,
  options: { flags: CliFlags; paths: GrantPathOps },
): Promise<{ sets: OfferedSet[]; notes: string[] }> {
  const { settings, workspace, fs, env } = setup;
  const { flags } = options;
  if (flags.permissions["allow-all"] === true) return { sets: [], notes: [] };
  const sources: SetSource[] = [];
  const notes: string[] = [];
  if (settings.permissionSets !== undefined) {
    const { file, value } = settings.permissionSets;
    const user = parsePermissionSets(value, file, { base: workspace });
    if (user.ok) sources.push({ origin: "user", file, sets: user.sets });
  }
  // Only a trusted project's own sets are offered.
  if (settings.project.trusted) {
    const found = await workspaceSets(fs, workspace);
    if (found.ok && found.source !== undefined) sources.push(found.source);
  }
  const sets: OfferedSet[] = [];
  for (const name of new Set(sources.flatMap((s) => [...s.sets.keys()]))) {
    const picked = pickPermissionSet(name, sources);
    if (!picked.ok || picked.set === undefined) continue;
    const setFlags: CliFlags = {
      ...flags,
      permissionSet: name,
      permissions: flagsUnderSet(picked.set, flags.permissions),
    };
    const grants = await runGrants(setFlags, {
      settings,
      workspace,
      fs,
      env,
      paths: options.paths,
      // A name an untrusted project's deno.json shadows stays the user's.
      askTrust: () => Promise.resolve("ignore"),
    });
    if (!grants.ok) {
      notes.push(`The permission set "${name}" is not offered as a mode: ${grants.error}`);
      continue;
    }
    const from = picked.origin === "user" ? "user config" : "project's deno.json";
    sets.push({
      name,
      description: `From the ${from}: ${briefGrants(grants.grants, workspace)}`,
      flags: setFlags,
    });
  }
  return { sets, notes };
}

/** The grants as Deno flags on one line, paths relative to the workspace ("nothing": none). */
export function briefGrants(grants: Grants, workspace: string): string {
  const relative = (item: string) =>
    item === workspace
      ? "."
      : item.startsWith(`${workspace}/`)
      ? item.slice(workspace.length + 1)
      : item;
  const flags = denoFlagLines(grants).filter((line) => !line.startsWith("#")).map((line) => {
    const at = line.indexOf("=");
    return at === -1
      ? line
      : `${line.slice(0, at + 1)}${line.slice(at + 1).split(",").map(relative).join(",")}`;
  });
  return flags.length === 0 ? "nothing granted" : flags.join(" ");
}
