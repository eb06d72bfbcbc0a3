/**
 * The user's permission grants, in Deno's own flag vocabulary (`--allow-read=src,tests`, …),
 * parsed once into one `Grants` value that the sandbox turns into Worker permissions, a bubblewrap
 * filesystem view and the tools' environment.
 */
import { basename, dirname, isAbsolute, join, resolve } from "node:path";
import { expandHome, type Home, resolveHome } from "./home.ts";
import type { GrantPathOps, PathOps } from "./ops.ts";
import { missingGrant } from "./_grant_typos.ts";
import { hostEntryProblem } from "./net_deny.ts";

export { toolEnvironment } from "./tool_env.ts";

/** Everything (`true`, the flag without a value) or a list (possibly empty = nothing). */
export type Scope = true | string[];

/** Which permission kinds were set by a flag (the others hold their defaults). */
export interface ExplicitKinds {
  read: boolean;
  write: boolean;
  run: boolean;
  net: boolean;
  env: boolean;
}

/**
 * What the tools may touch. Paths are absolute real paths (symlinks resolved); programs are names
 * or absolute paths as given; `env` lists variables added to the safe allow-list.
 */
export interface Grants {
  read: Scope;
  write: Scope;
  run: Scope;
  net: Scope;
  env: Scope;
  denyRead: string[];
  denyWrite: string[];
  denyRun: string[];
  /** `--deny-net` hosts (`host` or `host:port`, as Deno takes them): denied even under -A. */
  denyNet: string[];
  /**
   * `--ignore-read` paths (real paths, as `denyRead` holds them): hidden rather than denied, the
   * tools and bash find nothing there (as if missing), even under -A or inside a read grant.
   */
  ignoreRead: string[];
  /**
   * `--ignore-env` variables (names, or prefixes ending in `*` as Deno takes them): absent from
   * the tools' environment even under -A or `--allow-env`.
   */
  ignoreEnv: string[];
  /**
   * Every path named in an `--allow-write=…` value (real paths), even when the write scope is
   * everything (`-A`, bare `--allow-write`): a named path lifts the protection of a protected
   * path it is, or is inside (src/policy/protected.ts). Approvals never add to it.
   */
  namedWrite: string[];
  /** `-A/--allow-all` was given. */
  allowAll: boolean;
  explicit: ExplicitKinds;
}

/** One permission kind moat's tools use. */
export type AllowKind = keyof ExplicitKinds;
/** Turns one item of a flag's value (`entry`, as typed) into what the grants hold. */
type Convert = (item: string, entry: string) => string;

/** The permission flags moat accepts, spelled as on the command line (without `--`). */
export const GRANT_FLAGS = [
  "allow-read",
  "deny-read",
  "ignore-read",
  "allow-write",
  "deny-write",
  "allow-run",
  "deny-run",
  "allow-net",
  "deny-net",
  "allow-env",
  "ignore-env",
  "allow-all",
] as const;

/** One permission flag name. */
export type GrantFlag = typeof GRANT_FLAGS[number];

/**
 * Raw flag values: `true` for a flag without a value, a string for `--flag=a,b`; repeated flags
 * give arrays. Accepts node:util parseArgs output shapes too.
 */
export type GrantFlagValues = Partial<
  Record<GrantFlag, string | boolean | Array<string | boolean> | undefined>
>;

/** A command-line usage problem; the CLI prints the message and exits 2. */
export class UsageError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "UsageError";
  }
}

/** Parsed grants with notes for stderr (each once), or a usage error to report (exit 2). */
export type GrantsResult =
  | { ok: true; grants: Grants; notes: string[] }
  | { ok: false; error: UsageError };

/** The grants used when no permission flag is given: read and write the workspace, nothing else. */
export function defaultGrants(cwd: string, options: { paths: PathOps }): Grants {
  const dir = realOrSelf(options.paths, cwd);
  return {
    read: [dir],
    write: [dir],
    run: [],
    net: [],
    env: [],
    denyRead: [],
    denyWrite: [],
    denyRun: [],
    denyNet: [],
    ignoreRead: [],
    ignoreEnv: [],
    namedWrite: [],
    allowAll: false,
    explicit: { read: false, write: false, run: false, net: false, env: false },
  };
}

/**
 * Parses permission flag values into Grants. Paths are relative to `cwd` and resolved to real
 * paths; a granted path that does not exist is a usage error, and so is a list flag with an empty
 * value (`--allow-write=`: everything needs the bare flag). Kinds without a flag keep the defaults
 * of `defaultGrants` (a flag for a kind replaces its default). `paths` resolves the real paths.
 */
export function parseGrantFlags(
  values: GrantFlagValues,
  options: { cwd: string; home?: string; paths: GrantPathOps; nothing?: readonly AllowKind[] },
): GrantsResult {
  const { paths } = options;
  const cwd = realOrSelf(paths, options.cwd);
  // `~` as every other layer expands it: HOME resolved once (src/policy/home.ts).
  const home = resolveHome(options.home, paths);
  const grants = defaultGrants(cwd, { paths });
  const notes = new Set<string>();
  try {
    if (flagEntries(values["allow-all"]).some((v) => v !== false)) {
      grants.allowAll = true;
      grants.read = true;
      grants.write = true;
      grants.run = true;
      grants.net = true;
      grants.env = true;
      grants.explicit = { read: true, write: true, run: true, net: true, env: true };
    }
    const grantedIn = (flag: GrantFlag) => (p: string, entry: string) =>
      grantedPath(paths, cwd, p, { home, flag, entry, notes });
    const allowFlags: Array<[AllowKind, GrantFlag, Convert]> = [
      ["read", "allow-read", grantedIn("allow-read")],
      ["write", "allow-write", grantedIn("allow-write")],
      ["run", "allow-run", (p) => programName(paths, cwd, p)],
      ["net", "allow-net", (h) => h],
      ["env", "allow-env", (v) => v],
    ];
    for (const [kind, flag, convert] of allowFlags) {
      // Parsed even under -A, so that a malformed value is still reported.
      const scope = scopeOf(values[flag], flag, convert);
      if (scope !== undefined && !grants.allowAll) {
        grants[kind] = scope;
        grants.explicit[kind] = true;
      } else if (options.nothing?.includes(kind) && !grants.allowAll) {
        // A permission set's `false` or `[]`: this kind is granted nothing (no flag can say it).
        grants[kind] = [];
        grants.explicit[kind] = true;
      }
    }
    grants.namedWrite = namedList(values["allow-write"], grantedIn("allow-write"));
    const deniedIn = (flag: GrantFlag) => (p: string) => deniedPath(paths, cwd, p, { home, flag });
    grants.denyRead = denyList(values["deny-read"], "deny-read", deniedIn("deny-read"));
    grants.ignoreRead = denyList(values["ignore-read"], "ignore-read", deniedIn("ignore-read"));
    grants.denyWrite = denyList(values["deny-write"], "deny-write", deniedIn("deny-write"));
    grants.denyRun = denyList(values["deny-run"], "deny-run", (p) => programName(paths, cwd, p));
    grants.denyNet = denyList(values["deny-net"], "deny-net", (host) => {
      const problem = hostEntryProblem(host);
      if (problem === undefined) return host;
      throw new UsageError(`Denied host "${host}" (--deny-net) is refused: ${problem}`);
    });
    grants.ignoreEnv = denyList(values["ignore-env"], "ignore-env", (name) => name);
  } catch (e) {
    if (e instanceof UsageError) return { ok: false, error: e };
    throw e;
  }
  return { ok: true, grants, notes: [...notes] };
}

/**
 * Returns grants widened by one more location (used by "allow always" approvals). `namedWrite`
 * stays as it is: an approval never lifts a protected path.
 */
export function widenGrants(
  grants: Grants,
  location: { access: "read" | "write"; path: string } | { access: "run"; program: string } | {
    access: "net";
    host: string;
  },
): Grants {
  const next: Grants = structuredClone(grants);
  const add = (scope: Scope, item: string): Scope =>
    scope === true ? true : scope.includes(item) ? scope : [...scope, item];
  switch (location.access) {
    case "read":
      next.read = add(next.read, location.path);
      next.denyRead = next.denyRead.filter((p) => p !== location.path);
      break;
    case "write":
      next.write = add(next.write, location.path);
      next.denyWrite = next.denyWrite.filter((p) => p !== location.path);
      break;
    case "run":
      next.run = add(next.run, location.program);
      next.denyRun = next.denyRun.filter((p) => p !== location.program);
      break;
    case "net":
      next.net = add(next.net, location.host);
      break;
    default: {
      const never: never = location;
      throw new Error(`unknown location ${JSON.stringify(never)}`);
    }
  }
  return next;
}

function flagEntries(raw: GrantFlagValues[GrantFlag]): Array<string | boolean> {
  if (raw === undefined) return [];
  return Array.isArray(raw) ? raw : [raw];
}

function scopeOf(
  raw: GrantFlagValues[GrantFlag],
  flag: GrantFlag,
  convert: Convert,
): Scope | undefined {
  const entries = flagEntries(raw).filter((v) => v !== false);
  if (entries.length === 0) return undefined;
  if (entries.some((v) => v === true)) return true;
  const items: string[] = [];
  for (const entry of entries as string[]) {
    // Unlike Deno, an empty value is not "everything": `--allow-write=$UNSET` must not grant the
    // whole file system.
    if (entry.trim() === "") {
      throw new UsageError(
        `Empty value in "--${flag}=": list what to allow (--${flag}=ITEM[,ITEM…]), or pass ` +
          `the bare flag "--${flag}" (without "=") to allow everything`,
      );
    }
    for (const item of splitList(entry, flag)) {
      const converted = convert(item, entry);
      if (!items.includes(converted)) items.push(converted);
    }
  }
  return items;
}

/** The paths named in a flag's values, also next to a bare flag (scopeOf drops them there). */
function namedList(raw: GrantFlagValues[GrantFlag], convert: Convert): string[] {
  const items: string[] = [];
  for (const entry of flagEntries(raw)) {
    if (typeof entry !== "string" || entry.trim() === "") continue;
    for (const item of splitList(entry, "allow-write")) {
      const converted = convert(item, entry);
      if (!items.includes(converted)) items.push(converted);
    }
  }
  return items;
}

function denyList(
  raw: GrantFlagValues[GrantFlag],
  flag: GrantFlag,
  convert: (item: string) => string,
): string[] {
  const items: string[] = [];
  for (const entry of flagEntries(raw)) {
    if (typeof entry !== "string" || entry === "") {
      const verb = flag.startsWith("ignore-") ? "hide" : "deny";
      throw new UsageError(
        `Missing value for "--${flag}": list what to ${verb}, e.g. --${flag}=ITEM[,ITEM…]`,
      );
    }
    for (const item of splitList(entry, flag)) {
      const converted = convert(item);
      if (!items.includes(converted)) items.push(converted);
    }
  }
  return items;
}

function splitList(entry: string, flag: GrantFlag): string[] {
  if (entry === "") return [];
  const parts = entry.split(",").map((p) => p.trim());
  if (parts.some((p) => p === "")) {
    throw new UsageError(
      `Empty item in "--${flag}=${entry}": separate items with single commas`,
    );
  }
  return parts;
}

/** `raw` with `~` expanded (src/policy/home.ts); a `~` that cannot be is a usage error. */
function expandedPath(raw: string, options: { home: Home; flag: GrantFlag; what: string }): string {
  const expanded = expandHome(raw, options.home);
  if (expanded.ok) return expanded.path;
  throw new UsageError(
    `${options.what} path "${raw}" (--${options.flag}) starts with "~", but ${expanded.reason}`,
  );
}

function grantedPath(
  paths: GrantPathOps,
  cwd: string,
  raw: string,
  options: { home: Home; flag: GrantFlag; entry: string; notes: Set<string> },
): string {
  const abs = resolve(cwd, expandedPath(raw, { ...options, what: "Granted" }));
  const real = paths.realPath(abs);
  if (real.ok) return real.path;
  if (real.reason === "not_found") {
    // A file that does not exist yet in an existing directory may be granted (to create it).
    const parent = paths.realPath(dirname(abs));
    if (parent.ok && paths.stat(parent.path)?.kind === "dir") {
      const path = join(parent.path, basename(abs));
      const names = paths.readDirNames?.(parent.path) ?? [];
      const missing = missingGrant(raw, { ...options, abs, path, names });
      if ("typo" in missing) throw new UsageError(missing.typo);
      options.notes.add(missing.note);
      return path;
    }
    throw new UsageError(
      `Granted path "${raw}" (--${options.flag}) does not exist, nor does its directory: create ` +
        `it first or fix the flag (looked for "${abs}")`,
    );
  }
  throw new UsageError(
    `Granted path "${raw}" (--${options.flag}) cannot be resolved: ${real.message}; check the ` +
      "path and its permissions",
  );
}

function deniedPath(
  paths: PathOps,
  cwd: string,
  raw: string,
  options: { home: Home; flag: GrantFlag },
): string {
  const what = options.flag === "ignore-read" ? "Ignored" : "Denied";
  const abs = resolve(cwd, expandedPath(raw, { ...options, what }));
  const real = paths.realPath(abs);
  if (real.ok) return real.path;
  // A missing denied path is denied by name (as Deno does): the real path of its nearest existing
  // directory plus the missing names (an existing one is also fixed by identity: deny_view.ts).
  if (real.reason === "not_found") {
    const location = realLocationSync(paths, abs);
    if (location !== undefined) return location;
  }
  throw new UsageError(
    `${what} path "${raw}" (--${options.flag}) cannot be resolved ("${abs}"): ${real.message}; ` +
      "check the path and its permissions",
  );
}

function programName(paths: PathOps, cwd: string, raw: string): string {
  // Program names stay names (Deno resolves them on PATH); explicit paths become absolute.
  if (!raw.includes("/")) return raw;
  const abs = isAbsolute(raw) ? raw : resolve(cwd, raw);
  return realOrSelf(paths, abs);
}

/**
 * Real path of `abs`, or of its nearest existing parent plus the missing segments; undefined when
 * a look-up fails for another reason than a missing path.
 */
export function realLocationSync(paths: PathOps, abs: string): string | undefined {
  const missing: string[] = [];
  let current = abs;
  for (;;) {
    const real = paths.realPath(current);
    if (real.ok) return join(real.path, ...missing.reverse());
    if (real.reason !== "not_found") return undefined;
    const parent = resolve(current, "..");
    if (parent === current) return abs;
    missing.push(basename(current));
    current = parent;
  }
}

function realOrSelf(paths: PathOps, p: string): string {
  const real = paths.realPath(p);
  return real.ok ? real.path : p;
}
