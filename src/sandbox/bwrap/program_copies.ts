/**
 * `--deny-run` by identity: a denied program is masked under every name it has in the view's
 * executable directories — hardlinks (`perl5.36.0` is `perl`) and identical copies
 * (`/usr/lib/git-core/git` is a copy of `/usr/bin/git`) — not only at the name on PATH.
 * The search fails closed: when it cannot finish, the run is refused, never started with a
 * name left runnable.
 */
import { join } from "node:path";
import type { CommandOps, CommandOutput, PathOps } from "../../policy/mod.ts";

/** Directories searched for other names of a denied program (besides the PATH directories). */
export const EXEC_DIRS: readonly string[] = [
  "/usr/lib",
  "/usr/libexec",
  "/usr/local/lib",
  "/usr/local/libexec",
  "/opt",
];

/**
 * How long `find` (and each `cmp`) may take before the search is given up as failed. It usually
 * takes well under 2 s; the margin is for a loaded machine with a cold cache. Running out of it
 * refuses the run (a partial list would leave a name of the program runnable).
 */
export const SEARCH_TIMEOUT_MS = 60_000;

/** Options of `findProgramCopies`. */
export interface ProgramCopiesOptions {
  /** The directories of PATH and the standard bin directories (real paths). */
  binDirs: readonly string[];
  paths: PathOps;
  /** Runs `find` and `cmp`. */
  commands: CommandOps;
}

/** Every name of the denied programs, or why the search could not finish (then nothing holds). */
export type ProgramCopies = { ok: true; paths: string[] } | { ok: false; message: string };

/**
 * Every path in the bin and executable directories that runs the same program as one of
 * `denied` (names looked up in the bin directories, or absolute paths): the same file (identity)
 * or a byte-identical copy. Includes the programs' own paths. A search that cannot finish (find
 * or cmp stopped, failing or missing) is an error, never a shorter list. Never throws.
 */
export async function findProgramCopies(
  denied: readonly string[],
  options: ProgramCopiesOptions,
): Promise<ProgramCopies> {
  const { paths, commands, binDirs } = options;
  const originals = new Map<string, { id: string | undefined; size: number }>();
  for (const name of denied) {
    const candidates = name.includes("/") ? [name] : binDirs.map((dir) => join(dir, name));
    for (const candidate of candidates) {
      const real = paths.realPath(candidate);
      if (!real.ok || originals.has(real.path)) continue;
      const info = paths.lstat(real.path);
      if (info?.kind !== "file" || info.size === undefined) continue;
      originals.set(real.path, { id: info.id, size: info.size });
    }
  }
  if (originals.size === 0) return { ok: true, paths: [] };
  const sizes = [...new Set([...originals.values()].map((o) => o.size))];
  const dirs = [...new Set([...binDirs, ...EXEC_DIRS])].filter((d) =>
    paths.stat(d)?.kind === "dir"
  );
  const sizeTests = sizes.flatMap((size, i) => [...(i > 0 ? ["-o"] : []), "-size", `${size}c`]);
  const found = await commands.output(
    "find",
    [...dirs, "-xdev", "-type", "f", "-perm", "/111", "(", ...sizeTests, ")", "-print0"],
    { timeoutMs: SEARCH_TIMEOUT_MS },
  );
  // find exits 1 when some directory could not be read (what it printed still counts); killed
  // (out of time) or failing otherwise, its list is partial.
  const failed = incomplete(found, [0, 1]);
  if (failed !== undefined) return searchFailed(denied, `"find" over ${quoted(dirs)} ${failed}`);
  const listed = found.ok ? found.stdout.split("\0").filter((p) => p !== "") : [];
  const out = new Set(originals.keys());
  for (const path of listed) {
    if (out.has(path)) continue;
    const id = paths.lstat(path);
    const idOf = id?.kind === "file" ? id.id : undefined;
    for (const [original, facts] of originals) {
      if (idOf !== undefined && idOf === facts.id) {
        out.add(path);
        break;
      }
      const same = await sameBytes(commands, original, path);
      if (typeof same === "string") return searchFailed(denied, same);
      if (same) {
        out.add(path);
        break;
      }
    }
  }
  return { ok: true, paths: [...out].sort() };
}

/** Whether `a` and `b` hold the same bytes, or why cmp could not tell. */
async function sameBytes(commands: CommandOps, a: string, b: string): Promise<boolean | string> {
  const out = await commands.output("cmp", ["-s", a, b], { timeoutMs: SEARCH_TIMEOUT_MS });
  // cmp exits 0 for the same bytes, 1 for different ones, 2 when it could not read a file.
  const failed = incomplete(out, [0, 1]);
  if (failed !== undefined) return `"cmp" of "${a}" and "${b}" ${failed}`;
  return out.ok && out.code === 0;
}

/** Why a command's answer cannot be trusted (killed, failed, could not run), if it cannot. */
function incomplete(out: CommandOutput, codes: readonly number[]): string | undefined {
  if (!out.ok) return `could not run: ${out.message}`;
  if (out.signal !== null) {
    return `was stopped by ${out.signal} before it finished (each step of the search is given ` +
      `${SEARCH_TIMEOUT_MS / 1000} s: a loaded machine may need another try)`;
  }
  if (!codes.includes(out.code)) {
    const detail = out.stderr.trim().split("\n").at(-1) ?? "";
    return `failed (exit code ${out.code})${detail === "" ? "" : `: ${detail}`}`;
  }
  return undefined;
}

function searchFailed(denied: readonly string[], why: string): ProgramCopies {
  return {
    ok: false,
    message: `--deny-run=${denied.join(",")} cannot be enforced: moat could not find every ` +
      `name of the denied programs (a hardlink or copy left out would still run): ${why}; run ` +
      "again once that is fixed, or drop --deny-run",
  };
}

function quoted(dirs: readonly string[]): string {
  return dirs.map((d) => `"${d}"`).join(", ");
}
