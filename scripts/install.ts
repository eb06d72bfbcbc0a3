/**
 * `deno task install`: installs the `moat` command from this checkout with `deno install
 * --global`, with exactly the runtime flags of the `start` task in deno.json (read from there, as
 * compile does, so there is one definition) and the packages pinned by deno.lock. Works offline
 * once the checkout's packages are in Deno's cache (no JSR).
 *
 * Usage: deno task install [--root DIR] [--name NAME]
 * The root defaults to DENO_INSTALL_ROOT, else ~/.deno; the command lands in ROOT/bin.
 */
import { delimiter, dirname, join } from "node:path";
import { parseArgs } from "node:util";
import { INCLUDED_MODULES, readStartTask, type RunTask, splitWords } from "./compile.ts";

/** Where one installation goes: ROOT/bin/NAME, with its copied config in ROOT/bin/.NAME/. */
export interface InstallTarget {
  root: string;
  name: string;
  /** moat's checkout (holds deno.json, deno.lock and the entry module). */
  projectRoot: string;
}

/** The directory `deno install --global` keeps the command's config and lock in. */
export function configDir(target: InstallTarget): string {
  return join(target.root, "bin", `.${target.name}`);
}

/** The arguments of `deno install --global` for the start task. Pure. */
export function installArgs(run: RunTask, target: InstallTarget): string[] {
  return [
    "install",
    "--global",
    "--force",
    // deno install writes a lock of its own next to the command (seeded from deno.lock first).
    "--frozen=false",
    "--root",
    target.root,
    "--name",
    target.name,
    "--config",
    join(target.projectRoot, "deno.json"),
    ...run.flags,
    join(target.projectRoot, run.entry),
  ];
}

/**
 * The arguments of `deno cache` that add the modules main.ts loads by computed specifiers (the
 * CLI, the tool host, the Worker modules: what compile embeds) to the installed command's lock,
 * which deno install fills from main.ts's static graph only. Pure; runs in the project root.
 */
export function cacheArgs(run: RunTask, target: InstallTarget): string[] {
  return [
    "cache",
    "--config",
    join(configDir(target), "deno.json"),
    "--frozen=false",
    run.entry,
    ...INCLUDED_MODULES,
  ];
}

/**
 * The runtime flags in a command script written by `deno install --global`
 * (`exec deno run FLAGS --config FILE 'file:///…/main.ts' "$@"`), without its --config.
 */
export function wrapperFlags(script: string): string[] {
  const line = script.split("\n").find((l) => /^exec deno run /.test(l));
  if (line === undefined) throw new Error(`No "exec deno run" line in the installed command`);
  const words = splitWords(line).slice(3);
  const flags: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const word = words[i] as string;
    if (!word.startsWith("-")) break;
    if (word === "--config") i++;
    else if (!word.startsWith("--config=")) flags.push(word);
  }
  return flags;
}

interface Lock {
  npm?: Record<string, { integrity?: string }>;
}

/**
 * Packages of the installed lock whose integrity differs from the one deno.lock pins for the
 * same name and version (keys are `name@version` plus `_peer@version` suffixes).
 */
export function lockMismatches(committed: Lock, installed: Lock): string[] {
  const pinned = new Map<string, string>();
  const base = (key: string) => key.replace(/_.*$/, "");
  for (const [key, entry] of Object.entries(committed.npm ?? {})) {
    if (entry.integrity !== undefined) pinned.set(base(key), entry.integrity);
  }
  return Object.entries(installed.npm ?? {}).flatMap(([key, entry]) => {
    const expected = pinned.get(base(key));
    return expected !== undefined && expected !== entry.integrity ? [base(key)] : [];
  });
}

/** The first executable file NAME in the directories of PATH, or null. */
export async function findOnPath(name: string, path: string): Promise<string | null> {
  for (const dir of path.split(delimiter)) {
    if (dir === "") continue;
    try {
      const info = await Deno.stat(join(dir, name));
      if (info.isFile && ((info.mode ?? 0o111) & 0o111) !== 0) return join(dir, name);
    } catch (e) {
      if (!(e instanceof Deno.errors.NotFound || e instanceof Deno.errors.NotADirectory)) throw e;
    }
  }
  return null;
}

function log(line: string): void {
  Deno.stderr.writeSync(new TextEncoder().encode(line + "\n"));
}

async function deno(args: string[], cwd: string): Promise<boolean> {
  log(`install: deno ${args.join(" ")}`);
  const status = await new Deno.Command(Deno.execPath(), { args, cwd }).spawn().status;
  return status.success;
}

/** What the user must still do for the installed command to run: PATH notes. */
async function pathNotes(target: InstallTarget, given: string): Promise<string[]> {
  // npx puts its temporary package directories on PATH only for the command it runs.
  const path = given.split(delimiter).filter((d) => !/[\\/]_npx[\\/]/.test(d)).join(delimiter);
  const notes: string[] = [];
  const bin = join(target.root, "bin");
  if (!path.split(delimiter).includes(bin)) {
    notes.push(`Add ${bin} to PATH: export PATH="${bin}:$PATH"`);
  }
  const found = await findOnPath("deno", path);
  const version = Deno.version.deno;
  if (found === null) {
    notes.push(
      `The installed ${target.name} runs "deno" from PATH, and PATH has none: install Deno ` +
        `${version} (npm install -g deno@${version}) or add ${dirname(Deno.execPath())} to PATH`,
    );
  } else {
    const out = await new Deno.Command(found, { args: ["--version"], stdout: "piped" }).output();
    const theirs = /^deno (\S+)/.exec(new TextDecoder().decode(out.stdout))?.[1];
    if (theirs !== version) {
      notes.push(
        `"deno" on PATH (${found}) is ${theirs ?? "of an unknown version"}; moat is tested ` +
          `with Deno ${version}: npm install -g deno@${version}`,
      );
    }
  }
  return notes;
}

async function main(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      options: { root: { type: "string" }, name: { type: "string" } },
      strict: true,
    });
  } catch (e) {
    log(`install: ${e instanceof Error ? e.message : String(e)}`);
    return 2;
  }
  const projectRoot = new URL("..", import.meta.url).pathname.replace(/\/$/, "");
  const home = Deno.env.get("HOME") ?? "";
  const root = parsed.values.root ?? Deno.env.get("DENO_INSTALL_ROOT") ?? join(home, ".deno");
  const target: InstallTarget = { root, name: parsed.values.name ?? "moat", projectRoot };
  const run = await readStartTask(join(projectRoot, "deno.json"));
  // Seeded with deno.lock, the installed lock resolves every package to the pinned version.
  await Deno.mkdir(configDir(target), { recursive: true });
  const committed = await Deno.readTextFile(join(projectRoot, "deno.lock"));
  await Deno.writeTextFile(join(configDir(target), "deno.lock"), committed);
  if (!await deno(installArgs(run, target), projectRoot)) {
    log("install: deno install failed (see above)");
    return 1;
  }
  if (!await deno(cacheArgs(run, target), projectRoot)) {
    log("install: caching the modules moat loads at run time failed (see above)");
    return 1;
  }
  const installed = JSON.parse(await Deno.readTextFile(join(configDir(target), "deno.lock")));
  const mismatched = lockMismatches(JSON.parse(committed), installed);
  if (mismatched.length > 0) {
    log(`install: packages differ from deno.lock: ${mismatched.join(", ")}`);
    return 1;
  }
  const command = join(root, "bin", target.name);
  const flags = wrapperFlags(await Deno.readTextFile(command));
  if ([...flags].sort().join(" ") !== [...run.flags].sort().join(" ")) {
    log(`install: ${command} runs with ${flags.join(" ")}, not the start task's flags`);
    return 1;
  }
  log(`install: installed ${command} (the start task's flags: ${run.flags.join(" ")})`);
  for (const note of await pathNotes(target, Deno.env.get("PATH") ?? "")) log(`install: ${note}`);
  return 0;
}

if (import.meta.main) {
  Deno.exit(await main(Deno.args));
}
