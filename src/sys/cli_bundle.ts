/**
 * Which CLI module main.ts runs: the CLI's local bundle (`deno task bundle`, scripts/bundle.ts: a
 * code-split bundle in dist/bundle/, what runs later in chunks loaded when used) while every
 * input it was built from is as it was then (size and modification time, like make), else the
 * sources. A bundle is never run stale: an edited, added or removed input makes it unused until
 * it is built again. `MOAT_NO_BUNDLE=1` runs the sources. Reads a few hundred stats, no module.
 */

/** The bundles' directory under moat's checkout; each build in a directory of its own. */
export const CLI_BUNDLE_DIR = "dist/bundle";

/** The pointer to the current build (a `CliBundlePointer`), in `CLI_BUNDLE_DIR`. */
export const CLI_BUNDLE_POINTER = "current.json";

/** The CLI's module in a build directory. */
export const CLI_BUNDLE_MAIN = "cli/main.js";

/** An input of a build: its path relative to the checkout, its size and modification time (ms). */
export type CliBundleStamp = [path: string, size: number, mtimeMs: number];

/** What `CLI_BUNDLE_POINTER` holds: the build's directory name and the inputs it was built from. */
export interface CliBundlePointer {
  build: string;
  inputs: CliBundleStamp[];
}

/** What the check reads: a file's text and an entry's size and modification time. */
export interface CliBundleOps {
  readText(path: string): string | undefined;
  stat(path: string): { size: number; mtimeMs: number } | undefined;
}

/** The stamp of one input as it is now, or undefined when it is missing or unreadable. */
export function stampOf(ops: CliBundleOps, root: string, path: string): CliBundleStamp | undefined {
  const info = ops.stat(`${root}/${path}`);
  return info === undefined ? undefined : [path, info.size, info.mtimeMs];
}

/** The pointer in `text`, or undefined when it is not one (a build in progress, another format). */
export function parsePointer(text: string | undefined): CliBundlePointer | undefined {
  if (text === undefined) return undefined;
  try {
    const value = JSON.parse(text) as Partial<CliBundlePointer>;
    const { build, inputs } = value;
    if (typeof build !== "string" || !/^[0-9a-f]{8,64}$/.test(build)) return undefined;
    if (!Array.isArray(inputs) || inputs.length === 0) return undefined;
    const valid = inputs.every((i) =>
      Array.isArray(i) && i.length === 3 && typeof i[0] === "string" && !i[0].startsWith("/") &&
      !i[0].split("/").includes("..") && typeof i[1] === "number" && typeof i[2] === "number"
    );
    return valid ? { build, inputs } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The file URL of the bundled CLI module under the checkout `root` (an absolute path) when its
 * current build exists and every input is unchanged; undefined when there is none or it is stale.
 */
export function freshCliBundle(
  root: string,
  options: { ops?: CliBundleOps; dir?: string } = {},
): string | undefined {
  const ops = options.ops ?? DENO_OPS;
  const dir = `${root}/${options.dir ?? CLI_BUNDLE_DIR}`;
  const pointer = parsePointer(ops.readText(`${dir}/${CLI_BUNDLE_POINTER}`));
  if (pointer === undefined) return undefined;
  const main = `${dir}/${pointer.build}/${CLI_BUNDLE_MAIN}`;
  if (ops.stat(main) === undefined) return undefined;
  return inputsUnchanged(root, pointer.inputs, ops) ? fileUrl(main) : undefined;
}

/**
 * The CLI module main.ts runs from the checkout at `root` under `env`: the fresh bundle's URL,
 * or undefined for the sources (no bundle, a stale one, or `MOAT_NO_BUNDLE=1`).
 */
export function bundledCli(
  root: string,
  env: { get(name: string): string | undefined },
  ops: CliBundleOps = DENO_OPS,
): string | undefined {
  return env.get("MOAT_NO_BUNDLE") === "1" ? undefined : freshCliBundle(root, { ops });
}

/** The file URL of an absolute POSIX path (each segment encoded: `#`, `%`, spaces …). */
function fileUrl(path: string): string {
  return `file://${path.split("/").map(encodeURIComponent).join("/")}`;
}

/** The record of a failed build (a `CliBundlePointer`: its inputs), in `CLI_BUNDLE_DIR`. */
export const CLI_BUNDLE_FAILED = "failed.json";

/**
 * Whether the last build failed from exactly the inputs there are now (so building again would
 * fail again: a start does not wait for it; `deno task bundle --force` tries anyway).
 */
export function failedBefore(
  root: string,
  options: { ops?: CliBundleOps; dir?: string } = {},
): boolean {
  const ops = options.ops ?? DENO_OPS;
  const dir = `${root}/${options.dir ?? CLI_BUNDLE_DIR}`;
  const failed = parsePointer(ops.readText(`${dir}/${CLI_BUNDLE_FAILED}`));
  return failed !== undefined && inputsUnchanged(root, failed.inputs, ops);
}

function inputsUnchanged(root: string, inputs: CliBundleStamp[], ops: CliBundleOps): boolean {
  return inputs.every(([path, size, mtimeMs]) => {
    const now = stampOf(ops, root, path);
    return now !== undefined && now[1] === size && now[2] === mtimeMs;
  });
}

/** The file operations of the check, on Deno's synchronous APIs (a missing file is undefined). */
export const DENO_OPS: CliBundleOps = {
  readText(path) {
    try {
      return Deno.readTextFileSync(path);
    } catch {
      return undefined;
    }
  },
  stat(path) {
    try {
      const info = Deno.statSync(path);
      return info.isFile ? { size: info.size, mtimeMs: info.mtime?.getTime() ?? 0 } : undefined;
    } catch {
      return undefined;
    }
  },
};
