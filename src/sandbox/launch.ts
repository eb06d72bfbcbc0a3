/**
 * How the main process starts the tool host process: the moat binary itself when compiled, else
 * `deno run` with the start task's runtime flags and moat's entry script, plus what of moat (the
 * project, its npm packages and transpiled modules in Deno's cache) the host's view must show.
 */
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { PathOps, ScanOps } from "../policy/mod.ts";
import { TOOL_HOST_COMMAND } from "./host/protocol.ts";
import { freshHostBundle, HOST_BUNDLE_FILES } from "./host_bundle.ts";
import type { SandboxSys } from "./ops.ts";

/**
 * Runtime flags of the tool host process under `deno run` (those of `deno task start`). V8's
 * young generation is capped at 1 MB a semi-space (16 MB by default): the peak RSS of the README
 * scenario's main process drops from ≈ 108 to ≈ 93 MB (bench measure 12).
 */
export const HOST_RUNTIME_FLAGS: readonly string[] = [
  "--unstable-worker-options",
  "--allow-all",
  "--no-prompt",
  "--v8-flags=--enable-experimental-regexp-engine-on-excessive-backtracks,--max-semi-space-size=1",
];

/**
 * The npm packages (deno.json names) that the tool host's modules import: its Worker's tools
 * (src/sandbox/worker/*), with what they import lazily. scripts/host_config.ts writes the host's
 * own config and lock (HOST_CONFIG_FILE, HOST_LOCK_FILE) with these and what they depend on, so
 * that its view shows only them: Deno wants every package of the lock in the cache, and each
 * read-only mount costs bubblewrap time at every host start (≈ 80 ms for moat's 160 packages on
 * 2 cores). A test checks the list against the host's module graphs.
 */
export const TOOL_HOST_PACKAGES: readonly string[] = [
  "@sinclair/typebox",
  "damerau-levenshtein",
  "diff",
  "ignore",
  "ipaddr.js",
  "picomatch",
  // The Worker's graph holds fetch's page conversion (a lazy import that Deno resolves up front).
  "linkedom",
  "@mozilla/readability",
  "turndown",
];

/** The tool host's Deno config and lock, in src/sandbox/host/ (scripts/host_config.ts). */
export const HOST_CONFIG_FILE = "host_config.json";
/** See HOST_CONFIG_FILE. */
export const HOST_LOCK_FILE = "host_lock.json";

/** How to start the tool host process and what of moat it must see. */
export interface HostLaunch {
  command: string[];
  /** The moat executable (the deno binary under `deno run`). */
  executable: string;
  /** What a confined program (an MCP server or its forwarder) sees of moat: all its packages. */
  readOnlyPaths: string[];
  /** What the tool host sees of moat: its own packages (TOOL_HOST_PACKAGES) only. */
  hostReadOnlyPaths: string[];
  denoDir?: string;
  /**
   * The tool host from its bundle (./host_bundle.ts), when the checkout's is up to date: its
   * command, what its view shows of moat (the runtime and the bundle: not the checkout, no npm
   * package, nothing of Deno's cache), and its Workers' modules. Absent: the host runs from the sources
   * (`command`, `hostReadOnlyPaths`).
   */
  bundle?: HostBundleLaunch;
}

/** How to start the tool host from its bundle. */
export interface HostBundleLaunch {
  command: string[];
  readOnlyPaths: string[];
  /** The tool Worker's module. */
  workerUrl: string;
  /** grep's helper Worker's module. */
  helperUrl: string;
}

/** Works out the tool host command: the binary itself when compiled, else `deno run` + script. */
export async function hostLaunch(
  sys: Pick<SandboxSys, "runtime" | "paths">,
  options: {
    script: string | undefined;
    env: Record<string, string>;
    /**
     * Whether the tool host may run from its bundle (default: yes); not with a substituted tools
     * Worker (a test's), which loads from the sources that the bundle's view does not show.
     */
    bundle?: boolean;
  },
): Promise<HostLaunch> {
  const executable = sys.runtime.execPath();
  // The binary's name says nothing (deno may be installed under any name); the runtime knows.
  if (sys.runtime.standalone()) {
    return {
      command: [executable, TOOL_HOST_COMMAND],
      executable,
      readOnlyPaths: [executable],
      hostReadOnlyPaths: [executable],
    };
  }
  const entry = options.script ?? fileURLToPath(sys.runtime.mainModule());
  const config = findUp(sys.paths, dirname(entry), "deno.json");
  const project = config === undefined ? dirname(entry) : dirname(config);
  const denoDir = options.env["DENO_DIR"] ?? await sys.runtime.denoDir(executable);
  // Of Deno's cache only moat's own npm packages and moat's own transpiled modules: the rest holds
  // other projects' code (their transpiled sources, with whatever secrets those contain).
  const cachedOf = (names: string[]) =>
    denoDir === undefined ? [] : [
      ...names.map((name) => join(denoDir, "npm", "registry.npmjs.org", name)),
      join(denoDir, "gen", "file", project),
    ].filter((p) => sys.paths.lstat(p) !== undefined);
  const locked = config === undefined ? [] : lockedPackages(sys.paths, join(project, "deno.lock"));
  // The host's own config and lock when the checkout has them: only its packages in its view.
  const hostDir = join(project, "src", "sandbox", "host");
  const hostConfig = config !== undefined &&
      sys.paths.stat(join(hostDir, HOST_CONFIG_FILE))?.kind === "file"
    ? join(hostDir, HOST_CONFIG_FILE)
    : undefined;
  const hostLocked = hostConfig === undefined
    ? undefined
    : lockedPackages(sys.paths, join(hostDir, HOST_LOCK_FILE));
  const hostPackages = hostLocked !== undefined && hostLocked.length > 0 ? hostLocked : undefined;
  const runConfig = hostPackages === undefined ? config : hostConfig;
  const bundleDir = config === undefined || options.bundle === false
    ? undefined
    : await freshHostBundle(sys.paths, project);
  return {
    command: [
      executable,
      "run",
      ...HOST_RUNTIME_FLAGS,
      ...(runConfig === undefined ? [] : ["--config", runConfig]),
      entry,
      TOOL_HOST_COMMAND,
    ],
    executable,
    readOnlyPaths: [executable, project, ...cachedOf(locked)],
    hostReadOnlyPaths: [executable, project, ...cachedOf(hostPackages ?? locked)],
    ...(denoDir === undefined ? {} : { denoDir }),
    ...(bundleDir === undefined ? {} : { bundle: bundleLaunch(executable, bundleDir) }),
  };
}

/**
 * The tool host from the bundle in `dir`: no config, so no lock and no npm package to find, and
 * nothing of moat to show but the runtime and the bundle.
 */
function bundleLaunch(executable: string, dir: string): HostBundleLaunch {
  const url = (file: string) => pathToFileURL(join(dir, file)).href;
  return {
    command: [
      executable,
      "run",
      ...HOST_RUNTIME_FLAGS,
      "--no-config",
      join(dir, HOST_BUNDLE_FILES.host),
      TOOL_HOST_COMMAND,
    ],
    readOnlyPaths: [executable, dir],
    workerUrl: url(HOST_BUNDLE_FILES.tools),
    helperUrl: url(HOST_BUNDLE_FILES.grep),
  };
}

/** The npm package names in the lock file at `path`, e.g. "@scope/name". */
function lockedPackages(paths: ScanOps, path: string): string[] {
  const text = paths.readTextFile(path, 4 * 1024 * 1024);
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
