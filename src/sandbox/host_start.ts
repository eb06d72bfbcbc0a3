/**
 * Starting one tool host for given access: with bubblewrap, a moat process in a filesystem view
 * built from the grants (refused when a granted, denied or protected path changed since the start);
 * without, the tool Worker in this process. Either way the Worker gets the grants as Deno
 * permissions and the deny lists and protected paths for its file operations.
 */
import { join } from "node:path";
import {
  bashHiddenDirs,
  bashViewArgs,
  buildHostArgs,
  type DeniedPath,
  findProgram,
  hostViewProblem,
  nestedBashPrefix,
  nestedBashViewEnd,
  privateTmp,
  viewMountTargets,
} from "./bwrap/mod.ts";
import {
  hostEntryProblem,
  placeholderExcludes,
  readableIn,
  readUserGitExcludes,
  type Scope,
  type UserGitExcludes,
  withGitExcludesFile,
} from "../policy/mod.ts";
import type { McpNetwork } from "./_mcp_net.ts";
import { type HostConnection, startProcessHost, startWorkerHost } from "./host/connection.ts";
import {
  type HostConfig,
  MCP_FORWARD_ENV,
  MCP_FORWARD_OPTION,
  type McpForwardConfig,
  type WireToolOptions,
} from "./host/protocol.ts";
import type { HostAccess, HostStarter } from "./hosts.ts";
import type { HostLaunch } from "./launch.ts";
import type { MountPoints } from "./mount_points.ts";
import type { SandboxSys } from "./ops.ts";
import { workerPermissions } from "./permissions.ts";

/** The descriptor on which bwrap writes the tool host's JSON status (`--json-status-fd`). */
const BWRAP_STATUS_FD = 3;

/** What every tool host of a run is started from, besides its access. */
export interface HostSetup {
  /** Module URL of the tool Worker. */
  workerUrl: string;
  /** The tools' options; `env` is the tools' complete environment. */
  toolOptions: WireToolOptions & { env: Record<string, string> };
  /**
   * bubblewrap, how to start moat in it, and the run's placeholders for mount points at missing
   * paths; absent: the Worker runs in this process.
   */
  bwrap?: { path: string; launch: HostLaunch; mountPoints: MountPoints };
  /** The denied and ignored paths fixed at the start (their kinds and identities). */
  denied: DeniedPath[];
  /** Every other name of a `--deny-run` program, masked in the view too. */
  deniedPrograms: string[];
  /** bash's network proxy for a host of `grants` (bwrap mode under a scoped --allow-net). */
  netProxy?: (
    grants: HostAccess["grants"],
  ) => { socketPath: string; token: string; loopbackDirect: boolean } | undefined;
  /** The proxies of MCP servers that reach a list of hosts (bwrap mode). */
  mcpNet?: McpNetwork;
  sys: Pick<SandboxSys, "paths" | "processes" | "files">;
}

/** The function that starts each tool host of a run. */
export function createHostStarter(setup: HostSetup): HostStarter {
  const { toolOptions, bwrap, sys } = setup;
  const env = toolOptions.env;
  // Once per run: the excludes of the user's git config, which bash's git keeps (see below).
  const userExcludes = bwrap === undefined
    ? undefined
    : readUserGitExcludes(sys.paths, env, toolOptions.cwd);
  // The identities of the denied and ignored files, fixed at the start.
  const idsOf = (keep: (d: DeniedPath) => boolean) =>
    setup.denied.filter((d) => keep(d) && d.kind === "file" && d.id !== undefined)
      .map((d) => d.id as string);
  const deniedIds = {
    read: idsOf((d) => d.access === "read" && !d.ignored),
    write: idsOf((d) => d.access === "write" && !d.ignored),
  };
  const ignoredIds = idsOf((d) => d.ignored === true);
  return ({ grants, protection }: HostAccess): HostConnection => {
    // In bubblewrap the host and its Workers run from the bundle when there is one.
    const bundle = bwrap?.launch.bundle;
    const config: HostConfig = {
      workerUrl: bundle?.workerUrl ?? setup.workerUrl,
      ...(bundle === undefined ? {} : { helperUrl: bundle.helperUrl }),
      permissions: workerPermissions(grants, {
        spillDir: toolOptions.spillDir,
        ...(bwrap ? { bwrapPath: bwrap.path } : {}),
      }),
      toolOptions: {
        ...toolOptions,
        guard: {
          denyRead: grants.denyRead,
          denyWrite: grants.denyWrite,
          ignoreRead: grants.ignoreRead,
          ignoredIds,
          protection,
          deniedIds,
          recheckOpens: !bwrap,
        },
      },
    };
    if (bwrap === undefined) return startWorkerHost(config);
    const netProxy = setup.netProxy?.(grants);
    if (netProxy !== undefined) config.netProxy = netProxy;
    const { launch } = bwrap;
    const view = {
      bwrapPath: bwrap.path,
      grants,
      cwd: toolOptions.cwd,
      spillDir: toolOptions.spillDir,
      readOnlyPaths: bundle?.readOnlyPaths ?? launch.hostReadOnlyPaths,
      ...(env["PATH"] === undefined ? {} : { toolPath: env["PATH"] }),
      paths: sys.paths,
      protection,
      denied: setup.denied,
      deniedPrograms: setup.deniedPrograms,
      placeholders: bwrap.mountPoints.holds,
    };
    // A granted, denied or protected path that became a symlink (or another file) since the
    // start would mount what it leads to: no host then.
    const targets = viewMountTargets(view);
    const problem = bwrap.mountPoints.ensure(targets) ?? hostViewProblem(view);
    if (problem !== undefined) return failedHost(problem);
    // The tools show the placeholders this run holds as missing while they stay unused.
    const placeholders = targets.map((t) => t.path).filter((p) => bwrap.mountPoints.holds(p));
    if (placeholders.length > 0) {
      config.toolOptions.placeholders = placeholders;
      // git must not try to remove them (`git clean -fd`, `git stash -u` fail on mount points).
      const excludes = userExcludes !== undefined && readableIn(grants, userExcludes.path)
        ? userExcludes
        : undefined;
      config.toolOptions.env = gitIgnoring(setup, placeholders, excludes);
    }
    const tmp = privateTmp(view);
    if (tmp !== undefined) config.privateTmp = tmp;
    // Under a scoped --allow-run, bash must not run moat's own runtime either.
    const hidePaths = grants.explicit.run && grants.run !== true ? [launch.executable] : [];
    const prefix = nestedBashPrefix(bwrap.path, hidePaths, bashViewArgs(view));
    config.toolOptions.bashCommandPrefix = prefix;
    const hiddenDirs = bashHiddenDirs(view);
    const at = nestedBashViewEnd(prefix, hidePaths);
    if (hiddenDirs.length > 0) config.toolOptions.bashHidden = { dirs: hiddenDirs, at };
    const hostEnv: Record<string, string> = {
      ...env,
      DENO_NO_UPDATE_CHECK: "1",
      NO_COLOR: "1",
      ...(launch.denoDir === undefined ? {} : { DENO_DIR: launch.denoDir }),
    };
    const command = bundle?.command ?? launch.command;
    const args = buildHostArgs({ ...view, env: hostEnv, command });
    // bwrap names the sandbox's first process on this descriptor (a copy of stderr), so that a
    // host sent no call can be ended at once.
    const status = ["--json-status-fd", String(BWRAP_STATUS_FD)];
    return startProcessHost([bwrap.path, ...status, ...args], config, {
      processes: sys.processes,
      statusFd: BWRAP_STATUS_FD,
    });
  };
}

/**
 * The tools' environment plus a `core.excludesFile` (in the spill directory, rewritten at each
 * host start) listing `placeholders` after the user's own excludes; the environment unchanged
 * when the file cannot be written.
 */
function gitIgnoring(
  setup: HostSetup,
  placeholders: string[],
  user: UserGitExcludes | undefined,
): Record<string, string> {
  const { sys, toolOptions } = setup;
  const kinds = placeholders.map((path) => ({
    path,
    kind: sys.paths.lstat(path)?.kind === "file" ? "file" as const : "dir" as const,
  }));
  const file = join(toolOptions.spillDir, "moat-git-excludes");
  const text = placeholderExcludes(sys.paths, kinds, user);
  return sys.files.replaceFile(file, text)
    ? withGitExcludesFile(toolOptions.env, file)
    : toolOptions.env;
}

/**
 * Makes the placeholders the view needs at missing paths (before `hostViewProblem` looks at
 * them): undefined, or why the host must not start.
 */
function placeholdersProblem(
  mountPoints: MountPoints,
  view: Parameters<typeof viewMountTargets>[0],
): string | undefined {
  return mountPoints.ensure(viewMountTargets(view));
}

/**
 * A tool host that could not be started: gone from the start, so each call and query sent to it
 * fails with `reason` (the client says so), and the next one tries to start a host again.
 */
function failedHost(reason: string): HostConnection {
  return {
    onMessage: () => {},
    send() {},
    closed: Promise.resolve(reason),
    close: () => Promise.resolve(),
  };
}

/** A program to confine (an MCP server): its command line, environment and extra access. */
export interface ConfineSpec {
  command: string[];
  env: Record<string, string>;
  cwd?: string;
  /** More real paths it reads (its own code, its `permissions.read`), read-only in its view. */
  readOnly?: string[];
  /** More real paths it writes (its `permissions.write`); protected paths stay read-only. */
  readWrite?: string[];
  /**
   * Hosts it may reach besides the run's scoped --allow-net (HOST, HOST:PORT, as --allow-net
   * takes them); through a proxy of its own, which reports its decisions as `mcp:<name>`.
   */
  net?: string[];
  /** Who the program is, for its proxy's decisions (default: the command). */
  name?: string;
  /**
   * Every program on its PATH stays runnable (a user's hook command), not only a scoped
   * --allow-run's; --deny-run programs stay masked.
   */
  allPrograms?: boolean;
}

/**
 * The command line that runs `command` confined like a tool host of `access`: the same filesystem
 * view plus the program itself (found on the PATH of `env`, read-only), its own pid namespace, and
 * exactly `env`. The network: the machine's with a bare --allow-net (and no --deny-net); else its
 * own namespace, where the run's scoped --allow-net hosts plus `spec.net` (or, under --deny-net,
 * every host not denied) are reached through moat's proxy, by a forwarder that runs the program
 * (src/sandbox/net/mcp_forward.ts); no network when that leaves no host. Undefined without
 * bubblewrap; an error when a granted, denied or protected path changed since the start (as for a
 * tool host), a `net` entry is not a host, or the proxy cannot start.
 */
export function confinedCommand(
  setup: HostSetup,
  access: HostAccess,
  spec: ConfineSpec,
): { argv: string[] } | { error: string } | undefined {
  const { bwrap, toolOptions, sys } = setup;
  if (bwrap === undefined) return undefined;
  const network = programNetwork(access.grants, spec.net ?? []);
  if ("error" in network) return network;
  const found = findProgram(spec.command[0] ?? "", spec.env["PATH"], { paths: sys.paths });
  const real = found === undefined ? undefined : sys.paths.realPath(found);
  const program = real?.ok ? [real.path] : [];
  const view = {
    bwrapPath: bwrap.path,
    grants: spec.allPrograms === true ? { ...access.grants, run: true as const } : access.grants,
    cwd: spec.cwd ?? toolOptions.cwd,
    spillDir: toolOptions.spillDir,
    readOnlyPaths: [...bwrap.launch.readOnlyPaths, ...program, ...(spec.readOnly ?? [])],
    ...(toolOptions.env["PATH"] === undefined ? {} : { toolPath: toolOptions.env["PATH"] }),
    paths: sys.paths,
    protection: access.protection,
    denied: setup.denied,
    deniedPrograms: setup.deniedPrograms,
    placeholders: bwrap.mountPoints.holds,
  };
  const problem = placeholdersProblem(bwrap.mountPoints, view) ?? hostViewProblem(view);
  if (problem !== undefined) return { error: problem };
  const opened = network.proxied
    ? setup.mcpNet?.open(spec.name ?? spec.command.join(" "), network.hosts)
    : undefined;
  if (opened !== undefined && !opened.ok) {
    return {
      error: `its network proxy cannot start (${opened.message}); use a shorter temporary ` +
        "directory (TMPDIR)",
    };
  }
  // Without a proxy it runs as it is (no network but the bare --allow-net's); with one, the
  // forwarder runs it, and only the forwarder's runtime variables are not the server's.
  const { command, env } = opened === undefined ? spec : {
    command: [...bwrap.launch.command, MCP_FORWARD_OPTION, "--", ...spec.command],
    env: {
      ...(spec.env["PATH"] === undefined ? {} : { PATH: spec.env["PATH"] }),
      DENO_NO_UPDATE_CHECK: "1",
      NO_COLOR: "1",
      ...(bwrap.launch.denoDir === undefined ? {} : { DENO_DIR: bwrap.launch.denoDir }),
      [MCP_FORWARD_ENV]: JSON.stringify(
        { ...opened.endpoint, env: spec.env } satisfies McpForwardConfig,
      ),
    },
  };
  return { argv: [bwrap.path, ...buildHostArgs({ ...view, env, command })] };
}

/**
 * The hosts a confined program reaches and whether through a proxy: the machine's network under
 * a bare --allow-net without --deny-net, else the run's scoped hosts plus `extra`.
 */
function programNetwork(
  grants: HostAccess["grants"],
  extra: string[],
): { proxied: boolean; hosts: Scope } | { error: string } {
  for (const entry of extra) {
    const problem = entry.trim() === "" || entry.includes(",")
      ? "write one HOST or HOST:PORT per entry"
      : hostEntryProblem(entry);
    if (problem !== undefined) {
      return { error: `its net permission "${entry}" is refused: ${problem}` };
    }
  }
  if (grants.net === true) return { proxied: grants.denyNet.length > 0, hosts: true };
  const hosts = [...new Set([...grants.net, ...extra])];
  return { proxied: hosts.length > 0, hosts };
}
