/**
 * git's ignore list for bash in the OS sandbox: the sandbox's placeholders (empty read-only mount
 * points at missing protected paths) are untracked directories that `git clean -fd` and
 * `git stash -u` fail to remove, so bash's git gets one excludes file (`core.excludesFile` given
 * on git's command-line level through GIT_CONFIG_COUNT) holding the user's own excludes plus an
 * anchored pattern per placeholder. The command-line level overrides every config file, so the
 * user's excludes are the ones git would have used: the last `core.excludesFile` of the system,
 * global and workspace repository config (or of GIT_CONFIG_KEY_n), else git's default file.
 */
import { dirname, join, relative, resolve } from "node:path";
import { expandPath, parseGitConfig } from "./_git_config.ts";
import { isWithin } from "./_within.ts";
import type { ScanOps } from "./ops.ts";

/** The user's excludes file as found at the start: its real path and its text. */
export interface UserGitExcludes {
  path: string;
  text: string;
}

/** Largest excludes file copied (a larger one is left out). */
const MAX_EXCLUDES_BYTES = 256 * 1024;
/** Largest config file read. */
const MAX_CONFIG_BYTES = 1 << 20;
/** git's own include depth limit. */
const MAX_INCLUDE_DEPTH = 10;

/**
 * The excludes file git run by bash with `env` in `workspace` would use, and its text (bounded);
 * undefined when there is none or it cannot be read. `include.path` is followed, `includeIf` is
 * not (its condition is not evaluated). Never throws.
 */
export function readUserGitExcludes(
  ops: ScanOps,
  env: Record<string, string>,
  workspace: string,
): UserGitExcludes | undefined {
  const home = absolute(env["HOME"]);
  const xdg = absolute(env["XDG_CONFIG_HOME"]) ??
    (home === undefined ? undefined : join(home, ".config"));
  let value: { raw: string; base: string | undefined } | undefined;
  const visit = (file: string, base: string | undefined, depth: number) => {
    const text = ops.readTextFile(file, MAX_CONFIG_BYTES);
    if (text === undefined) return;
    for (const entry of parseGitConfig(text)) {
      if (typeof entry.value !== "string") continue;
      if (entry.section === "core" && entry.key === "excludesfile") {
        value = { raw: entry.value, base };
      } else if (entry.section === "include" && entry.key === "path" && depth < MAX_INCLUDE_DEPTH) {
        const target = expandPath(entry.value, { base: dirname(file), home });
        if (target !== undefined) visit(target, base, depth + 1);
      }
    }
  };
  const noSystem = env["GIT_CONFIG_NOSYSTEM"]?.toLowerCase();
  if (noSystem === undefined || ["", "0", "false", "no", "off"].includes(noSystem)) {
    visit(absolute(env["GIT_CONFIG_SYSTEM"]) ?? "/etc/gitconfig", undefined, 0);
  }
  const global = absolute(env["GIT_CONFIG_GLOBAL"]);
  const globals = global !== undefined ? [global] : [
    ...(xdg === undefined ? [] : [join(xdg, "git", "config")]),
    ...(home === undefined ? [] : [join(home, ".gitconfig")]),
  ];
  for (const file of globals) visit(file, undefined, 0);
  // The workspace repository's own config: a relative value is relative to its work tree.
  const root = workTreeRoot(ops, workspace);
  const gitDir = root === undefined ? undefined : repoGitDir(ops, root);
  if (gitDir !== undefined) visit(join(gitDir, "config"), root, 0);
  const fromEnv = commandLineExcludes(env);
  if (fromEnv !== undefined) value = { raw: fromEnv, base: root ?? workspace };
  const file = value === undefined
    ? (xdg === undefined ? undefined : join(xdg, "git", "ignore"))
    : expandPath(value.raw, { base: value.base, home });
  if (file === undefined) return undefined;
  const real = ops.realPath(file);
  if (!real.ok) return undefined;
  const text = ops.readTextFile(real.path, MAX_EXCLUDES_BYTES);
  return text === undefined ? undefined : { path: real.path, text };
}

/**
 * The excludes file's text for a tool host: `user` (when `readable`, i.e. the host's view shows
 * it) and one anchored pattern per placeholder, relative to the work tree it lies in (`/.vscode/`
 * for a directory, `/.envrc` for a file); placeholders outside every work tree are left out.
 */
export function placeholderExcludes(
  ops: ScanOps,
  placeholders: ReadonlyArray<{ path: string; kind: "file" | "dir" }>,
  user: UserGitExcludes | undefined,
): string {
  const patterns = new Set<string>();
  for (const { path, kind } of placeholders) {
    const root = workTreeRoot(ops, dirname(path));
    if (root === undefined) continue;
    const rel = relative(root, path).split("/").map(escapePattern).join("/");
    patterns.add(`/${rel}${kind === "dir" ? "/" : ""}`);
  }
  const own = user === undefined
    ? ""
    : user.text.endsWith("\n") || user.text === ""
    ? user.text
    : `${user.text}\n`;
  return `${own}# moat's placeholders for protected paths (removed after the run)\n` +
    [...patterns].sort().map((p) => `${p}\n`).join("");
}

/**
 * `env` plus `core.excludesFile=file` on git's command-line level, appended after the
 * GIT_CONFIG_COUNT entries `env` already has.
 */
export function withGitExcludesFile(
  env: Record<string, string>,
  file: string,
): Record<string, string> {
  const count = Number.parseInt(env["GIT_CONFIG_COUNT"] ?? "0", 10);
  const n = Number.isSafeInteger(count) && count > 0 ? count : 0;
  return {
    ...env,
    GIT_CONFIG_COUNT: String(n + 1),
    [`GIT_CONFIG_KEY_${n}`]: "core.excludesFile",
    [`GIT_CONFIG_VALUE_${n}`]: file,
  };
}

/** Whether `path` shows in a view of `grants` (read granted there, not denied). */
export function readableIn(
  grants: { read: true | string[]; denyRead: string[] },
  path: string,
): boolean {
  const granted = grants.read === true || grants.read.some((r) => isWithin(path, r));
  return granted && !grants.denyRead.some((d) => isWithin(path, d));
}

/** The last `core.excludesFile` among the GIT_CONFIG_KEY_n entries of `env`. */
function commandLineExcludes(env: Record<string, string>): string | undefined {
  const count = Number.parseInt(env["GIT_CONFIG_COUNT"] ?? "0", 10);
  let found: string | undefined;
  for (let i = 0; i < count && i < 1000; i++) {
    if (env[`GIT_CONFIG_KEY_${i}`]?.toLowerCase() !== "core.excludesfile") continue;
    found = env[`GIT_CONFIG_VALUE_${i}`];
  }
  return found;
}

/** The nearest directory from `dir` up that holds a `.git` entry. */
function workTreeRoot(ops: ScanOps, dir: string): string | undefined {
  for (let d = dir;; d = dirname(d)) {
    if (ops.lstat(join(d, ".git")) !== undefined) return d;
    if (dirname(d) === d) return undefined;
  }
}

/**
 * The git directory holding the config of work tree `root`: `.git`, or where a `.git` file
 * points (a linked worktree's: its common directory).
 */
function repoGitDir(ops: ScanOps, root: string): string | undefined {
  const dotGit = join(root, ".git");
  if (ops.stat(dotGit)?.kind === "dir") return dotGit;
  const target = /^gitdir:[ \t]*(.+?)[ \t\r]*$/m.exec(ops.readTextFile(dotGit, 4096) ?? "")?.[1];
  if (target === undefined) return undefined;
  const dir = resolve(root, target);
  const common = ops.readTextFile(join(dir, "commondir"), 4096)?.trim();
  return common === undefined || common === "" ? dir : resolve(dir, common);
}

/** A name as a literal gitignore pattern segment. */
function escapePattern(segment: string): string {
  return segment.replace(/[\\*?[\]!#]/g, (c) => `\\${c}`).replace(/ $/, "\\ ");
}

function absolute(value: string | undefined): string | undefined {
  return value !== undefined && value.startsWith("/") ? resolve(value) : undefined;
}
