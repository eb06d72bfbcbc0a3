/**
 * The real HookCommandRunner: each hook command runs as `bash -c COMMAND` inside the same
 * bubblewrap view as the bash tool (the sandbox's `confine`: the grants' filesystem view, its own
 * pid namespace, no network beyond the run's grants), with the tools' allow-listed environment
 * (never the provider key), its stdin written then closed, its stdout and stderr capped, and its
 * timeout (the whole process group, and with it the pid namespace, is killed). A hook of the
 * user's own config marked `"sandbox": false` runs unconfined with the same environment; without
 * bubblewrap a confined hook does not run at all.
 */
import type { Clock } from "../agent/types.ts";
import type { ConfineSpec } from "../sandbox/mod.ts";
import type { HookProcess, HookProcessCommand, HookProcessOps } from "./process_ops.ts";
import type { HookCommandRunner, HookCommandSpec, HookRunResult } from "./runner.ts";

/** Bytes of stdout and of stderr kept of one hook run; the rest is read and dropped. */
export const HOOK_OUTPUT_CAP = 64 * 1024;

/** The timeout of a spec without a usable one, in seconds. */
const DEFAULT_TIMEOUT_SEC = 60;

/** How long the output of a killed hook is still read (until every process holding it is gone). */
const KILL_GRACE_MS = 2000;

/** What `createHookCommandRunner` needs. */
export interface HookRunnerOptions {
  /** The sandbox's `confine`: the bwrap command line of a program; undefined without bubblewrap. */
  confine: (spec: ConfineSpec) => { argv: string[] } | { error: string } | undefined;
  /** The tools' environment (the allow-list; never the provider key). */
  toolEnv: () => Record<string, string>;
  process: HookProcessOps;
  /** Default: Date.now and the global timers. */
  clock?: Clock;
  /** Default HOOK_OUTPUT_CAP. */
  outputCap?: number;
}

/** Creates the runner of hook commands, confined unless a user's own hook says otherwise. */
export function createHookCommandRunner(options: HookRunnerOptions): HookCommandRunner {
  return { run: (spec, stdin, runOptions) => runHook(options, spec, stdin, runOptions) };
}

const globalClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as number),
};

async function runHook(
  options: HookRunnerOptions,
  spec: HookCommandSpec,
  stdin: string,
  { cwd, signal }: { cwd: string; signal?: AbortSignal },
): Promise<HookRunResult> {
  const clock = options.clock ?? globalClock;
  const started = clock.now();
  const notRun = (error: string): HookRunResult => ({
    exitCode: null,
    stdout: "",
    stderr: "",
    timedOut: false,
    error,
    durationMs: clock.now() - started,
  });
  if (signal?.aborted) return notRun("The hook was not run: the run was stopped");
  const command = hookCommand(options, spec, cwd);
  if ("error" in command) return notRun(command.error);
  const spawned = options.process.spawn(command);
  if (!spawned.ok) return notRun(`The hook could not start: ${spawned.message}`);
  const ended = await supervise(spawned.child, stdin, {
    timeoutMs: (spec.timeoutSec > 0 ? spec.timeoutSec : DEFAULT_TIMEOUT_SEC) * 1000,
    cap: options.outputCap ?? HOOK_OUTPUT_CAP,
    clock,
    ...(signal === undefined ? {} : { signal }),
  });
  return { ...ended, durationMs: clock.now() - started };
}

/**
 * What to spawn: bwrap's command line from `confine`, or (a user's hook marked `"sandbox":
 * false`; never a project's) bash itself; or why the hook cannot run.
 */
function hookCommand(
  options: HookRunnerOptions,
  spec: HookCommandSpec,
  cwd: string,
): HookProcessCommand | { error: string } {
  const env = options.toolEnv();
  const bash = ["-c", spec.command];
  if (!spec.sandbox && spec.source === "user") return { command: "bash", args: bash, env, cwd };
  // A hook is the user's own command: the programs it runs are not scoped by --allow-run.
  const confined = options.confine({
    command: ["bash", ...bash],
    env,
    cwd,
    name: "hook",
    allPrograms: true,
  });
  if (confined === undefined) {
    return {
      error: "The hook was not run: hooks run inside the OS sandbox (bubblewrap), which this run " +
        "does not have; install bubblewrap" + (spec.source === "user"
          ? ', or set "sandbox": false on this hook in your own config to run it unconfined'
          : ""),
    };
  }
  if ("error" in confined) return { error: `The hook was not run: ${confined.error}` };
  const [program, ...args] = confined.argv;
  // bubblewrap sets the hook's environment itself (--clearenv, --setenv).
  return { command: program ?? "", args, env: { PATH: env["PATH"] ?? "/usr/bin:/bin" } };
}

/**
 * Feeds `stdin`, collects the capped output and waits for the exit; kills the group at the
 * timeout or abort, and once the process exits (what it left running goes with it).
 */
async function supervise(
  child: HookProcess,
  stdin: string,
  options: { timeoutMs: number; cap: number; clock: Clock; signal?: AbortSignal },
): Promise<Omit<HookRunResult, "durationMs">> {
  const stdout = collect(child.stdout, options.cap);
  const stderr = collect(child.stderr, options.cap);
  void writeAndClose(child.stdin, stdin);
  let exited = false;
  let killed: "timeout" | "abort" | undefined;
  let grace: unknown;
  const stop = (why: "timeout" | "abort") => {
    if (!exited) killed ??= why;
    void child.kill();
    // Its output ends once every process holding the pipes is gone; one that left the group
    // (setsid, unconfined) could hold them for ever, so they are not read past a grace period.
    grace ??= options.clock.setTimeout(() => {
      stdout.cancel();
      stderr.cancel();
    }, KILL_GRACE_MS);
  };
  const timer = options.clock.setTimeout(() => stop("timeout"), options.timeoutMs);
  const onAbort = () => stop("abort");
  options.signal?.addEventListener("abort", onAbort, { once: true });
  try {
    const status = await child.status;
    exited = true;
    // Its background jobs end with it (inside bubblewrap, its pid namespace does).
    await child.kill();
    const [out, err] = await Promise.all([stdout.text, stderr.text]);
    return {
      exitCode: killed === undefined ? status.code : null,
      stdout: out,
      stderr: err,
      timedOut: killed === "timeout",
    };
  } finally {
    options.clock.clearTimeout(timer);
    if (grace !== undefined) options.clock.clearTimeout(grace);
    options.signal?.removeEventListener("abort", onAbort);
  }
}

async function writeAndClose(stream: WritableStream<Uint8Array>, text: string): Promise<void> {
  const writer = stream.getWriter();
  try {
    await writer.write(new TextEncoder().encode(text));
    await writer.close();
  } catch {
    // The hook exited (or was killed) without reading all of its input.
  }
}

/** Reads `stream` to its end, keeping the first `cap` bytes. */
function collect(
  stream: ReadableStream<Uint8Array>,
  cap: number,
): { text: Promise<string>; cancel(): void } {
  const reader = stream.getReader();
  const kept: Uint8Array[] = [];
  let size = 0;
  let cut = false;
  const text = (async () => {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        if (size < cap) kept.push(value.subarray(0, cap - size));
        if (size + value.length > cap) cut = true;
        size = Math.min(cap, size + value.length);
      }
    } catch {
      // Cancelled, or the pipe failed: what was read so far is the output.
    }
    const bytes = new Uint8Array(size);
    let at = 0;
    for (const chunk of kept) {
      bytes.set(chunk, at);
      at += chunk.length;
    }
    const decoded = new TextDecoder().decode(bytes);
    return cut ? `${decoded}\n[moat: output cut after ${cap} bytes]` : decoded;
  })();
  return {
    text,
    cancel() {
      reader.cancel().catch(() => {});
    },
  };
}
