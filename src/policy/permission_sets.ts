/**
 * Deno's permission sets (`"permissions"` in deno.json, `-P`, `--permission-set=NAME`): parsed
 * from a config file, picked by name and turned into the same raw flag values the command line
 * gives, combined with the flags as Deno combines them (cli/args/mod.rs,
 * flags_to_permissions_options): `-A` drops the set; a flag replaces the set's value of the same
 * field (allow, deny or ignore of one kind); everything else comes from the set.
 */
import { isAbsolute, resolve } from "node:path";
import type { AllowKind, GrantFlag, GrantFlagValues } from "./grants.ts";

/** A set's value for one field: `true` (everything), a list, or `false` / `[]` (nothing). */
export type SetValue = boolean | string[];

/** One kind of a set, in Deno's object shape. */
export interface SetKind {
  allow?: SetValue;
  deny?: SetValue;
  ignore?: SetValue;
}

/** Kinds Deno accepts that no tool of moat uses (accepted, with a note). */
const INERT_KINDS = ["ffi", "sys", "import"] as const;
const TOOL_KINDS: readonly AllowKind[] = ["read", "write", "run", "net", "env"];
const KINDS: readonly string[] = [...TOOL_KINDS, ...INERT_KINDS];
/** Which kinds take which fields (Deno: `ignore` for read and env only). */
const FIELDS: Record<string, readonly string[]> = {
  read: ["allow", "deny", "ignore"],
  env: ["allow", "deny", "ignore"],
};

/** One named set and the file that defines it (its paths are relative to that file's dir). */
export interface PermissionSet {
  name: string;
  file: string;
  /** The directory its relative paths are in. */
  base: string;
  all?: boolean;
  kinds: Partial<Record<string, SetKind>>;
}

/** Sets by name, or the problem (exit 2) naming the file, the key and what is accepted. */
export type SetsResult =
  | { ok: true; sets: Map<string, PermissionSet> }
  | { ok: false; error: string };

/**
 * Validates the `permissions` value of `file`. Relative paths are in `base` (default: the file's
 * directory, Deno's rule). Pure.
 */
export function parsePermissionSets(
  value: unknown,
  file: string,
  options: { base?: string } = {},
): SetsResult {
  const base = options.base ?? resolve(file, "..");
  const bad = (key: string, problem: string): SetsResult => ({
    ok: false,
    error: `Invalid permission set in "${file}": key "${key}": ${problem}`,
  });
  if (!isRecord(value)) return bad("permissions", "expected an object of named sets");
  const sets = new Map<string, PermissionSet>();
  for (const [name, body] of Object.entries(value)) {
    const at = `permissions.${name}`;
    if (!isRecord(body)) return bad(at, "expected an object of kinds (read, write, run, …)");
    const set: PermissionSet = { name, file, base, kinds: {} };
    for (const [kind, raw] of Object.entries(body)) {
      if (kind === "all") {
        if (typeof raw !== "boolean") return bad(`${at}.all`, "expected true or false");
        set.all = raw;
        continue;
      }
      if (!KINDS.includes(kind)) {
        return bad(`${at}.${kind}`, `unknown kind: accepted are all, ${KINDS.join(", ")}`);
      }
      const parsed = parseKind(raw, `${at}.${kind}`, FIELDS[kind] ?? ["allow", "deny"]);
      if (typeof parsed === "string") {
        return { ok: false, error: `Invalid permission set in "${file}": ${parsed}` };
      }
      if (kind === "env" && parsed.deny !== undefined && parsed.deny !== false) {
        return bad(`${at}.env.deny`, envDenyProblem(parsed.deny));
      }
      const everything = (["deny", "ignore"] as const).find((f) => parsed[f] === true);
      if (everything !== undefined) {
        return bad(
          `${at}.${kind}.${everything}`,
          `true (${everything} everything) is not accepted: set "allow" to false to grant ` +
            `nothing, or list what to ${everything}`,
        );
      }
      set.kinds[kind] = parsed;
    }
    sets.set(name, set);
  }
  return { ok: true, sets };
}

function envDenyProblem(deny: SetValue): string {
  return `moat has no --deny-env (${JSON.stringify(deny)} given): tools get a safe list of ` +
    `variables plus those "allow" names; use "ignore" to hide one, or leave it out of "allow"`;
}

function parseKind(raw: unknown, key: string, fields: readonly string[]): SetKind | string {
  const value = setValue(raw);
  if (value !== undefined) return { allow: value };
  const accepted = `true, false, a list of strings, or {${fields.map((f) => `"${f}"`).join(", ")}}`;
  if (!isRecord(raw)) return `key "${key}": expected ${accepted}`;
  const out: SetKind = {};
  for (const [field, v] of Object.entries(raw)) {
    if (!fields.includes(field)) {
      return `key "${key}.${field}": unknown field: accepted are ${fields.join(", ")}`;
    }
    const parsed = setValue(v);
    if (parsed === undefined) {
      return `key "${key}.${field}": expected true, false or a list of strings`;
    }
    out[field as keyof SetKind] = parsed;
  }
  return out;
}

function setValue(raw: unknown): SetValue | undefined {
  if (typeof raw === "boolean") return raw;
  if (raw === null) return false;
  if (Array.isArray(raw) && raw.every((item) => typeof item === "string" && item.trim() !== "")) {
    return raw as string[];
  }
  return undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Where a set came from: the user's config, or the workspace's deno.json (needs trust). */
export type SetOrigin = "user" | "workspace";

/** The sets of one file. */
export interface SetSource {
  origin: SetOrigin;
  file: string;
  sets: Map<string, PermissionSet>;
}

/** The set `-P` picks (`name` "" = `default`), with its origin; a later source wins by name. */
export type PickedSet =
  | { ok: true; set: PermissionSet; origin: SetOrigin }
  | { ok: true; set: undefined }
  | { ok: false; error: string };

/**
 * Picks the set named `name` ("" for bare `-P`: the set `default`, and no set at all when none
 * is defined, as in Deno, so `-P` can be passed unconditionally). An unknown name is an error.
 */
export function pickPermissionSet(name: string, sources: readonly SetSource[]): PickedSet {
  const wanted = name === "" ? "default" : name;
  for (const source of [...sources].reverse()) {
    const set = source.sets.get(wanted);
    if (set !== undefined) return { ok: true, set, origin: source.origin };
  }
  if (name === "") return { ok: true, set: undefined };
  const files = sources.map((s) => `"${s.file}"`);
  const known = [...new Set(sources.flatMap((s) => [...s.sets.keys()]))];
  return {
    ok: false,
    error: `Unknown permission set "${name}" (-P=${name}): ${
      known.length === 0
        ? "no set is defined"
        : `defined are ${known.map((k) => `"${k}"`).join(", ")}`
    } (looked in ${
      files.length === 0
        ? "no file: neither deno.json nor a user config was found"
        : files.join(", ")
    }); add it under "permissions" or fix the name`,
  };
}

/** The flag values of a run with `set`, and the kinds granted nothing; notes for stderr. */
export interface SetFlags {
  values: GrantFlagValues;
  nothing: AllowKind[];
  notes: string[];
}

const ALLOW_FLAG: Record<AllowKind, GrantFlag> = {
  read: "allow-read",
  write: "allow-write",
  run: "allow-run",
  net: "allow-net",
  env: "allow-env",
};
const DENY_FLAG: Partial<Record<AllowKind, GrantFlag>> = {
  read: "deny-read",
  write: "deny-write",
  run: "deny-run",
  net: "deny-net",
};
const IGNORE_FLAG: Partial<Record<AllowKind, GrantFlag>> = {
  read: "ignore-read",
  env: "ignore-env",
};

/**
 * Combines `set` with the command line's `flags` as Deno does (under `-A` the caller drops the
 * set: src/cli/permission_set.ts). A kind's allow comes from its flag, else the set's kind, else the set's `all`; a kind the set
 * does not grant gets nothing (the set is the whole grant, as in Deno). Deny and ignore lists
 * come from their flag, else the set. Paths of the set are made absolute against its file's
 * directory; the command line's stay relative to the workspace.
 */
export function setFlagValues(set: PermissionSet, flags: GrantFlagValues): SetFlags {
  const dir = set.base;
  const values: GrantFlagValues = { ...flags };
  const nothing: AllowKind[] = [];
  const notes: string[] = [];
  for (const kind of INERT_KINDS) {
    if (set.kinds[kind] !== undefined) {
      notes.push(
        `"${kind}" of permission set "${set.name}" ("${set.file}") has no effect: no tool of ` +
          "moat uses it",
      );
    }
  }
  const absolute = (kind: AllowKind) => (item: string) => {
    if (kind === "net" || kind === "env" || isAbsolute(item) || item.startsWith("~")) return item;
    if (kind === "run" && !item.includes("/")) return item;
    return resolve(dir, item);
  };
  const fromSet = (value: SetValue, kind: AllowKind): string | true | undefined => {
    if (value === true) return true;
    if (value === false || value.length === 0) return undefined;
    return value.map(absolute(kind)).join(",");
  };
  for (const kind of TOOL_KINDS) {
    const entry = set.kinds[kind] ?? {};
    const allowFlag = ALLOW_FLAG[kind];
    if (flags[allowFlag] === undefined) {
      const allow = entry.allow ?? (set.all === true ? true : false);
      const value = fromSet(allow, kind);
      if (value === undefined) nothing.push(kind);
      else values[allowFlag] = value;
    }
    for (
      const [flag, value] of [[DENY_FLAG[kind], entry.deny], [IGNORE_FLAG[kind], entry.ignore]]
    ) {
      if (flag === undefined || value === undefined || flags[flag as GrantFlag] !== undefined) {
        continue;
      }
      const converted = fromSet(value as SetValue, kind);
      if (typeof converted === "string") values[flag as GrantFlag] = converted;
    }
  }
  return { values, nothing, notes };
}

/**
 * The command line's flag values with what `set` replaces left out, for switching to the set
 * (moat acp's modes): every allow flag (a set is the whole grant), and each deny or ignore flag
 * of a kind whose field the set gives. What is left (deny lists the set does not give) still
 * applies with the set.
 */
export function flagsUnderSet<T extends GrantFlagValues>(set: PermissionSet, flags: T): T {
  const values: T = { ...flags };
  for (const kind of TOOL_KINDS) {
    delete values[ALLOW_FLAG[kind]];
    const entry = set.kinds[kind] ?? {};
    const deny = DENY_FLAG[kind];
    if (deny !== undefined && entry.deny !== undefined) delete values[deny];
    const ignore = IGNORE_FLAG[kind];
    if (ignore !== undefined && entry.ignore !== undefined) delete values[ignore];
  }
  return values;
}
