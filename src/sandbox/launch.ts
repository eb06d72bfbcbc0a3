/**
 * How the main process starts the tool host process: the moat binary itself when compiled, else
 * `deno run` with the start task's runtime flags and moat's entry script, plus what of moat (the
 * project, its npm packages and transpiled modules in Deno's cache) the host's view must show.
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { PathOps, ScanOps } from "../policy/mod.ts";
import { TOOL_HOST_COMMAND } from "./host/protocol.ts";
import type { SandboxSys } from "./ops.ts";

/** Runtime flags of the tool host process under `deno run` (those of `deno task start`). */
export const HOST_RUNTIME_FLAGS: readonly string[] = [
  "--unstable-worker-options",
  "--allow-all",
  "--no-prompt",
  "--v8-flags=--enable-experimental-regexp-engine-on-excessive-backtracks",
];

/** How to start the tool host process and what of moat it must see. */
export interface HostLaunch {
  command: string[];
  /** The moat executable (the deno binary under `deno run`). */
  executable: string;
  readOnlyPaths: string[];
  denoDir?: string;
}

/** Works out the tool host command: the binary itself when compiled, else `deno run` + script. */
export async function hostLaunch(
  sys: Pick<SandboxSys, "runtime" | "paths">,
  options: { script: string | undefined; env: Record<string, string> },
): Promise<HostLaunch> {
  const executable = sys.runtime.execPath();
  // The binary's name says nothing (deno may be installed under any name); the runtime knows.
  if (sys.runtime.standalone()) {
    return { command: [executable, TOOL_HOST_COMMAND], executable, readOnlyPaths: [executable] };
  }
  const entry = options.script ?? fileURLToPath(sys.runtime.mainModule());
  const config = findUp(sys.paths, dirname(entry), "deno.json");
  const project = config === undefined ? dirname(entry) : dirname(config);
  const denoDir = options.env["DENO_DIR"] ?? await sys.runtime.denoDir(executable);
  // Of Deno's cache only moat's own npm packages and moat's own transpiled modules: the rest holds
  // other projects' code (their transpiled sources, with whatever secrets those contain).
  const cached = denoDir === undefined ? [] : [
    ...lockedPackages(sys.paths, config).map((name) =>
      join(denoDir, "npm", "registry.npmjs.org", name)
    ),
    join(denoDir, "gen", "file", project),
  ].filter((p) => sys.paths.lstat(p) !== undefined);
  return {
    command: [
      executable,
      "run",
      ...HOST_RUNTIME_FLAGS,
      ...(config === undefined ? [] : ["--config", config]),
      entry,
      TOOL_HOST_COMMAND,
    ],
    executable,
    readOnlyPaths: [executable, project, ...cached],
    ...(denoDir === undefined ? {} : { denoDir }),
  };
}

/** The npm package names in the lock file next to `config` (deno.lock), e.g. "@scope/name". */
function lockedPackages(paths: ScanOps, config: string | undefined): string[] {
  if (config === undefined) return [];
  const text = paths.readTextFile(join(dirname(config), "deno.lock"), 4 * 1024 * 1024);
  if (text === undefined) return [];
  try {
    const npm = (JSON.parse(text) as { npm?: Record<string, unknown> }).npm ?? {};
    // "name@version", "@scope/name@version", and with peer dependencies
    // "name@version_peer@version": the name ends at the first "@" after its first character.
    return [...new Set(Object.keys(npm).map((key) => key.slice(0, key.indexOf("@", 1))))]
      .filter((name) => name !== "" && !name.includes(".."));
  } catch {
    return [];
  }
}

function findUp(paths: PathOps, start: string, name: string): string | undefined {
  let dir = start;
  for (;;) {
    const candidate = join(dir, name);
    if (paths.stat(candidate)?.kind === "file") return candidate;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}
