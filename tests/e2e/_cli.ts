/**
 * Spawns the real moat CLI exactly as `deno task start` runs it: the runtime flags are read from
 * the `start` task in deno.json (never duplicated here), plus `--config` so the project's import
 * map applies while the process runs in a temp workspace.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { FakeOpenAIServer } from "../support/fake_openai.ts";
import { readStartTask } from "../../scripts/compile.ts";

const root = new URL("../..", import.meta.url).pathname;

/** Absolute path of the project root. */
export const PROJECT_ROOT: string = root.replace(/\/$/, "");

/** The argv (after the deno executable) that runs moat like `deno task start -- …args`. */
export async function startArgv(args: readonly string[]): Promise<string[]> {
  const run = await readStartTask(join(PROJECT_ROOT, "deno.json"));
  return [
    "run",
    ...run.flags,
    "--config",
    join(PROJECT_ROOT, "deno.json"),
    join(PROJECT_ROOT, run.entry),
    ...args,
  ];
}

/** A minimal environment for a CLI run: its own HOME/XDG dirs, the fake server, no real keys. */
export function cliEnv(home: string, extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {
    HOME: home,
    XDG_STATE_HOME: join(home, "state"),
    XDG_CONFIG_HOME: join(home, "config"),
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    NO_COLOR: "1",
  };
  // The child gets its own HOME, so point it at this Deno's module cache (and certificates).
  env.DENO_DIR = denoDir();
  for (const name of ["TMPDIR", "LANG", "DENO_CERT", "SSL_CERT_FILE", "NODE_EXTRA_CA_CERTS"]) {
    const value = Deno.env.get(name);
    if (value !== undefined) env[name] = value;
  }
  return { ...env, ...extra };
}

/** This Deno's cache directory (DENO_DIR, else the platform default under the user's HOME). */
export function denoDir(): string {
  const given = Deno.env.get("DENO_DIR");
  if (given !== undefined && given !== "") return given;
  const cache = Deno.env.get("XDG_CACHE_HOME") ?? join(Deno.env.get("HOME") ?? "/root", ".cache");
  return join(cache, "deno");
}

/**
 * The MCP fixture server (tests/support/mcp_fixture_server.ts) as a user configures it in
 * `mcpServers`, with fixture arguments (`--resources`, `--gate=…`); its Deno finds moat's module
 * cache. `extra` adds or replaces fields of the entry.
 */
export function fixtureServerEntry(
  fixtureArgs: string[] = [],
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    command: Deno.execPath(),
    args: [
      "run",
      "--allow-all",
      "--quiet",
      `--config=${PROJECT_ROOT}/deno.json`,
      join(PROJECT_ROOT, "tests", "support", "mcp_fixture_server.ts"),
      ...fixtureArgs,
    ],
    env: { DENO_DIR: denoDir(), NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1" },
    startupTimeoutSec: 60,
    ...extra,
  };
}

/** What a finished CLI run printed. */
export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Options of runMoat. */
export interface RunMoatOptions {
  cwd: string;
  env: Record<string, string>;
  /** Text piped to stdin (stdin is /dev/null otherwise). */
  stdin?: string;
}

/** Runs moat to completion and collects its output. */
export async function runMoat(
  args: readonly string[],
  options: RunMoatOptions,
): Promise<CliResult> {
  const child = await spawnMoat(args, { ...options, openStdin: options.stdin !== undefined });
  if (options.stdin !== undefined) {
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode(options.stdin));
    await writer.close();
  }
  const out = await child.output();
  const decoder = new TextDecoder();
  return { code: out.code, stdout: decoder.decode(out.stdout), stderr: decoder.decode(out.stderr) };
}

/** The text of the tool result the fake server received for call `id` (throws when none did). */
export function toolResultOf(server: FakeOpenAIServer, id: string): string {
  for (const request of server.chatRequests) {
    const m = request.body?.messages.find((m) => m.role === "tool" && m.tool_call_id === id);
    if (m !== undefined) return String(m.content);
  }
  throw new Error(`no result for ${id}`);
}

/** Parses every stdout line as JSON (throws naming the first line that is not). */
export function jsonLines(stdout: string): Array<Record<string, unknown>> {
  return stdout.split("\n").filter((l) => l !== "").map((line, i) => {
    try {
      return JSON.parse(line) as Record<string, unknown>;
    } catch {
      throw new Error(`stdout line ${i + 1} is not JSON: ${line}`);
    }
  });
}

/**
 * Asserts that `stdout` (`--output jsonl`) has exactly one denied `permission` event: the grants'
 * refusal of net access to `target` during the call, naming `hint` as the flag to add.
 */
export function assertOneNetRefusal(
  stdout: string,
  expected: { toolCallId: string; toolName: string; target: string; hint: string },
): void {
  const refusals = jsonLines(stdout).filter((e) =>
    e.type === "permission" && e.outcome === "denied"
  );
  assert.equal(refusals.length, 1, stdout);
  const { version: _v, time: _t, ...refusal } = refusals[0] as Record<string, unknown>;
  const { toolCallId, toolName, target, hint } = expected;
  assert.deepEqual(refusal, {
    type: "permission",
    toolCallId,
    toolName,
    access: "net",
    target,
    outcome: "denied",
    by: "grants",
    during: true,
    reason: `net access to "${target}" is not granted (add ${hint})`,
    hint,
  });
}

/** PIDs of processes whose command line contains `needle` (read from /proc). */
export async function processesMatching(needle: string): Promise<number[]> {
  const pids: number[] = [];
  for await (const entry of Deno.readDir("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    try {
      const cmdline = (await Deno.readTextFile(`/proc/${entry.name}/cmdline`)).replace(/\0/g, " ");
      if (cmdline.includes(needle)) pids.push(Number(entry.name));
    } catch {
      // The process ended while we looked.
    }
  }
  return pids;
}

/** Polls `check` every 50 ms until it returns true; throws after `timeoutMs`. */
export async function waitUntil(
  what: string,
  check: () => boolean | Promise<boolean>,
  timeoutMs = 30_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Spawns moat without waiting (for signal tests); stdout/stderr are piped. With `openStdin`,
 * stdin is a pipe nobody writes to (close `child.stdin` when done).
 */
export async function spawnMoat(
  args: readonly string[],
  options: RunMoatOptions & { openStdin?: boolean },
): Promise<Deno.ChildProcess> {
  return new Deno.Command(Deno.execPath(), {
    args: await startArgv(args),
    cwd: options.cwd,
    env: options.env,
    clearEnv: true,
    stdin: options.openStdin ? "piped" : "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
}

/** The session files moat wrote under `stateDir` (XDG_STATE_HOME). */
export async function sessionFiles(stateDir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (dir: string) => {
    try {
      for await (const entry of Deno.readDir(dir)) {
        const path = join(dir, entry.name);
        if (entry.isDirectory) await walk(path);
        else if (entry.name.endsWith(".jsonl")) out.push(path);
      }
    } catch (e) {
      if (!(e instanceof Deno.errors.NotFound)) throw e;
    }
  };
  await walk(stateDir);
  return out.sort();
}

/**
 * Whether a thread of process `pid` is blocked reading its standard input: a `read` of fd 0's
 * pipe in /proc/PID/task/TID/syscall. (A handler for SIGTERM is no sign of readiness: Deno installs its
 * own at start, and exits 143 when no listener of the program is there yet.)
 */
export async function readsStdin(pid: number): Promise<boolean> {
  const read = Deno.build.arch === "aarch64" ? "63" : "0";
  const pipeOf = (fd: number) => Deno.readLink(`/proc/${pid}/fd/${fd}`).catch(() => undefined);
  const syscallOf = (tid: string) =>
    Deno.readTextFile(`/proc/${pid}/task/${tid}/syscall`).catch(() => "");
  try {
    const stdin = await pipeOf(0);
    for await (const task of Deno.readDir(`/proc/${pid}/task`)) {
      const [nr, fd] = (await syscallOf(task.name)).trim().split(" ");
      // Deno reads a duplicate of fd 0: the same pipe.
      if (nr === read && fd !== undefined && await pipeOf(Number(fd)) === stdin) return true;
    }
  } catch {
    // Gone.
  }
  return false;
}
