/** Deno implementation of the sandbox's RuntimeOps: the running executable, main module, cache. */
import type { RuntimeOps } from "../sandbox/ops.ts";
import { isAbsolute, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { createDenoCommandOps } from "./command.ts";

/** How long `deno info --json` may take before the cache directory counts as unknown. */
const DENO_INFO_TIMEOUT_MS = 10_000;

/**
 * Creates RuntimeOps backed by Deno.execPath, Deno.mainModule, Deno.build, /proc/self/cmdline and
 * `deno info --json`, with `moduleRoot` (main.ts's directory as a URL) when given.
 */
export function createDenoRuntimeOps(moduleRoot?: string): RuntimeOps {
  return {
    ...(moduleRoot === undefined ? {} : { moduleRoot: () => moduleRoot }),
    execPath: () => Deno.execPath(),
    mainModule: () => Deno.mainModule,
    standalone: () => Deno.build.standalone,
    cacheDir(env) {
      const dir = defaultDenoDir(Deno.build.os, env);
      if (dir === undefined || isAbsolute(dir)) return dir;
      try {
        return join(Deno.cwd(), dir);
      } catch {
        return undefined; // The current directory is gone: no relative DENO_DIR to resolve.
      }
    },
    configFile() {
      try {
        const argv = Deno.readTextFileSync("/proc/self/cmdline").split("\0");
        return configFlag(argv, { mainModule: Deno.mainModule, cwd: Deno.cwd() });
      } catch {
        return undefined; // No /proc (not Linux), or no current directory to resolve against.
      }
    },
    async denoDir(executable) {
      // Where Deno keeps its cache by default, as Deno itself works it out: no subprocess on
      // the way to the first request. `deno info` only when that directory is not there.
      const known = defaultDenoDir(Deno.build.os, Deno.env.toObject());
      if (known !== undefined) {
        try {
          if (Deno.statSync(join(known, "npm")).isDirectory) return Deno.realPathSync(known);
        } catch {
          // Not this one: ask Deno.
        }
      }
      const out = await createDenoCommandOps().output(executable, ["info", "--json"], {
        timeoutMs: DENO_INFO_TIMEOUT_MS,
      });
      if (!out.ok || !out.success) return undefined;
      try {
        const info = JSON.parse(out.stdout) as { denoDir?: unknown };
        return typeof info.denoDir === "string" ? Deno.realPathSync(info.denoDir) : undefined;
      } catch {
        return undefined;
      }
    },
  };
}

/**
 * Deno's cache directory as given (relative ones are relative to the current directory, as Deno
 * takes them): DENO_DIR, else $XDG_CACHE_HOME/deno or ~/.cache/deno on Linux,
 * ~/Library/Caches/deno on macOS, %LOCALAPPDATA%\deno on Windows.
 */
export function defaultDenoDir(
  os: string,
  env: Record<string, string | undefined>,
): string | undefined {
  if (env.DENO_DIR) return env.DENO_DIR;
  if (os === "windows") return env.LOCALAPPDATA ? join(env.LOCALAPPDATA, "deno") : undefined;
  if (!env.HOME) return undefined;
  if (os === "darwin") return join(env.HOME, "Library", "Caches", "deno");
  return join(env.XDG_CACHE_HOME || join(env.HOME, ".cache"), "deno");
}

/**
 * The `--config` (`-c`) value of a Deno command line `argv` (absolute, against `cwd`), looked for
 * only before the main module's argument: what follows it are the program's own arguments.
 */
export function configFlag(
  argv: readonly string[],
  options: { mainModule: string; cwd: string },
): string | undefined {
  const main = options.mainModule.startsWith("file:")
    ? fileURLToPath(options.mainModule)
    : undefined;
  const end = argv.findIndex((arg, i) =>
    i > 0 && (arg === options.mainModule ||
      (main !== undefined && !arg.startsWith("-") && resolve(options.cwd, arg) === main))
  );
  if (end < 0) return undefined;
  for (let i = 1; i < end; i++) {
    const arg = argv[i] as string;
    const inline = /^(?:--config|-c)=(.+)$/.exec(arg)?.[1];
    const value = inline ?? (arg === "--config" || arg === "-c" ? argv[i + 1] : undefined);
    if (value !== undefined && value !== "") return resolve(options.cwd, value);
  }
  return undefined;
}
