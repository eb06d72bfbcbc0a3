/**
 * The grants as Deno permissions: the tool Worker's, the deny Worker's (Deno's Worker permissions
 * have no deny lists, so a second Worker holds them), the engine that asks both, and the grants an
 * approval widens to.
 */
import {
  type Grants,
  type LocationState,
  permissionDescriptor,
  type PermissionEngine,
  widenGrants,
} from "../policy/mod.ts";
import type { ToolLocation } from "../tools/mod.ts";
import type { QueryAnswer, ToolHostClient } from "./host/client.ts";

/**
 * The tool Worker's Deno permissions for `grants`. With bubblewrap, bash runs through the nested
 * bwrap and the OS sandbox scopes what it runs; without, `--allow-run` applies to bash itself.
 */
export function workerPermissions(
  grants: Grants,
  options: { spillDir: string; bwrapPath?: string },
): Deno.PermissionOptionsObject {
  const paths = (scope: true | string[]) => scope === true ? true : [...scope, options.spillDir];
  const list = (scope: true | string[]) => scope === true ? true : scope.length ? scope : false;
  const run = options.bwrapPath !== undefined
    ? (grants.run === true ? true : ["bash", options.bwrapPath])
    : list(grants.run);
  return {
    read: paths(grants.read),
    write: paths(grants.write),
    run,
    net: list(grants.net),
    env: false,
    sys: false,
    ffi: false,
    import: false,
  };
}

/** True when the grants have a deny list (`--deny-read`, `-write`, `-run` or `-net`). */
export function hasDenyLists(grants: Grants): boolean {
  return grants.denyRead.length + grants.denyWrite.length + grants.denyRun.length +
      grants.denyNet.length > 0;
}

/** The deny Worker's permissions: the deny lists as grants ("granted" there means denied). */
export function denyPermissions(grants: Grants): Deno.PermissionOptionsObject {
  const list = (items: string[]) => items.length ? items : false;
  return {
    read: list(grants.denyRead),
    write: list(grants.denyWrite),
    run: list(grants.denyRun),
    net: list(grants.denyNet),
    env: false,
    sys: false,
    ffi: false,
    import: false,
  };
}

/**
 * Deno's permission engine for the policy: the tool Worker of the current grants (`allowed()`)
 * and, with deny lists, the deny Worker answer each location; a denial wins over a grant.
 */
export function denoPermissionEngine(
  allowed: () => ToolHostClient,
  deny: ToolHostClient | undefined,
): PermissionEngine {
  return {
    async query(locations) {
      const descriptors = locations.map(permissionDescriptor);
      const [granted, denied] = await Promise.all([
        allowed().query(descriptors),
        deny?.query(descriptors) ?? Promise.resolve<QueryAnswer>({ ok: true, states: [] }),
      ]);
      if (!granted.ok) return granted;
      if (!denied.ok) return denied;
      return {
        ok: true,
        states: locations.map((_, i): LocationState =>
          denied.states[i] === "granted"
            ? "denied"
            : granted.states[i] === "granted"
            ? "granted"
            : "prompt"
        ),
      };
    },
  };
}

/**
 * Grants widened by an approved location. An approved write also lets the tools read that one
 * path: writing a file needs its real path (and the edit tool reads it), which Deno ties to read
 * permission. Deny lists stay as they are.
 */
export function widenForApproval(grants: Grants, location: ToolLocation): Grants {
  const next = widenGrants(grants, location);
  if (location.access === "write" && next.read !== true && !next.read.includes(location.path)) {
    next.read = [...next.read, location.path];
  }
  return next;
}
