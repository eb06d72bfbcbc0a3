/**
 * Whether bubblewrap works here: installed, able to create the tool host's namespaces, and a
 * nested pid namespace inside them for each bash call. Probed once per run.
 */
import { join } from "node:path";
import type { CommandOps, PathOps } from "../../policy/mod.ts";
import { isExecutableFile } from "./program_masks.ts";
import { nestedBashPrefix } from "./view.ts";

/** Whether bubblewrap can be used on this machine, and if not, why. */
export type BwrapProbe =
  | {
    usable: true;
    path: string;
  }
  | { usable: false; cause: string };

/** Options of `probeBwrap`. */
export interface ProbeOptions {
  /** The bwrap executable (default: found on `env.PATH`). */
  path?: string;
  env?: Record<string, string>;
  timeoutMs?: number;
  /** Finds the bwrap executable. */
  paths: PathOps;
  /** Runs the probe commands. */
  commands: CommandOps;
}

/**
 * Checks once whether bwrap is installed and can create the namespaces the tool host uses
 * (including a nested pid namespace). Never throws.
 */
export async function probeBwrap(options: ProbeOptions): Promise<BwrapProbe> {
  const { paths, commands } = options;
  const path = options.path ?? findProgram("bwrap", options.env?.["PATH"], { paths });
  if (path === undefined) {
    return {
      usable: false,
      cause: "bubblewrap (bwrap) is not installed or not on PATH; install it (e.g. " +
        "apt-get install bubblewrap)",
    };
  }
  const base = [
    "--die-with-parent",
    "--new-session",
    "--unshare-pid",
    "--unshare-ipc",
    "--unshare-uts",
    "--unshare-net",
    "--ro-bind",
    "/",
    "/",
    "--dev",
    "/dev",
    "--proc",
    "/proc",
    "--tmpfs",
    "/tmp",
    "--",
  ];
  const timeoutMs = options.timeoutMs ?? 5000;
  // Both at once: the probe is on the start-up path, and the nested one only counts when the
  // outer one works.
  const [outer, nested] = await Promise.all([
    runQuietly(commands, [path, ...base, path, "--version"], timeoutMs),
    runQuietly(commands, [path, ...base, ...nestedBashPrefix(path), path, "--version"], timeoutMs),
  ]);
  if (!outer.ok) {
    return {
      usable: false,
      cause: `bubblewrap cannot create namespaces here (${outer.detail}); ` +
        "user namespaces may be disabled (sysctl kernel.unprivileged_userns_clone / " +
        "apparmor_restrict_unprivileged_userns) or the container forbids them",
    };
  }
  // Without a pid namespace per bash call, bash would share the tool host's: it could see the
  // host's processes and write to their descriptors (the host's RPC). Not a sandbox worth the name.
  if (!nested.ok) {
    return {
      usable: false,
      cause: `bubblewrap cannot create a nested pid namespace for each bash call ` +
        `(${nested.detail}); setuid bubblewrap, or a container that forbids nested user ` +
        "namespaces, can cause this",
    };
  }
  return { usable: true, path };
}

async function runQuietly(
  commands: CommandOps,
  command: string[],
  timeoutMs: number,
): Promise<{ ok: boolean; detail: string }> {
  const [program, ...args] = command as [string, ...string[]];
  const out = await commands.output(program, args, { timeoutMs });
  if (!out.ok) return { ok: false, detail: out.message };
  const firstLine = out.stderr.trim().split("\n")[0] ?? "";
  return {
    ok: out.success,
    detail: out.success
      ? ""
      : firstLine || (out.signal ? `killed by ${out.signal}` : `exit code ${out.code}`),
  };
}

/** Absolute path of `name` on `pathVar` (colon-separated), or undefined. */
export function findProgram(
  name: string,
  pathVar: string | undefined,
  options: { paths: PathOps },
): string | undefined {
  const { paths } = options;
  if (name.includes("/")) return isExecutableFile(paths, name) ? name : undefined;
  const dirs = (pathVar ?? "/usr/local/bin:/usr/bin:/bin").split(":").filter((d) => d !== "");
  for (const dir of dirs) {
    const candidate = join(dir, name);
    if (isExecutableFile(paths, candidate)) return candidate;
  }
  return undefined;
}
