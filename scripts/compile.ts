/**
 * `deno task compile`: builds one self-contained binary per target into dist/ with exactly the
 * runtime flags of the `start` task in deno.json (read from there, so there is one definition),
 * embeds the sandbox Worker modules, honours DENORT_BIN, and writes dist/SHA256SUMS.
 *
 * Usage: deno task compile [--target TRIPLE]… [--out-dir DIR]
 * With DENORT_BIN set (a local denort, e.g. for offline builds) only the host target is built
 * unless --target says otherwise, because one denort binary fits one target.
 */
import { basename, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { LAZY_ENTRY_MODULES } from "../src/entry_modules.ts";
import { writeBundle } from "./_bundle_build.ts";
import {
  WORKER_MODULES,
  workerModuleUrl,
  type WorkerRole,
} from "../src/sandbox/worker/worker_modules.ts";

/** The release targets. */
export const TARGETS = [
  "x86_64-unknown-linux-gnu",
  "aarch64-unknown-linux-gnu",
  "x86_64-apple-darwin",
  "aarch64-apple-darwin",
  "x86_64-pc-windows-msvc",
] as const;

/**
 * Modules loaded dynamically at run time that `deno compile` must embed: every sandbox Worker
 * module, from the one list createSandbox loads them from, and the entry modules main.ts imports
 * by computed specifiers (src/entry_modules.ts), paths relative to the project root.
 */
export const INCLUDED_MODULES: readonly string[] = [
  ...Object.values(LAZY_ENTRY_MODULES),
  ...(Object.keys(WORKER_MODULES) as WorkerRole[]).map((role) =>
    relative(fileURLToPath(new URL("..", import.meta.url)), fileURLToPath(workerModuleUrl(role)))
  ),
];

/** The runtime flags and entry module of a `deno run …` task string. */
export interface RunTask {
  /** Variables the task sets for the run (`NAME=value` words before `deno run`). */
  env: Record<string, string>;
  flags: string[];
  entry: string;
}

/** Splits a task string into words (double and single quotes group, no other shell syntax). */
export function splitWords(command: string): string[] {
  const words: string[] = [];
  const re = /"([^"]*)"|'([^']*)'|(\S+)/g;
  for (const m of command.matchAll(re)) words.push(m[1] ?? m[2] ?? m[3] ?? "");
  return words;
}

/**
 * Parses a `[NAME=value …] deno run [flags] entry` task into its variables, flags and entry.
 * Flags must be written `--name` or `--name=value` (a separate value word would be taken for the
 * entry). A variable's value is kept as written (`"$INIT_CWD"`): the task's shell expands it.
 */
export function parseRunTask(task: string): RunTask {
  const all = splitWords(task);
  const env: Record<string, string> = {};
  let first = 0;
  for (; first < all.length; first++) {
    const assignment = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(all[first] as string);
    if (assignment === null) break;
    env[assignment[1] as string] = assignment[2] as string;
  }
  const words = all.slice(first);
  if (words[0] !== "deno" || words[1] !== "run") {
    throw new Error(`The start task must be "deno run [flags] main.ts", got "${task}"`);
  }
  const flags: string[] = [];
  let i = 2;
  for (; i < words.length && (words[i] as string).startsWith("-"); i++) {
    flags.push(words[i] as string);
  }
  const entry = words[i];
  if (entry === undefined) throw new Error(`The start task names no entry module: "${task}"`);
  if (i + 1 < words.length) {
    throw new Error(`The start task must not pass script arguments, got "${task}"`);
  }
  return { env, flags, entry };
}

/** Output path of the binary for one target (deno compile adds ".exe" for Windows). */
export function outputPath(outDir: string, target: string): string {
  return join(outDir, `moat-${target}`);
}

/** The arguments of `deno compile` for one target. Pure. */
export function compileArgs(
  target: string,
  run: RunTask,
  options: { outDir?: string; include?: readonly string[]; entry?: string } = {},
): string[] {
  const args = ["compile", ...run.flags];
  for (const module of options.include ?? INCLUDED_MODULES) args.push("--include", module);
  args.push(
    "--target",
    target,
    "--output",
    outputPath(options.outDir ?? "dist", target),
    options.entry ?? run.entry,
  );
  return args;
}

/** Reads the `start` task of deno.json. */
export async function readStartTask(denoJsonPath: string): Promise<RunTask> {
  const config = JSON.parse(await Deno.readTextFile(denoJsonPath));
  const start = config?.tasks?.start;
  // A task is a command, or an object with its command (and the tasks it depends on).
  const task = typeof start === "string" ? start : start?.command;
  if (typeof task !== "string") throw new Error(`${denoJsonPath} has no "start" task`);
  return parseRunTask(task);
}

/** `sha256sum`-compatible lines for the given files. */
export async function sha256Sums(files: readonly string[]): Promise<string> {
  let out = "";
  for (const file of files) {
    const digest = await crypto.subtle.digest("SHA-256", await Deno.readFile(file));
    const hex = Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
    out += `${hex}  ${basename(file)}\n`;
  }
  return out;
}

/** The CLI bundle's current build (written first when stale), relative to `root`. */
async function releaseBuild(root: string): Promise<string> {
  return relative(root, (await writeBundle(root)).dir);
}

function log(line: string): void {
  Deno.stderr.writeSync(new TextEncoder().encode(line + "\n"));
}

async function main(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      options: { target: { type: "string", multiple: true }, "out-dir": { type: "string" } },
      strict: true,
    });
  } catch (e) {
    log(`compile: ${e instanceof Error ? e.message : String(e)}`);
    return 2;
  }
  const root = new URL("..", import.meta.url).pathname;
  const run = await readStartTask(join(root, "deno.json"));
  const outDir = parsed.values["out-dir"] ?? join(root, "dist");
  const denort = Deno.env.get("DENORT_BIN");
  let targets: string[] = parsed.values.target ?? [...TARGETS];
  if (parsed.values.target === undefined && denort) {
    targets = [Deno.build.target];
    log(`compile: DENORT_BIN=${denort}: building only the host target ${targets[0]}`);
  }
  for (const target of targets) {
    if (!(TARGETS as readonly string[]).includes(target)) {
      log(`compile: unknown target "${target}"; known: ${TARGETS.join(", ")}`);
      return 2;
    }
  }
  // The release is compiled from the CLI's bundle (scripts/bundle.ts), what `deno task start`
  // runs too: the build's entry, its chunks, and the modules loaded by URL from the sources.
  const build = await releaseBuild(root);
  await Deno.mkdir(outDir, { recursive: true });
  const built: string[] = [];
  for (const target of targets) {
    const args = compileArgs(target, run, {
      outDir,
      entry: join(build, "moat.ts"),
      include: [...INCLUDED_MODULES, join(build, "cli")],
    });
    log(`compile: deno ${args.join(" ")}`);
    // DENORT_BIN is read by `deno compile` itself from the inherited environment.
    const status = await new Deno.Command(Deno.execPath(), { args, cwd: root }).spawn().status;
    if (!status.success) {
      log(`compile: deno compile failed for ${target} (exit ${status.code})`);
      return 1;
    }
    const base = outputPath(outDir, target);
    built.push(target.includes("windows") ? `${base}.exe` : base);
  }
  await Deno.writeTextFile(join(outDir, "SHA256SUMS"), await sha256Sums(built));
  log(`compile: wrote ${built.length} binaries and ${join(outDir, "SHA256SUMS")}`);
  return 0;
}

if (import.meta.main) {
  Deno.exit(await main(Deno.args));
}
