/** Deterministic data generators for the bench: a huge text file and a large source-like tree. */
import { join } from "node:path";

/** A small seeded PRNG (mulberry32) so every run generates the same data. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = (
  "the of and to in is it for on with as by at from this that value result error state config " +
  "buffer stream reader writer parse token index offset length count limit cache queue worker " +
  "request response client server handler session message event signal timeout process child " +
  "path file directory tree node edge graph vertex matrix vector scalar tensor batch shard"
).split(" ");

/** Lines of prose-like code comments; one in `needleEvery` carries a `handle_<word>_<nnn>(` call. */
function linePool(size: number, rand: () => number, needleEvery: number): string[] {
  const pool: string[] = [];
  for (let i = 0; i < size; i++) {
    const target = 40 + Math.floor(rand() * 80);
    let line = rand() < 0.5 ? "  // " : "  let x = ";
    while (line.length < target) line += WORDS[Math.floor(rand() * WORDS.length)] + " ";
    if (needleEvery > 0 && i % needleEvery === 0) {
      const word = WORDS[Math.floor(rand() * WORDS.length)];
      line += `handle_${word}_${String(Math.floor(rand() * 1000)).padStart(3, "0")}(x);`;
    }
    pool.push(line.trimEnd());
  }
  return pool;
}

/** What `generateBigTextFile` wrote. */
export interface BigTextFile {
  path: string;
  bytes: number;
  lines: number;
}

/**
 * Writes a text file of about `bytes` bytes, streaming in 4 MiB chunks (never held in memory).
 * Line n (1-based) starts with n zero-padded to 9 digits, so any page can be checked.
 */
export async function generateBigTextFile(path: string, bytes: number): Promise<BigTextFile> {
  const pool = linePool(1024, prng(1), 0);
  const encoder = new TextEncoder();
  const file = await Deno.open(path, { write: true, create: true, truncate: true });
  let written = 0;
  let line = 0;
  try {
    while (written < bytes) {
      const parts: string[] = [];
      let chunkChars = 0;
      while (chunkChars < 4 * 1024 * 1024 && written + chunkChars < bytes) {
        line++;
        const text = `${String(line).padStart(9, "0")} ${pool[line & 1023]}\n`;
        parts.push(text);
        chunkChars += text.length;
      }
      const data = encoder.encode(parts.join(""));
      let off = 0;
      while (off < data.length) off += await file.write(data.subarray(off));
      written += data.length;
    }
  } finally {
    file.close();
  }
  return { path, bytes: written, lines: line };
}

/** What `generateTree` wrote. */
export interface GeneratedTree {
  dir: string;
  files: number;
  /** Files excluded by the .gitignore files. */
  ignoredFiles: number;
  /** Files with a NUL byte (both greps must skip them). */
  binaryFiles: number;
  totalBytes: number;
  /** A literal present in a few searchable files (and a few ignored and binary ones). */
  rareLiteral: string;
  /** A regex (same meaning in JS and Rust regex syntax) matching many lines. */
  commonRegex: string;
}

/**
 * Writes `files` files of about `totalBytes` bytes in all under `dir`, shaped like a repository:
 * `pkgNN/subN/…` sources, `*.log` files ignored by the root .gitignore, a `vendor/` directory
 * ignored by it, and `pkgNN/tmp/` directories ignored by nested .gitignore files — one fifth of
 * the files in all — plus hidden files (searched) and binary files (skipped).
 */
export async function generateTree(
  dir: string,
  options: { files: number; totalBytes: number; concurrency?: number },
): Promise<GeneratedTree> {
  const rand = prng(7);
  const pool = linePool(4096, rand, 400);
  const rareLiteral = "ZQX_RARE_NEEDLE_41";
  const encoder = new TextEncoder();
  const avg = options.totalBytes / options.files;
  const pkgs = Math.max(1, Math.min(40, Math.round(options.files / 1250)));
  await Deno.mkdir(dir, { recursive: true });
  await Deno.writeTextFile(join(dir, ".gitignore"), "*.log\n/vendor/\n");
  for (let p = 0; p < pkgs; p++) {
    const pkg = join(dir, `pkg${String(p).padStart(2, "0")}`);
    await Deno.mkdir(join(pkg, "tmp"), { recursive: true });
    for (let s = 0; s < 10; s++) await Deno.mkdir(join(pkg, `sub${s}`), { recursive: true });
    await Deno.writeTextFile(join(pkg, ".gitignore"), "tmp/\n");
  }
  await Deno.mkdir(join(dir, "vendor", "lib"), { recursive: true });

  let ignored = 0;
  let binary = 0;
  let total = 0;
  const jobs: Array<{ path: string; data: Uint8Array }> = [];
  const flush = async () => {
    await Promise.all(jobs.map((j) => Deno.writeFile(j.path, j.data)));
    jobs.length = 0;
  };
  for (let i = 0; i < options.files; i++) {
    const pkg = `pkg${String(i % pkgs).padStart(2, "0")}`;
    const sub = `sub${Math.floor(i / pkgs) % 10}`;
    const cls = i % 10;
    let rel: string;
    if (cls === 0) {
      rel = join(pkg, sub, `trace_${i}.log`);
      ignored++;
    } else if (cls === 1 && i % 20 === 1) {
      rel = join("vendor", "lib", `dep_${i}.ts`);
      ignored++;
    } else if (cls === 1) {
      rel = join(pkg, "tmp", `scratch_${i}.ts`);
      ignored++;
    } else if (i % 100 === 2) {
      rel = join(pkg, sub, `.hidden_${i}.ts`);
    } else {
      rel = join(pkg, sub, `mod_${i}.ts`);
    }
    const size = Math.max(200, Math.round(avg * (0.2 + rand() * 1.6)));
    const lines: string[] = [];
    let len = 0;
    let idx = Math.floor(rand() * pool.length);
    while (len < size) {
      const line = pool[idx % pool.length] as string;
      lines.push(line);
      len += line.length + 1;
      idx += 1 + Math.floor(rand() * 7);
    }
    // The rare literal: in 1 of 2,500 searchable files, and as many ignored/binary ones.
    if (i % 2500 === 7 || i % 2500 === 10 || i % 2500 === 503) {
      lines.splice(Math.floor(lines.length / 2), 0, `  const marker = "${rareLiteral}";`);
    }
    let data = encoder.encode(lines.join("\n") + "\n");
    if (i % 2500 === 503) {
      // Binary: a NUL in the first bytes, so both greps skip the file.
      const bin = new Uint8Array(data.length + 4);
      bin.set([0x7f, 0x45, 0x00, 0x01]);
      bin.set(data, 4);
      data = bin;
      binary++;
    }
    total += data.length;
    jobs.push({ path: join(dir, rel), data });
    if (jobs.length >= (options.concurrency ?? 32)) await flush();
  }
  await flush();
  return {
    dir,
    files: options.files,
    ignoredFiles: ignored,
    binaryFiles: binary,
    totalBytes: total,
    rareLiteral,
    commonRegex: "handle_[a-z]+_[0-9]{3}\\(",
  };
}
