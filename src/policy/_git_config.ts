/**
 * A tiny reader of git's config format, for what the protected-path scan needs: which files a
 * config includes (`[include]` / `[includeIf "…"]` `path`), `core.hooksPath` and `core.worktree`.
 * Handles `[section]`, `[section "sub"]`, `[section.sub]`, case-insensitive names, quoted values
 * with escapes, line continuations and `#` / `;` comments.
 */
import { dirname, isAbsolute, join, resolve } from "node:path";
import type { ScanOps } from "./ops.ts";

/** One `name = value` line; a name without `=` is boolean true. */
export interface GitConfigEntry {
  /** Lower case. */
  section: string;
  /** Case kept (lower case for the legacy `[section.sub]` form); undefined when absent. */
  subsection: string | undefined;
  /** Lower case. */
  key: string;
  value: string | true;
}

/** Parses git config text into its entries, in order; malformed lines are skipped. Pure. */
export function parseGitConfig(text: string): GitConfigEntry[] {
  const entries: GitConfigEntry[] = [];
  let section = "";
  let subsection: string | undefined;
  let i = 0;
  const skipLine = () => {
    while (i < text.length && text[i] !== "\n") i++;
  };
  while (i < text.length) {
    const c = text[i] as string;
    if (c === " " || c === "\t" || c === "\r" || c === "\n") {
      i++;
    } else if (c === "#" || c === ";") {
      skipLine();
    } else if (c === "[") {
      const header = parseHeader(text, i + 1);
      if (header === undefined) {
        skipLine();
        continue;
      }
      ({ section, subsection } = header);
      i = header.end;
    } else if (/[A-Za-z]/.test(c)) {
      let end = i;
      while (end < text.length && /[A-Za-z0-9-]/.test(text[end] as string)) end++;
      const key = text.slice(i, end).toLowerCase();
      i = end;
      while (text[i] === " " || text[i] === "\t") i++;
      if (text[i] === "=") {
        const [value, next] = parseValue(text, i + 1);
        i = next;
        entries.push({ section, subsection, key, value });
      } else if (i >= text.length || "\r\n#;".includes(text[i] as string)) {
        entries.push({ section, subsection, key, value: true });
        skipLine();
      } else {
        skipLine();
      }
    } else {
      skipLine();
    }
  }
  return entries;
}

function parseHeader(
  text: string,
  start: number,
): { section: string; subsection: string | undefined; end: number } | undefined {
  let i = start;
  let name = "";
  while (i < text.length && !'] \t"\n'.includes(text[i] as string)) name += text[i++];
  while (text[i] === " " || text[i] === "\t") i++;
  let subsection: string | undefined;
  if (text[i] === '"') {
    subsection = "";
    i++;
    while (i < text.length && text[i] !== '"' && text[i] !== "\n") {
      // Inside a subsection only `\"` and `\\` are escapes; git drops other backslashes.
      if (text[i] === "\\" && i + 1 < text.length) i++;
      subsection += text[i++];
    }
    if (text[i] !== '"') return undefined;
    i++;
  }
  if (text[i] !== "]" || name === "") return undefined;
  const lower = name.toLowerCase();
  const dot = lower.indexOf(".");
  if (subsection === undefined && dot > 0) {
    return { section: lower.slice(0, dot), subsection: lower.slice(dot + 1), end: i + 1 };
  }
  return { section: lower, subsection, end: i + 1 };
}

const ESCAPES: Record<string, string> = { n: "\n", t: "\t", b: "\b", "\\": "\\", '"': '"' };

/** A value from `start` (after `=`) to the end of its (possibly continued) line. */
function parseValue(text: string, start: number): [string, number] {
  let i = start;
  let out = "";
  // Whitespace outside quotes is kept only between other characters.
  let pending = "";
  let quoted = false;
  while (i < text.length && (text[i] === " " || text[i] === "\t")) i++;
  while (i < text.length) {
    const c = text[i] as string;
    if (c === "\n") break;
    if (c === "\r" && text[i + 1] === "\n") {
      i++;
      continue;
    }
    if (!quoted && (c === "#" || c === ";")) {
      while (i < text.length && text[i] !== "\n") i++;
      break;
    }
    if (!quoted && (c === " " || c === "\t")) {
      pending += c;
      i++;
      continue;
    }
    if (c === "\\") {
      const next = text[i + 1];
      if (next === "\n") {
        i += 2;
        continue;
      }
      if (next === "\r" && text[i + 2] === "\n") {
        i += 3;
        continue;
      }
      out += pending + (next === undefined ? "" : ESCAPES[next] ?? next);
      pending = "";
      i += 2;
      continue;
    }
    if (c === '"') {
      quoted = !quoted;
      out += pending;
      pending = "";
      i++;
      continue;
    }
    out += pending + c;
    pending = "";
    i++;
  }
  return [out, i];
}

/** What a config file and everything it includes say, as far as the scan cares. */
export interface GitConfigTree {
  /** Files reached through include directives (absolute, as named; the root excluded). */
  includes: string[];
  /** Every `core.hooksPath` value seen, as written. */
  hooksPaths: string[];
  /** The last `core.worktree` value seen, as written. */
  worktree: string | undefined;
}

/** Largest config file read (git's own files are tiny). */
const MAX_CONFIG_BYTES = 1 << 20;
/** git's own include depth limit. */
const MAX_INCLUDE_DEPTH = 10;

/**
 * Reads config `file` and, recursively, the files its `include.path` and `includeIf.*.path`
 * entries name, whatever their condition (a condition may hold later). Relative include paths
 * are relative to the including file's directory; `~/` expands to `home`. Never throws.
 */
export function readGitConfigTree(
  ops: ScanOps,
  file: string,
  options: { home: string | undefined },
): GitConfigTree {
  const tree: GitConfigTree = { includes: [], hooksPaths: [], worktree: undefined };
  const seen = new Set<string>([file]);
  const visit = (path: string, depth: number) => {
    const text = ops.readTextFile(path, MAX_CONFIG_BYTES);
    if (text === undefined) return;
    for (const entry of parseGitConfig(text)) {
      if (typeof entry.value !== "string") continue;
      if (entry.section === "core" && entry.key === "hookspath") tree.hooksPaths.push(entry.value);
      if (entry.section === "core" && entry.key === "worktree") tree.worktree = entry.value;
      const including = entry.section === "include" ||
        (entry.section === "includeif" && entry.subsection !== undefined);
      if (!including || entry.key !== "path" || entry.value === "") continue;
      const target = expandPath(entry.value, { base: dirname(path), home: options.home });
      if (target === undefined || seen.has(target)) continue;
      seen.add(target);
      tree.includes.push(target);
      if (depth < MAX_INCLUDE_DEPTH) visit(target, depth + 1);
    }
  };
  visit(file, 0);
  return tree;
}

/**
 * A path as git expands it in config values: `~/…` (or `~`) from `home`, absolute as is, others
 * relative to `base`; undefined when it needs an unknown home or a base that is not given.
 */
export function expandPath(
  value: string,
  options: { base: string | undefined; home: string | undefined },
): string | undefined {
  if (value === "~" || value.startsWith("~/")) {
    return options.home === undefined ? undefined : join(options.home, value.slice(1));
  }
  if (value.startsWith("~")) return undefined; // `~user/`: another user's home, not looked up
  if (isAbsolute(value)) return resolve(value);
  return options.base === undefined ? undefined : resolve(options.base, value);
}
