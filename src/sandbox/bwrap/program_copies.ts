/**
 * `--deny-run` by identity: a denied program is masked under every name it has in the view's
 * executable directories — hardlinks (`perl5.36.0` is `perl`) and identical copies
 * (`/usr/lib/git-core/git` is a copy of `/usr/bin/git`) — not only at the name on PATH.
 */
import { join } from "node:path";
import type { CommandOps, PathOps } from "../../policy/mod.ts";

/** Directories searched for other names of a denied program (besides the PATH directories). */
export const EXEC_DIRS: readonly string[] = [
  "/usr/lib",
  "/usr/libexec",
  "/usr/local/lib",
  "/usr/local/libexec",
  "/opt",
];

/** How long the search for copies may take before it gives up (it then masks what it found). */
const SEARCH_TIMEOUT_MS = 10_000;

/** Options of `findProgramCopies`. */
export interface ProgramCopiesOptions {
  /** The directories of PATH and the standard bin directories (real paths). */
  binDirs: readonly string[];
  paths: PathOps;
  /** Runs `find` and `cmp`. */
  commands: CommandOps;
}

/**
 * Every path in the bin and executable directories that runs the same program as one of
 * `denied` (names looked up in the bin directories, or absolute paths): the same file (identity)
 * or a byte-identical copy. Includes the programs' own paths. Never throws.
 */
export async function findProgramCopies(
  denied: readonly string[],
  options: ProgramCopiesOptions,
): Promise<string[]> {
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
  if (originals.size === 0) return [];
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
  // find exits 1 when some directory could not be read; what it printed still counts.
  const listed = found.ok ? found.stdout.split("\0").filter((p) => p !== "") : [];
  const out = new Set(originals.keys());
  for (const path of listed) {
    if (out.has(path)) continue;
    const id = paths.lstat(path);
    const idOf = id?.kind === "file" ? id.id : undefined;
    for (const [original, facts] of originals) {
      if ((idOf !== undefined && idOf === facts.id) || await sameBytes(commands, original, path)) {
        out.add(path);
        break;
      }
    }
  }
  return [...out].sort();
}

async function sameBytes(commands: CommandOps, a: string, b: string): Promise<boolean> {
  const out = await commands.output("cmp", ["-s", a, b], { timeoutMs: SEARCH_TIMEOUT_MS });
  return out.ok && out.success;
}
