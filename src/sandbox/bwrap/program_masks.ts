/**
 * The programs a tool host's view lets bash run: PATH directories emptied under a scoped
 * `--allow-run`, and `--deny-run` programs covered by /dev/null under every name.
 */
import { dirname, join } from "node:path";
import type { Grants, PathOps } from "../../policy/mod.ts";

/** Directories whose programs are masked under a scoped `--allow-run` (plus PATH's own dirs). */
export const STANDARD_BIN_DIRS: readonly string[] = [
  "/usr/local/sbin",
  "/usr/local/bin",
  "/usr/sbin",
  "/usr/bin",
  "/sbin",
  "/bin",
];

/** Programs a scoped `--allow-run` keeps executable besides the granted ones. */
const ALWAYS_KEPT_PROGRAMS: readonly string[] = ["bash", "bwrap"];

/**
 * Program masks of the view: under a scoped `--allow-run` each bin directory becomes an empty
 * read-only directory with bash, bwrap and the granted programs mounted back; otherwise each
 * `--deny-run` program is covered by /dev/null. Every other name of a denied program
 * (`deniedPrograms`) is covered too.
 */
export function programMaskArgs(
  spec: {
    grants: Grants;
    toolPath?: string;
    deniedPrograms?: readonly string[];
  },
  paths: PathOps,
  view: { visible: (p: string) => boolean; remount: (dir: string) => string[] },
): string[] {
  const { grants } = spec;
  const { visible } = view;
  const args: string[] = [];
  const dirs = binDirs(spec.toolPath, { paths }).filter(visible);
  const scoped = grants.run !== true && grants.explicit.run;
  if (scoped) {
    const keep = [...ALWAYS_KEPT_PROGRAMS, ...(grants.run as string[])].filter((p) =>
      !grants.denyRun.includes(p) || ALWAYS_KEPT_PROGRAMS.includes(p)
    );
    for (const dir of dirs) {
      args.push("--tmpfs", dir);
      for (const name of keep) {
        const candidate = name.includes("/") ? name : join(dir, name);
        if (dirname(candidate) !== dir || !isExecutableFile(paths, candidate)) continue;
        args.push("--ro-bind", candidate, candidate);
      }
      args.push(...view.remount(dir), "--remount-ro", dir);
    }
    return [...args, ...maskCopies(spec.deniedPrograms ?? [], view.visible)];
  }
  for (const name of grants.denyRun) {
    for (const dir of dirs) {
      const candidate = name.includes("/") ? name : join(dir, name);
      if (name.includes("/") && dirname(candidate) !== dir) continue;
      if (isExecutableFile(paths, candidate)) args.push("--ro-bind", "/dev/null", candidate);
    }
  }
  return [...args, ...maskCopies(spec.deniedPrograms ?? [], view.visible)];
}

/** /dev/null over each other name of a denied program that the view shows. */
function maskCopies(copies: readonly string[], visible: (p: string) => boolean): string[] {
  return copies.filter(visible).flatMap((p) => ["--ro-bind", "/dev/null", p]);
}

/** Real, existing, de-duplicated directories of `toolPath` plus the standard bin dirs. */
export function binDirs(toolPath: string | undefined, options: { paths: PathOps }): string[] {
  const { paths } = options;
  const out: string[] = [];
  const candidates = [...(toolPath ?? "").split(":"), ...STANDARD_BIN_DIRS];
  for (const dir of candidates) {
    if (!dir.startsWith("/")) continue;
    const real = paths.realPath(dir);
    if (!real.ok || paths.stat(real.path)?.kind !== "dir") continue;
    if (!out.includes(real.path)) out.push(real.path);
  }
  return out;
}

/** True for an existing regular file with an execute bit. */
export function isExecutableFile(paths: PathOps, p: string): boolean {
  const st = paths.stat(p);
  return st !== undefined && st.kind === "file" && ((st.mode ?? 0o111) & 0o111) !== 0;
}
