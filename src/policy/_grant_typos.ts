/**
 * A granted path that does not exist while a name close to it does is likely mistyped: the names
 * it was probably meant to be, and the usage error that names them with the flag to use.
 */
import { basename, dirname, join } from "node:path";
import levenshtein from "damerau-levenshtein";

/**
 * The entries of a directory whose names are likely what `name` was meant to be: the same name in
 * another case, or one edit away (two for names of 6 or more characters, at most a third of it).
 */
function nearNames(name: string, entries: readonly string[]): string[] {
  const limit = Math.min(name.length >= 6 ? 2 : 1, Math.floor(name.length / 3));
  const scored = entries
    .filter((entry) => entry !== name)
    .map((entry) => ({
      entry,
      distance: entry.toLowerCase() === name.toLowerCase()
        ? 0
        : levenshtein(name.toLowerCase(), entry.toLowerCase()).steps,
    }))
    .filter((s) => s.distance <= limit)
    .sort((a, b) => a.distance - b.distance || a.entry.localeCompare(b.entry));
  return scored.slice(0, 3).map((s) => s.entry);
}

/** The usage error's message for a granted path that does not exist next to names close to it. */
function mistypedPath(
  raw: string,
  near: readonly string[],
  options: { flag: string; entry: string; abs: string },
): string {
  const fixed = join(dirname(raw), near[0] as string);
  const value = options.entry.split(",").map((item) => item.trim() === raw ? fixed : item.trim());
  const names = near.map((n) => `"${join(dirname(raw), n)}"`).join(" or ");
  return (
    `Granted path "${raw}" (--${options.flag}) does not exist: did you mean ${names}? ` +
    `Use --${options.flag}=${value.join(",")}, or create "${options.abs}" first to grant ` +
    "a new file of that name"
  );
}

/**
 * What a granted path missing in an existing directory (`names`: its entries) is: likely a typo
 * (the usage error's message, exit 2), or a new file (the note for stderr).
 */
export function missingGrant(
  raw: string,
  options: { flag: string; entry: string; abs: string; path: string; names: readonly string[] },
): { typo: string } | { note: string } {
  const near = nearNames(basename(options.path), options.names);
  if (near.length > 0) return { typo: mistypedPath(raw, near, options) };
  return {
    note: `moat: --${options.flag}=${options.entry} grants a file that does not exist yet: ` +
      `"${options.path}"`,
  };
}
