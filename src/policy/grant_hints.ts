/**
 * The grants as the user reads them: the flag that would grant a refused location, and a one-line
 * summary of a run's grants.
 */
import { isAbsolute, relative } from "node:path";
import type { Grants, Scope } from "./grants.ts";

/**
 * The flag that, given as shown, grants `location` on top of `grants`: the kind's current list
 * (or `.` for the workspace when the kind still has its default, which a flag would replace)
 * plus the location. A path is named exactly as asked for (a real path), never a directory above
 * it — whether or not it exists, so that the hint tells nobody which paths exist outside the
 * grants; a path that does not exist is reported when the flag is given (src/policy/grants.ts).
 * Paths inside `cwd` are relative.
 */
export function grantFlagHint(
  grants: Grants,
  location: { access: "read" | "write"; path: string } | { access: "run"; program: string } | {
    access: "net";
    host: string;
  },
  options: { cwd: string },
): string {
  const { cwd } = options;
  const kind = location.access;
  let item: string;
  switch (location.access) {
    case "read":
    case "write":
      item = location.path;
      break;
    case "run":
      item = location.program;
      break;
    case "net":
      item = location.host;
      break;
    default: {
      const never: never = location;
      throw new Error(`unknown location ${JSON.stringify(never)}`);
    }
  }
  const scope = grants[kind];
  // A kind still at its default has the workspace (for paths) or nothing: a flag replaces it.
  const current = scope !== true && !grants.explicit[kind]
    ? (kind === "read" || kind === "write" ? [cwd] : [])
    : scope;
  return flagWith(kind, { allowAll: grants.allowAll, current }, item, cwd);
}

/**
 * The flag of `kind` that keeps what `current` grants and adds `item`: under `-A` the item beside
 * it, next to everything (`true`) "/" for paths, else the list plus the item. Paths inside `cwd`
 * are shown relative to it.
 */
export function flagWith(
  kind: "read" | "write" | "run" | "net",
  grant: { allowAll: boolean; current: Scope },
  item: string,
  cwd: string,
): string {
  const paths = kind === "read" || kind === "write";
  const shown = (p: string) => {
    if (!paths) return p;
    const rel = relative(cwd, p);
    return rel === "" ? "." : rel === ".." || rel.startsWith("../") || isAbsolute(rel) ? p : rel;
  };
  if (grant.allowAll) return `-A --allow-${kind}=${shown(item)}`;
  const current = grant.current === true ? (paths ? ["/"] : []) : grant.current.map(shown);
  return `--allow-${kind}=${[...new Set([...current, shown(item)])].join(",")}`;
}

/** A one-line human summary, e.g. `read: /w · write: /w/src · run: git, deno · net: none · env: safe`. */
export function formatGrants(grants: Grants): string {
  if (grants.allowAll) return "all permissions (-A)" + formatDeny(grants);
  const list = (scope: Scope, none = "none") =>
    scope === true ? "all" : scope.length === 0 ? none : scope.join(", ");
  const env = grants.env === true
    ? "all (provider keys withheld)"
    : grants.env.length === 0
    ? "safe list"
    : `safe list + ${grants.env.join(", ")}`;
  return [
    `read: ${list(grants.read)}`,
    `write: ${list(grants.write)}`,
    `run: ${list(grants.run, grants.explicit.run ? "none" : "bash in the OS sandbox")}`,
    `net: ${list(grants.net)}`,
    `env: ${env}`,
  ].join(" · ") + formatDeny(grants);
}

function formatDeny(grants: Grants): string {
  const parts: string[] = [];
  if (grants.denyRead.length) parts.push(`deny-read: ${grants.denyRead.join(", ")}`);
  if (grants.denyWrite.length) parts.push(`deny-write: ${grants.denyWrite.join(", ")}`);
  if (grants.denyRun.length) parts.push(`deny-run: ${grants.denyRun.join(", ")}`);
  if (grants.denyNet.length) parts.push(`deny-net: ${grants.denyNet.join(", ")}`);
  if (grants.ignoreRead.length) parts.push(`ignore-read: ${grants.ignoreRead.join(", ")}`);
  if (grants.ignoreEnv.length) parts.push(`ignore-env: ${grants.ignoreEnv.join(", ")}`);
  return parts.length ? " · " + parts.join(" · ") : "";
}
