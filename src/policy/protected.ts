/**
 * Protected paths: git's hooks and config (and what chooses them: `.git` files, `commondir`,
 * core.hooksPath, included config files), moat's own config directories and the global git
 * config, other programs' run-later files at each root (src/policy/_run_later.ts: other
 * agents' settings, `.mcp.json`, editor tasks, `.envrc`, `.gitmodules`), and moat's own code (the
 * executable, and under `deno run` its checkout and Deno's cache). Each makes programs run
 * later, outside any sandbox, so inside a write grant they stay
 * read-only for every tool and in the bash sandbox unless an `--allow-write=` value names them or
 * a path inside them (a carve-out). `computeProtection` finds them once per run from real paths;
 * the policy (layer 3) and the Worker's file operations (layer 2) refuse writes with
 * `findProtection`, and the bwrap view (layer 1) mounts them read-only (protected_view.ts).
 */
import { basename, dirname, isAbsolute, join, resolve } from "node:path";
import { expandPath, type GitConfigTree, readGitConfigTree } from "./_git_config.ts";
import { RUN_LATER, runLaterEntry, type RunLaterWhy } from "./_run_later.ts";
import { isWithin } from "./_within.ts";
import { flagWith } from "./grant_hints.ts";
import { type Grants, realLocationSync, type Scope } from "./grants.ts";
import type { ScanOps } from "./ops.ts";

/** Why a path is protected; each kind has its own sentence in a denial. */
export type ProtectedWhy =
  | "hooks"
  | "hooks_path"
  | "git_config"
  | "git_file"
  | "moat_project"
  | "moat_user"
  | "moat_state"
  | "git_global"
  | "moat_code"
  | RunLaterWhy;

/** One protected path (real path), why it is protected, and what it was when computed. */
export interface ProtectedPath {
  path: string;
  why: ProtectedWhy;
  /** What it was at the start; the bwrap view refuses to mount one that changed kind since. */
  kind: "file" | "dir" | "missing_file" | "missing_dir";
}

/** What the three layers need to enforce protected paths (JSON-serialisable, never widened). */
export interface Protection {
  /** The workspace (real path): its `.moat` is protected even when created later. */
  workspace: string;
  /** The paths found at the start, each inside a write grant. */
  paths: ProtectedPath[];
  /** Git directories inside a write grant: bound onto themselves so they cannot be renamed. */
  anchors: string[];
  /** Carve-outs: the real paths named in `--allow-write=` values. */
  named: string[];
  /** The write flags as given (for the hint that names the flag to use). */
  flags: { allowAll: boolean; write: Scope };
}

/** The protected path that covers a write. */
export interface ProtectedHit {
  path: string;
  why: ProtectedWhy;
}

const WHY: Record<Exclude<ProtectedWhy, RunLaterWhy>, string> = {
  hooks: "git runs it outside the sandbox",
  hooks_path: "it is the core.hooksPath directory, whose hooks git runs outside the sandbox",
  git_config: "it can make git run programs",
  git_file: "it chooses which git directory, and so which hooks, git uses",
  moat_project: "it holds moat's own project settings",
  moat_user: "it holds moat's own user settings",
  moat_state: "it holds moat's sessions and rewind checkpoints",
  git_global: "it is a global git configuration, which can make git run programs",
  moat_code: "it holds code moat runs outside the sandbox",
};

/** Entries of a `.git` directory protected wherever they are (the pattern rule). */
const GIT_PATTERN = new Map<string, ProtectedWhy>([
  ["hooks", "hooks"],
  ["config", "git_config"],
  ["config.worktree", "git_config"],
]);

/** Directories of a git dir whose entries are data named by the user (branch names, …). */
const MODULE_DATA = new Set(["refs", "logs", "objects", "info", "worktrees"]);

/** Small files read from git directories (`.git` files, commondir, gitdir). */
const MAX_POINTER_BYTES = 4096;
/** How deep `modules/` is searched for submodule git directories (names may contain `/`). */
const MAX_MODULE_DEPTH = 8;
/** How many directories the search for nested git directories looks at, at most. */
const MAX_SCANNED_DIRS = 512;

/** Options of `computeProtection`. */
export interface ProtectionOptions {
  /** The workspace (real path). */
  workspace: string;
  /** moat's environment: HOME, XDG_CONFIG_HOME, XDG_STATE_HOME, GIT_CONFIG_GLOBAL, GIT_CONFIG_SYSTEM. */
  env: Record<string, string>;
  /** File system look-ups (src/sys/paths.ts createDenoScanOps, or a fake). */
  ops: ScanOps;
  /** moat's own code (absolute paths, as the running process names them; src/sandbox/moat_code.ts). */
  code?: readonly MoatCodePath[];
}

/** A path of moat's own code: what the next moat run executes outside any sandbox. */
export interface MoatCodePath {
  path: string;
  kind: "file" | "dir";
}

/**
 * Finds the protected paths of a run: those of the git repository containing the workspace and
 * of a `.git` directly inside each write-granted directory, the run-later entries at the
 * workspace and at each of their work trees, `.moat/` of the workspace, the user's
 * moat config directory, the global git config and moat's own code, kept when inside a write
 * grant. Warnings say
 * what cannot be fully protected (a protected path that is a symlink). Never throws.
 */
export function computeProtection(
  grants: Grants,
  options: ProtectionOptions,
): { protection: Protection; warnings: string[] } {
  const { ops, workspace, env } = options;
  const home = absoluteOrUndefined(env["HOME"]);
  const writable = (p: string) => grants.write === true || grants.write.some((w) => isWithin(p, w));
  const found = new Map<string, ProtectedPath>();
  const anchors = new Set<string>();
  const gitDirs = new Set<string>();
  const roots: string[] = [];
  const warnings: string[] = [];
  const realParent = (p: string) => realLocationSync(ops, dirname(p)) ?? dirname(p);
  const warnLink = (lexical: string) => {
    const link = join(realParent(lexical), basename(lexical));
    const warning = `Protected path "${link}" is a symlink: moat keeps its target read-only ` +
      "but cannot protect the link itself, which bash may replace; replace the link with the " +
      "directory or file it points to";
    if (writable(link) && !warnings.includes(warning)) warnings.push(warning);
  };

  const protect = (lexical: string, why: ProtectedWhy, expect: "file" | "dir", hops = 0) => {
    const link = ops.lstat(lexical);
    if (link?.kind === "symlink") {
      // bwrap follows a link it mounts over: protect where it leads instead.
      warnLink(lexical);
      if (hops < 8) protect(resolve(realParent(lexical), link.target), why, expect, hops + 1);
      return;
    }
    const real = realLocationSync(ops, lexical);
    if (real === undefined || found.has(real)) return;
    const kind = link === undefined
      ? (expect === "dir" ? "missing_dir" : "missing_file")
      : link.kind === "dir"
      ? "dir"
      : "file";
    found.set(real, { path: real, why, kind });
  };

  const protectConfig = (tree: GitConfigTree, bases: string[]) => {
    for (const file of tree.includes) protect(file, "git_config", "file");
    for (const value of tree.hooksPaths) {
      // A relative core.hooksPath is relative to the work tree the hooks run in.
      for (const base of bases.length ? bases : [undefined]) {
        const dir = expandPath(value, { base, home });
        if (dir !== undefined) protect(dir, "hooks_path", "dir");
      }
    }
  };

  const addGitDir = (dir: string, worktree: string | undefined): void => {
    if (gitDirs.has(dir)) return;
    gitDirs.add(dir);
    anchors.add(dir);
    const has = (name: string) => ops.lstat(join(dir, name)) !== undefined;
    const common = ops.readTextFile(join(dir, "commondir"), MAX_POINTER_BYTES)?.trim();
    // A linked worktree's directory uses the common directory's hooks and config: protect its
    // own only when present, so that nothing gets created there.
    const linked = common !== undefined && common !== "";
    if (!linked || has("hooks")) protect(join(dir, "hooks"), "hooks", "dir");
    if (!linked || has("config")) protect(join(dir, "config"), "git_config", "file");
    if (has("config.worktree")) protect(join(dir, "config.worktree"), "git_config", "file");
    if (linked) protect(join(dir, "commondir"), "git_file", "file");
    const trees = ["config", "config.worktree"].map((f) =>
      readGitConfigTree(ops, join(dir, f), { home })
    );
    const coreWorktree = trees.map((t) => t.worktree).filter((w) => w !== undefined).at(-1);
    const root = worktree ??
      (coreWorktree === undefined ? undefined : expandPath(coreWorktree, { base: dir, home })) ??
      linkedWorktreeRoot(ops, dir);
    for (const tree of trees) protectConfig(tree, root === undefined ? [] : [root]);
    if (linked) {
      const real = ops.realPath(resolve(dir, common));
      if (real.ok && ops.stat(real.path)?.kind === "dir") addGitDir(real.path, root);
    }
    for (const sub of nestedGitDirs(ops, join(dir, "modules"), MAX_MODULE_DEPTH)) {
      addGitDir(sub, undefined);
    }
    for (const admin of nestedGitDirs(ops, join(dir, "worktrees"), 0)) addGitDir(admin, undefined);
  };

  /** A `.git` entry: a directory, or a file (`gitdir: <path>`) for worktrees and submodules. */
  const addDotGit = (dotGit: string, worktree: string) => {
    const link = ops.lstat(dotGit);
    if (link === undefined) return;
    const real = ops.realPath(dotGit);
    if (!real.ok) return;
    roots.push(worktree);
    const kind = ops.stat(real.path)?.kind;
    if (kind === "dir") {
      if (link.kind === "symlink") warnLink(dotGit);
      addGitDir(real.path, worktree);
      return;
    }
    if (kind !== "file") return;
    protect(dotGit, "git_file", "file");
    const text = ops.readTextFile(real.path, MAX_POINTER_BYTES) ?? "";
    const target = /^gitdir:[ \t]*(.+?)[ \t\r]*$/m.exec(text)?.[1];
    if (target === undefined) return;
    const dir = ops.realPath(resolve(realParent(dotGit), target));
    if (dir.ok && ops.stat(dir.path)?.kind === "dir") addGitDir(dir.path, worktree);
  };

  for (let dir = workspace;; dir = dirname(dir)) {
    if (ops.lstat(join(dir, ".git")) !== undefined) {
      addDotGit(join(dir, ".git"), dir);
      break;
    }
    if (dirname(dir) === dir) break;
  }
  if (grants.write !== true) { for (const w of grants.write) addDotGit(join(w, ".git"), w); }

  protect(join(workspace, ".moat"), "moat_project", "dir");
  // Missing ones as directories: bwrap's placeholder is then an empty directory, which git
  // ignores (an empty placeholder file would be committed by `git add -A`).
  for (const root of [workspace, ...roots]) {
    for (const entry of RUN_LATER) protect(join(root, entry.name), entry.why, "dir");
  }
  const xdg = absoluteOrUndefined(env["XDG_CONFIG_HOME"]) ??
    (home === undefined ? undefined : join(home, ".config"));
  if (xdg !== undefined) protect(join(xdg, "moat"), "moat_user", "dir");
  // The sessions and their rewind checkpoints: the agent must not rewrite its own checkpoints.
  const state = absoluteOrUndefined(env["XDG_STATE_HOME"]) ??
    (home === undefined ? undefined : join(home, ".local", "state"));
  if (state !== undefined) protect(join(state, "moat"), "moat_state", "dir");
  const globalConfig = absoluteOrUndefined(env["GIT_CONFIG_GLOBAL"]);
  const globals = [
    ...(globalConfig !== undefined ? [globalConfig] : [
      ...(home === undefined ? [] : [join(home, ".gitconfig")]),
      ...(xdg === undefined ? [] : [join(xdg, "git", "config")]),
    ]),
    absoluteOrUndefined(env["GIT_CONFIG_SYSTEM"]) ?? "/etc/gitconfig",
  ];
  for (const file of globals) {
    protect(file, "git_global", "file");
    protectConfig(readGitConfigTree(ops, file, { home }), roots);
  }
  // What the next moat run executes outside any sandbox: changed, it would escape for good.
  for (const code of options.code ?? []) {
    if (isAbsolute(code.path)) protect(resolve(code.path), "moat_code", code.kind);
  }

  const paths = [...found.values()].filter((p) => writable(p.path));
  return {
    protection: {
      workspace,
      // Code-unit order, like the anchors': localeCompare's first call builds ICU's collator,
      // about 8 ms before the first request.
      paths: paths.sort((a, b) => a.path < b.path ? -1 : a.path > b.path ? 1 : 0),
      anchors: [...anchors].filter(writable).sort(),
      named: [...grants.namedWrite],
      flags: { allowAll: grants.allowAll, write: structuredClone(grants.write) },
    },
    warnings,
  };
}

/** The work tree of a linked worktree's git directory (its `gitdir` file names `<tree>/.git`). */
function linkedWorktreeRoot(ops: ScanOps, dir: string): string | undefined {
  const gitFile = ops.readTextFile(join(dir, "gitdir"), MAX_POINTER_BYTES)?.trim();
  return gitFile === undefined || gitFile === "" ? undefined : dirname(resolve(dir, gitFile));
}

/** Git directories (directories holding `HEAD`) under `base`, searching `maxDepth` deeper. */
function nestedGitDirs(ops: ScanOps, base: string, maxDepth: number): string[] {
  const out: string[] = [];
  const queue: Array<[string, number]> = [[base, 0]];
  let scanned = 0;
  while (queue.length > 0 && scanned < MAX_SCANNED_DIRS) {
    const [dir, depth] = queue.shift() as [string, number];
    for (const name of ops.readDirNames(dir) ?? []) {
      const path = join(dir, name);
      if (ops.lstat(path)?.kind !== "dir" || ++scanned > MAX_SCANNED_DIRS) continue;
      if (ops.lstat(join(path, "HEAD")) !== undefined) out.push(path);
      else if (depth < maxDepth) queue.push([path, depth + 1]);
    }
  }
  return out.sort();
}

/**
 * The protected path that covers writing `path` (absolute; check the real path and the path as
 * given), unless a carve-out lifts it: a named write grant that is the protected path or inside
 * it, and holds `path`. Besides the paths found at the start, `.git/hooks`, `.git/config` and
 * `.git/config.worktree` anywhere (also of submodules under `.git/modules/`) and the workspace's
 * `.moat` are protected (a repository may be created during the run). Undefined when the write
 * is not protected.
 */
export function findProtection(protection: Protection, path: string): ProtectedHit | undefined {
  const hits: ProtectedHit[] = protection.paths
    .filter((p) => isWithin(path, p.path))
    .map((p) => ({ path: p.path, why: p.why }));
  const pattern = patternHit(protection.workspace, path);
  if (pattern !== undefined) hits.push(pattern);
  hits.sort((a, b) => a.path.length - b.path.length);
  return hits.find((hit) =>
    !protection.named.some((named) => isWithin(named, hit.path) && isWithin(path, named))
  );
}

function patternHit(workspace: string, path: string): ProtectedHit | undefined {
  const parts = path.split("/");
  const lower = parts.map((p) => p.toLowerCase());
  for (let i = 0; i + 1 < parts.length; i++) {
    if (lower[i] !== ".git") continue;
    const why = GIT_PATTERN.get(lower[i + 1] as string);
    if (why !== undefined) return { path: parts.slice(0, i + 2).join("/"), why };
    if (lower[i + 1] !== "modules") continue;
    // Submodule git dirs live under .git/modules/<name, possibly with slashes>/; their refs,
    // logs and objects may hold any name.
    for (let j = i + 2; j < parts.length; j++) {
      if (MODULE_DATA.has(lower[j] as string)) break;
      const inModule = GIT_PATTERN.get(lower[j] as string);
      if (inModule !== undefined && j > i + 2) {
        return { path: parts.slice(0, j + 1).join("/"), why: inModule };
      }
    }
  }
  const moat = join(workspace, ".moat");
  return isWithin(path, moat) ? { path: moat, why: "moat_project" } : undefined;
}

/**
 * Why a write under `hit` is refused and which flag allows it, e.g. `"/w/.git/hooks" is
 * protected because git runs it outside the sandbox; to allow it, add it to --allow-write (e.g.
 * --allow-write=.,.git/hooks)`. The example keeps the write grants already given.
 */
export function protectedDetail(protection: Protection, hit: ProtectedHit): string {
  const why = hit.why in WHY
    ? WHY[hit.why as keyof typeof WHY]
    : runLaterEntry(basename(hit.path))?.sentence ?? "it makes programs run outside the sandbox";
  return `"${hit.path}" is protected because ${why}; to allow it, add it to ` +
    `--allow-write (e.g. ${allowHint(protection, hit.path)})`;
}

function allowHint(protection: Protection, path: string): string {
  const { allowAll, write } = protection.flags;
  return flagWith("write", { allowAll, current: write }, path, protection.workspace);
}

function absoluteOrUndefined(value: string | undefined): string | undefined {
  return value !== undefined && isAbsolute(value) ? resolve(value) : undefined;
}
