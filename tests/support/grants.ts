/**
 * The grant functions of src/policy/grants.ts resolving paths on the real disk (src/sys/paths.ts),
 * for tests that build grants for a temporary workspace; everything else is re-exported as is.
 */
import * as grants from "../../src/policy/grants.ts";
import type { PathOps } from "../../src/policy/ops.ts";
import { createDenoPathOps } from "../../src/sys/paths.ts";

export * from "../../src/policy/grants.ts";

/** defaultGrants with Deno's paths unless `paths` is given. */
export function defaultGrants(cwd: string, options: { paths?: PathOps } = {}): grants.Grants {
  return grants.defaultGrants(cwd, { paths: options.paths ?? createDenoPathOps() });
}

/** parseGrantFlags with Deno's paths unless `paths` is given. */
export function parseGrantFlags(
  values: grants.GrantFlagValues,
  options: { cwd: string; home?: string; paths?: PathOps },
): grants.GrantsResult {
  return grants.parseGrantFlags(values, {
    ...options,
    paths: options.paths ?? createDenoPathOps(),
  });
}

/** The grants of `flags` for the workspace `ws`; throws when they do not parse. */
export function grantsOf(ws: string, flags: grants.GrantFlagValues): grants.Grants {
  const result = parseGrantFlags(flags, { cwd: ws });
  if (!result.ok) throw result.error;
  return result.grants;
}
