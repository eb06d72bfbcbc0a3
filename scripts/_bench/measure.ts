/** What a measure is, and the lazily generated data sets measures share. */
import type { BenchEnv } from "./env.ts";
import { type BigTextFile, generateBigTextFile, type GeneratedTree, generateTree } from "./gen.ts";
import type { Row } from "./table.ts";

/** Sizes of generated data and repetition counts; `--quick` shrinks them for development. */
export interface Sizes {
  bigFileBytes: number;
  treeFiles: number;
  treeBytes: number;
  seqCount: number;
  toolCalls: number;
}

/** Full sizes from the bench issue. */
export const FULL_SIZES: Sizes = {
  bigFileBytes: 1024 ** 3,
  treeFiles: 50_000,
  treeBytes: 500 * 1024 ** 2,
  seqCount: 20_000_000,
  toolCalls: 1000,
};

/** Development sizes (`--quick`). */
export const QUICK_SIZES: Sizes = {
  bigFileBytes: 40 * 1024 ** 2,
  treeFiles: 2_500,
  treeBytes: 25 * 1024 ** 2,
  seqCount: 1_000_000,
  toolCalls: 200,
};

/** Generated data, created on first use inside the temp root and shared between measures. */
export class DataSets {
  readonly #env: BenchEnv;
  readonly sizes: Sizes;
  #bigFile: Promise<BigTextFile> | undefined;
  #tree: Promise<GeneratedTree> | undefined;

  constructor(env: BenchEnv, sizes: Sizes) {
    this.#env = env;
    this.sizes = sizes;
  }

  /** The ~1 GB text file of measure 4. */
  bigFile(): Promise<BigTextFile> {
    this.#bigFile ??= (async () => {
      const t = performance.now();
      const file = await generateBigTextFile(this.#env.path("big.txt"), this.sizes.bigFileBytes);
      this.#env.log(
        `generated ${(file.bytes / 1024 ** 2).toFixed(0)} MB text file (${file.lines} lines) in ` +
          `${((performance.now() - t) / 1000).toFixed(1)} s`,
      );
      return file;
    })();
    return this.#bigFile;
  }

  /** The 50,000-file tree of measure 5. */
  tree(): Promise<GeneratedTree> {
    this.#tree ??= (async () => {
      const t = performance.now();
      const tree = await generateTree(this.#env.path("tree"), {
        files: this.sizes.treeFiles,
        totalBytes: this.sizes.treeBytes,
      });
      this.#env.log(
        `generated tree: ${tree.files} files, ${(tree.totalBytes / 1024 ** 2).toFixed(0)} MB, ` +
          `${tree.ignoredFiles} ignored, ${tree.binaryFiles} binary, in ` +
          `${((performance.now() - t) / 1000).toFixed(1)} s`,
      );
      return tree;
    })();
    return this.#tree;
  }
}

/** One measure of the bench issue. */
export interface Measure {
  /** Number in the bench issue (1–7). */
  id: number;
  /** Name for `--only=`. */
  name: string;
  title: string;
  run(env: BenchEnv, data: DataSets): Promise<Row[]>;
}

/** Human label of how tools ran: the sandbox mode ("bwrap" or "worker"). */
export function modeLabel(mode: string): string {
  return `(sandbox: ${mode})`;
}
