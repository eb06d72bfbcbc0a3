/**
 * The Deno implementation of ProcessOps: every child leads its own process group (`detached:
 * true`, i.e. a new session), gets exactly the environment it is given (`clearEnv`), reads stdin
 * from null, and is killed group-wide with SIGKILL. Also the registry of live process groups.
 */
import type {
  ChildProcessHandle,
  KillableGroup,
  ProcessExit,
  ProcessOps,
  ProcessRegistry,
  SpawnOptions,
  SpawnResult,
  SpillFile,
} from "../tools/ops.ts";
import { dirname } from "node:path";
import { toFsError } from "./fs_common.ts";
import { writeAll } from "./fs_write.ts";

/** PATH used to find and run programs when the given environment has none. */
export const DEFAULT_PATH = "/usr/bin:/bin";

/** The environment a child really gets: the given one, with PATH defaulted. */
export function childEnv(env: Record<string, string>): Record<string, string> {
  return env.PATH === undefined ? { ...env, PATH: DEFAULT_PATH } : { ...env };
}

/**
 * Creates Deno-backed process operations. Programs are looked up in the PATH of the environment
 * passed to `spawn` (Deno resolves with the child's env), `/usr/bin:/bin` when it has none.
 */
export function createDenoProcessOps(): ProcessOps {
  return {
    spawn(program, args, options) {
      return spawnGroup(program, args, options);
    },
    async createSpillFile(path) {
      let file: Deno.FsFile;
      try {
        await Deno.mkdir(dirname(path), { recursive: true });
        file = await Deno.open(path, { write: true, createNew: true, mode: 0o600 });
      } catch (e) {
        throw toFsError(e, path);
      }
      return denoSpillFile(path, file);
    },
  };
}

function spawnGroup(program: string, args: string[], options: SpawnOptions): SpawnResult {
  const env = childEnv(options.env);
  let child: Deno.ChildProcess;
  try {
    child = new Deno.Command(program, {
      args,
      cwd: options.cwd,
      env,
      clearEnv: true,
      // A new session: the child leads its own process group, so the group can be killed whole.
      detached: true,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) {
      return { ok: false, reason: "not_found", message: (e as Error).message };
    }
    if (e instanceof Deno.errors.NotCapable || e instanceof Deno.errors.PermissionDenied) {
      return { ok: false, reason: "permission_denied", message: (e as Error).message };
    }
    if (e instanceof Error) return { ok: false, reason: "failed", message: e.message };
    throw e;
  }
  const pid = child.pid;
  let exited = false;
  const status: Promise<ProcessExit> = child.status.then(
    (s) => {
      exited = true;
      return s.signal !== null ? { code: null, signal: s.signal } : { code: s.code, signal: null };
    },
    () => {
      exited = true;
      return { code: null, signal: null };
    },
  );
  const handle: ChildProcessHandle = {
    pid,
    stdout: child.stdout,
    stderr: child.stderr,
    status,
    killGroup: () => killGroup(pid, { child, hasExited: () => exited, env }),
  };
  return { ok: true, child: handle };
}

/**
 * SIGKILLs process group `pgid`. `Deno.kill` on a group needs unscoped run permission; inside a
 * Worker with a scoped `--allow-run` it is refused, so the leader is killed through its handle and
 * the group through bash's `kill` builtin (bash is granted whenever the bash tool can run).
 */
async function killGroup(
  pgid: number,
  options: { child: Deno.ChildProcess; hasExited: () => boolean; env: Record<string, string> },
): Promise<void> {
  try {
    Deno.kill(-pgid, "SIGKILL");
    return;
  } catch (e) {
    // ESRCH: the group is already gone.
    if (e instanceof Deno.errors.NotFound) return;
    if (!(e instanceof Deno.errors.NotCapable || e instanceof Deno.errors.PermissionDenied)) {
      return;
    }
  }
  if (!options.hasExited()) {
    try {
      options.child.kill("SIGKILL");
    } catch (e) {
      // TypeError: the child exited in the meantime.
      if (!(e instanceof TypeError)) return;
    }
  }
  await killGroupWithBash(pgid, options.env);
}

async function killGroupWithBash(pgid: number, env: Record<string, string>): Promise<void> {
  try {
    const helper = new Deno.Command("bash", {
      args: ["-c", `kill -KILL -- -${pgid} 2>/dev/null; exit 0`],
      env,
      clearEnv: true,
      stdin: "null",
      stdout: "null",
      stderr: "null",
    }).spawn();
    await helper.status;
  } catch (e) {
    // Nothing more can be done without a way to signal the group; the leader is already dead.
    if (!(e instanceof Error)) throw e;
  }
}

function denoSpillFile(path: string, file: Deno.FsFile): SpillFile {
  let closed = false;
  return {
    path,
    async write(bytes) {
      try {
        await writeAll(file, bytes);
      } catch (e) {
        throw toFsError(e, path);
      }
    },
    close() {
      if (closed) return Promise.resolve();
      closed = true;
      try {
        file.close();
      } catch (e) {
        return Promise.reject(toFsError(e, path));
      }
      return Promise.resolve();
    },
  };
}

/** Creates a registry of live process groups; `killAll()` kills every group still tracked. */
export function createProcessRegistry(): ProcessRegistry {
  const live = new Set<KillableGroup>();
  return {
    add(group) {
      live.add(group);
      return () => {
        live.delete(group);
      };
    },
    pids() {
      return [...live].map((g) => g.pid);
    },
    async killAll() {
      const groups = [...live];
      live.clear();
      // Each killGroup sends its signal synchronously before returning its promise.
      await Promise.allSettled(groups.map((g) => g.killGroup()));
    },
  };
}
