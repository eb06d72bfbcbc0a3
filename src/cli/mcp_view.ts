/**
 * What one stdio MCP server may touch: the tools' grants plus its own code (./mcp_own_code.ts)
 * plus the `permissions` of its config entry, resolved like grant flags (`~` is HOME, relative
 * paths are relative to the workspace, real paths); the one-line summary `moat mcp list` and
 * --verbose show; and the grant that would fix a server that could not start. Pure.
 */
import { basename, dirname, isAbsolute, resolve } from "node:path";
import type { McpPermissions } from "../mcp/mod.ts";
import { expandHome, type Grants, isWithin, realLocationSync } from "../policy/mod.ts";
import type { PathOps } from "../policy/ops.ts";
import { findOnPath, type OwnCode } from "./mcp_own_code.ts";

/** A server's `permissions` resolved: real paths, programs' real paths. */
export interface ServerPermissions {
  read: string[];
  write: string[];
  net: string[];
  env: string[];
  /** Real paths of the `run` programs (read-only in the view). */
  run: string[];
}

/** What a server can see, read, write and reach (the summary's source). */
export interface ServerView {
  /** Readable: the tools' read grants, its own code, `permissions.read` and `run`. */
  read: true | string[];
  write: true | string[];
  net: true | string[];
  /** Paths `--deny-read` masks, even inside the above. */
  denyRead: string[];
}

/** Directories every confined server sees read-only (the view's system directories). */
const SYSTEM_DIRS = ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc"];

/** Resolves `permissions` of a server; an error names the field and the entry. */
export function resolvePermissions(
  permissions: McpPermissions | undefined,
  options: { workspace: string; home: string | undefined; path: string | undefined; ops: PathOps },
): { ok: true; permissions: ServerPermissions } | { ok: false; error: string } {
  const out: ServerPermissions = { read: [], write: [], net: [], env: [], run: [] };
  for (const kind of ["read", "write"] as const) {
    for (const entry of permissions?.[kind] ?? []) {
      const expanded = expandHome(entry, options.home);
      if (!expanded.ok) {
        return { ok: false, error: `"permissions.${kind}" entry "${entry}": ${expanded.reason}` };
      }
      const abs = resolve(options.workspace, expanded.path);
      const real = realLocationSync(options.ops, abs);
      if (real === undefined) {
        return {
          ok: false,
          error: `"permissions.${kind}" entry "${entry}": cannot resolve "${abs}"`,
        };
      }
      if (!out[kind].includes(real)) out[kind].push(real);
    }
  }
  for (const program of permissions?.run ?? []) {
    const expanded = expandHome(program, options.home);
    const found = expanded.ok
      ? findOnPath(expanded.path, { path: options.path, cwd: options.workspace, ops: options.ops })
      : undefined;
    const real = found === undefined ? undefined : options.ops.realPath(found);
    if (real === undefined || !real.ok) {
      return {
        ok: false,
        error: `"permissions.run" entry "${program}": no such program on PATH ` +
          `("${options.path ?? ""}"); name it by its path`,
      };
    }
    if (!out.run.includes(real.path)) out.run.push(real.path);
  }
  out.net = [...(permissions?.net ?? [])];
  out.env = [...(permissions?.env ?? [])];
  return { ok: true, permissions: out };
}

/** The server's view from the tools' grants, its own code and its permissions. */
export function serverView(
  grants: Grants,
  own: OwnCode,
  permissions: ServerPermissions,
): ServerView {
  // A path already inside a listed one (or a system directory) adds nothing to say.
  const union = (scope: true | string[], more: string[], covered: string[] = []): true | string[] =>
    scope === true
      ? true
      : [...scope, ...more.filter((p) => !covered.some((c) => isWithin(p, c)))].filter(
        (p, i, all) => all.indexOf(p) === i && !all.some((q) => q !== p && isWithin(p, q)),
      );
  // Only a bare --allow-net without --deny-net shares the machine's network with a server.
  const toolsNet = grants.net === true && grants.denyNet.length === 0 ? true : [];
  return {
    read: union(grants.read, [...own.paths, ...permissions.read, ...permissions.run], SYSTEM_DIRS),
    write: union(grants.write, permissions.write),
    net: union(toolsNet, permissions.net),
    // An ignored path is no more the server's to read than a denied one.
    denyRead: [...grants.denyRead, ...grants.ignoreRead],
  };
}

/** Whether `path` (a real path) can be read in the server's view. */
export function readableIn(view: ServerView, path: string): boolean {
  if (view.denyRead.some((d) => isWithin(path, d))) return false;
  const roots = [
    ...SYSTEM_DIRS,
    ...(view.read === true ? ["/"] : view.read),
    ...(view.write === true ? ["/"] : view.write),
  ];
  return roots.some((r) => isWithin(path, r));
}

/** What a server can read, write and reach, each as a list (the home directory as `~`). */
export function viewParts(
  view: ServerView,
  home?: string,
): { read: string; write: string; net: string } {
  const show = (p: string) =>
    home !== undefined && home !== "/" && isWithin(p, home)
      ? (p === home ? "~" : `~/${p.slice(home.length + 1)}`)
      : p;
  const list = (scope: true | string[]) =>
    scope === true ? "all" : scope.length === 0 ? "none" : scope.map(show).join(", ");
  const deny = view.denyRead.length === 0 ? "" : ` (not ${view.denyRead.map(show).join(", ")})`;
  return { read: `${list(view.read)}${deny}`, write: list(view.write), net: list(view.net) };
}

/** One line: `read A, B · write C · net none|all|H1, H2`. */
export function viewSummary(view: ServerView, home?: string): string {
  const parts = viewParts(view, home);
  return `read ${parts.read} · write ${parts.write} · net ${parts.net}`;
}

/** Where a server's config lives, for the hint that names the fix. */
export interface ServerOrigin {
  name: string;
  origin: "user" | "project" | "flag";
  file: string;
}

/** The sentence naming the grant that lets the server read `dirs`. */
export function readGrantHint(origin: ServerOrigin, dirs: string[]): string {
  const flag = `--allow-read=${dirs.join(",")}`;
  if (origin.origin === "project") return `give ${flag}`;
  return `add "permissions": {"read": ${JSON.stringify(dirs)}} to server "${origin.name}" in ` +
    `"${origin.file}", or give ${flag}`;
}

/** What a package launcher (npx, bunx, uvx, uv run, pipx) needs to fetch and run a package. */
export interface LauncherNeeds {
  launcher: string;
  /** Hosts it downloads from that the server cannot reach. */
  hosts: string[];
  /** Cache directories (real paths) it writes that are not writable in the view. */
  caches: string[];
  /** The same caches as the config names them (`~/…`). */
  cacheEntries: string[];
}

/**
 * The hosts and caches a launcher command needs that the server's view lacks; undefined for
 * another command, or when nothing is missing. `env` is the server's environment.
 */
export function launcherNeeds(
  command: string,
  view: ServerView,
  options: {
    env: Record<string, string>;
    home: string | undefined;
    ops: PathOps;
    args?: readonly string[];
  },
): LauncherNeeds | undefined {
  const launcher = basename(command);
  const { env, home } = options;
  const at = (variable: string | undefined, fallback: string) =>
    variable !== undefined && isAbsolute(variable) ? variable : fallback;
  const xdgCache = at(env["XDG_CACHE_HOME"], "~/.cache");
  let hosts: string[];
  let caches: string[];
  switch (launcher) {
    case "npx":
    case "bunx": {
      const registry = env["npm_config_registry"] ?? env["NPM_CONFIG_REGISTRY"];
      hosts = [registryHost(registry) ?? "registry.npmjs.org"];
      caches = launcher === "npx"
        ? [at(env["npm_config_cache"] ?? env["NPM_CONFIG_CACHE"], "~/.npm")]
        : [at(env["BUN_INSTALL_CACHE_DIR"], "~/.bun/install/cache")];
      break;
    }
    case "uv":
    case "uvx":
      // `uv run` installs a script's dependencies as uvx does; other uv commands are not runs.
      if (launcher === "uv" && !(options.args ?? []).includes("run")) return undefined;
      hosts = ["pypi.org", "files.pythonhosted.org"];
      caches = [at(env["UV_CACHE_DIR"], `${xdgCache}/uv`)];
      break;
    case "pipx":
      hosts = ["pypi.org", "files.pythonhosted.org"];
      caches = [at(env["PIPX_HOME"], "~/.local/share/pipx"), `${xdgCache}/pip`];
      break;
    default:
      return undefined;
  }
  const missingHosts = hosts.filter((h) => view.net !== true && !view.net.includes(h));
  const missing = caches.map((entry) => {
    const expanded = expandHome(entry, home);
    const real = expanded.ok ? realLocationSync(options.ops, expanded.path) : undefined;
    return { entry, real: real ?? entry };
  }).filter((c) => view.write !== true && !view.write.some((w) => isWithin(c.real, w)));
  if (missingHosts.length === 0 && missing.length === 0) return undefined;
  return {
    launcher,
    hosts: missingHosts,
    caches: missing.map((c) => c.real),
    cacheEntries: missing.map((c) => c.entry),
  };
}

/** The sentence saying what a launcher lacks and the `permissions` line that gives it. */
export function launcherHint(needs: LauncherNeeds, origin: ServerOrigin): string {
  const parts: string[] = [];
  if (needs.hosts.length > 0) {
    parts.push(`the host${needs.hosts.length > 1 ? "s" : ""} ${quoted(needs.hosts)}`);
  }
  if (needs.caches.length > 0) {
    parts.push(`a writable cache ${quoted(needs.caches)}`);
  }
  const grant: Record<string, string[]> = {};
  if (needs.hosts.length > 0) grant.net = needs.hosts;
  if (needs.cacheEntries.length > 0) grant.write = needs.cacheEntries;
  const line = `"permissions": ${
    JSON.stringify(grant).replaceAll('":', '": ').replaceAll(",", ", ")
  }`;
  const where = origin.origin === "project"
    ? `configure server "${origin.name}" in the user config with ${line}`
    : `add ${line} to server "${origin.name}" in "${origin.file}"`;
  return `${needs.launcher} needs ${parts.join(" and ")}: ${where}`;
}

/** The directories of arguments that name existing paths the server cannot read. */
export function unreadableArgs(
  args: readonly string[],
  view: ServerView,
  options: { cwd: string; ops: PathOps },
): string[] {
  const dirs: string[] = [];
  for (const arg of args) {
    const value = arg.startsWith("-") && arg.includes("=") ? arg.slice(arg.indexOf("=") + 1) : arg;
    if (!value.startsWith("/") && !value.startsWith("./") && !value.startsWith("../")) continue;
    const real = options.ops.realPath(resolve(options.cwd, value));
    if (!real.ok || readableIn(view, real.path)) continue;
    const kind = options.ops.stat(real.path)?.kind;
    const dir = kind === "dir" ? real.path : dirname(real.path);
    if (!dirs.includes(dir)) dirs.push(dir);
  }
  return dirs;
}

function registryHost(url: string | undefined): string | undefined {
  if (url === undefined) return undefined;
  try {
    return new URL(url).host;
  } catch {
    return undefined;
  }
}

function quoted(items: string[]): string {
  return items.map((i) => `"${i}"`).join(", ");
}
