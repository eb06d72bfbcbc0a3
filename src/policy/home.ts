/**
 * What `~` means, in grant values and in the tools' path arguments alike: the home directory moat
 * resolved once at the start from its own HOME (absolute, normalised, symlinks resolved), so
 * that the grants, the tools in their Worker, bash and the bubblewrap view — which holds the
 * real path of a granted directory, never a symlink on the way to it — all name one directory.
 */
import { isAbsolute, resolve } from "node:path";
import type { PathOps } from "./ops.ts";

/** The directory `~` expands to, or why `~` cannot be expanded (a sentence naming HOME). */
export type Home = { ok: true; path: string } | { ok: false; reason: string };

/** `~` expanded, or why it cannot be (a sentence for the message about the path). */
export type Expanded = { ok: true; path: string } | { ok: false; reason: string };

/**
 * The home directory for `~` from `raw` (moat's HOME): its real path when it exists, else the
 * normalised path; not usable when unset, empty or relative (which would mean another directory
 * in each process that resolved it).
 */
export function resolveHome(raw: string | undefined, paths: PathOps): Home {
  if (raw === undefined || raw === "") return { ok: false, reason: "HOME is not set" };
  if (!isAbsolute(raw)) {
    return { ok: false, reason: `HOME ("${raw}") is not an absolute path` };
  }
  const normal = resolve(raw);
  const real = paths.realPath(normal);
  return { ok: true, path: real.ok ? real.path : normal };
}

/**
 * `p` with a leading `~` (alone or before `/`) replaced by `home`; other paths as they are.
 * `~user`, `~+` and `~-` are refused rather than taken as a file named so in the working
 * directory (moat looks up no other user's home): the reason says what to write instead.
 */
export function expandHome(p: string, home: Home | string | undefined): Expanded {
  if (!p.startsWith("~")) return { ok: true, path: p };
  if (p !== "~" && !p.startsWith("~/")) {
    const prefix = p.split("/")[0] as string;
    return {
      ok: false,
      reason: `only "~" and "~/…" are expanded (to HOME), not "${prefix}"; write the path in ` +
        `full, or "./${p}" for a file of that name in the working directory`,
    };
  }
  const dir = typeof home === "string" ? home : home?.ok ? home.path : undefined;
  if (dir === undefined) {
    const why = typeof home === "object" && !home.ok
      ? home.reason
      : "HOME is not set to an absolute path";
    return { ok: false, reason: `${why}; write the path in full (an absolute path)` };
  }
  return { ok: true, path: p === "~" ? dir : resolve(dir, p.slice(2)) };
}
