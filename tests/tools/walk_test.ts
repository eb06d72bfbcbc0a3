import assert from "node:assert/strict";
import { dirname, relative } from "node:path";
import ignore from "ignore";
import { walkTree } from "../../src/tools/walk.ts";
import { MemoryFs } from "../support/memory_fs.ts";

/** A seeded PRNG (mulberry32): the same trees on every run. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const DIRS = ["a", "b", "tmp", "build", "x1", ".hidden"];
const FILES = ["f.ts", "g.log", "h.tmp", "a", "build", "x y.ts"];
// Mostly patterns that match by name (the walk's fast path), some that do not.
const PATTERNS = [
  "a",
  "b/",
  "tmp/",
  "*.log",
  "x*",
  "!x1/",
  "!g.log",
  "!tmp/",
  "build",
  "*.tmp",
  "[ab]",
  "?",
  ".h*",
  "# comment",
  "",
  "!a",
  "/a",
  "a/f.ts",
  "**/build",
  "x\\ y.ts",
  "b/*.ts",
  // Anchored to the ignore file's directory: by name there, never below it.
  "/b/",
  "/tmp/",
  "!/a",
  "/x*",
  "/build",
];

/** A random tree: file paths (posix, relative to /ws) → contents, ignore files included. */
function randomTree(rand: () => number): Record<string, string> {
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)] as T;
  const files: Record<string, string> = {};
  const dirs = [""];
  for (let i = 0; i < 12; i++) {
    const parent = pick(dirs);
    if (parent.split("/").length < 4) {
      dirs.push(parent === "" ? pick(DIRS) : `${parent}/${pick(DIRS)}`);
    }
  }
  for (const dir of dirs) {
    for (let i = 0; i < 3; i++) files[dir === "" ? pick(FILES) : `${dir}/${pick(FILES)}`] = "x\n";
    if (rand() < 0.5) {
      const name = rand() < 0.8 ? ".gitignore" : ".ignore";
      const lines = Array.from({ length: 1 + Math.floor(rand() * 4) }, () => pick(PATTERNS));
      files[dir === "" ? name : `${dir}/${name}`] = lines.join("\n") + "\n";
    }
  }
  // A path may have become both a file and a directory: keep the directory.
  for (const path of Object.keys(files)) {
    if (Object.keys(files).some((p) => p.startsWith(`${path}/`))) delete files[path];
  }
  return files;
}

/** The walk as the ignore package answers it for whole paths, level by level. */
function referenceWalk(files: Record<string, string>): string[] {
  const children = new Map<string, Map<string, boolean>>();
  for (const path of Object.keys(files)) {
    let child = path;
    let isDir = false;
    for (;;) {
      const parent = dirname(child) === "." ? "" : dirname(child);
      const names = children.get(parent) ?? new Map<string, boolean>();
      children.set(parent, names);
      names.set(child.slice(parent === "" ? 0 : parent.length + 1), isDir);
      if (parent === "") break;
      child = parent;
      isDir = true;
    }
  }
  const out: string[] = [];
  const visit = (dir: string, levels: Array<{ dir: string; ig: ReturnType<typeof ignore> }>) => {
    const names = [...(children.get(dir) ?? new Map()).entries()].sort(([a], [b]) =>
      a < b ? -1 : a > b ? 1 : 0
    );
    const texts = [".gitignore", ".ignore"].map((n) => files[dir === "" ? n : `${dir}/${n}`])
      .filter((t): t is string => t !== undefined);
    let here = levels;
    if (texts.length > 0) {
      const ig = ignore();
      for (const text of texts) ig.add(text);
      here = [...levels, { dir, ig }];
    }
    for (const [name, isDir] of names) {
      const path = dir === "" ? name : `${dir}/${name}`;
      let ignored = false;
      for (const level of here) {
        const rel = relative(level.dir === "" ? "." : level.dir, path);
        const r = level.ig.test(isDir ? `${rel}/` : rel);
        if (r.ignored) ignored = true;
        else if (r.unignored) ignored = false;
      }
      if (ignored) continue;
      out.push(isDir ? `${path}/` : path);
      if (isDir) visit(path, here);
    }
  };
  visit("", []);
  return out;
}

Deno.test("walkTree() answers as the ignore package does for whole paths, on random trees", async () => {
  const rand = prng(19);
  for (let trial = 0; trial < 300; trial++) {
    const files = randomTree(rand);
    const fs = new MemoryFs(
      Object.fromEntries(Object.entries(files).map(([p, t]) => [`/ws/${p}`, t])),
    );
    const walked: string[] = [];
    for await (const e of walkTree(fs, "/ws", { includeDirs: true })) {
      walked.push(e.isDirectory ? `${e.rel}/` : e.rel);
    }
    assert.deepEqual(walked, referenceWalk(files), JSON.stringify(files));
  }
});
