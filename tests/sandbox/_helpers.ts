/** Shared helpers for sandbox tests: a workspace with an outside secret, and calls with/without policy. */
import assert from "node:assert/strict";
import { join } from "node:path";
import { type Grants } from "../../src/policy/grants.ts";
import {
  createSandbox,
  type Sandbox,
  type SandboxOptions,
  type SandboxSys,
} from "../../src/sandbox/mod.ts";
import { createDenoSandboxSys } from "../../src/sys/sandbox.ts";
import type { ToolOutput, ToolUpdate } from "../../src/agent/tool.ts";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.ts";

/** The text that must never come back from outside the grants. */
export const SECRET = "TOP-SECRET-7f3a9c";

/** The entry script that dispatches the tool host, like main.ts does. */
export const HOST_SCRIPT = new URL("./_host_entry.ts", import.meta.url).pathname;

/** True when bubblewrap is installed and usable here. */
export const BWRAP = (() => {
  try {
    return Deno.statSync("/usr/bin/bwrap").isFile;
  } catch {
    return false;
  }
})();

/** The modes a test runs in (bwrap only where available). */
export const MODES: Array<"bwrap" | "worker"> = BWRAP ? ["bwrap", "worker"] : ["worker"];

/** A root with `ws/` (the workspace) and `outside/` (a secret), plus symlinks pointing out. */
export interface Layout {
  root: TempWorkspace;
  ws: string;
  outside: string;
  spill: string;
}

/** Creates the layout. */
export async function createLayout(files: Record<string, string> = {}): Promise<Layout> {
  const root = await createTempWorkspace({
    "ws/a.txt": "hello\n",
    "outside/secret.txt": `${SECRET}\n`,
    "outside/deep/more.txt": `${SECRET} deep\n`,
    ...Object.fromEntries(Object.entries(files).map(([k, v]) => [`ws/${k}`, v])),
  });
  await Deno.mkdir(root.path("spill"));
  await Deno.symlink(root.path("outside/secret.txt"), root.path("ws/link-file"));
  await Deno.symlink(root.path("outside"), root.path("ws/link-dir"));
  return { root, ws: root.path("ws"), outside: root.path("outside"), spill: root.path("spill") };
}

/** Options a test may add: any of createSandbox's, and any effects replacing Deno's. */
export type ExtraOptions = Partial<Omit<SandboxOptions, "sys">> & { sys?: Partial<SandboxSys> };

/** Opens a sandbox over the layout's workspace in `mode` (with Deno's effects unless replaced). */
export function openSandbox(
  layout: Layout,
  mode: "bwrap" | "worker",
  grants: Grants,
  extra: ExtraOptions = {},
): Promise<Sandbox> {
  return createSandbox({
    cwd: layout.ws,
    grants,
    spillDir: layout.spill,
    env: { PATH: "/usr/local/bin:/usr/bin:/bin", HOME: "/nonexistent-home", LANG: "C.UTF-8" },
    secretEnvNames: ["OPENAI_API_KEY"],
    sandbox: mode === "bwrap" ? "require" : "off",
    hostScript: HOST_SCRIPT,
    ...extra,
    sys: { ...createDenoSandboxSys(), ...extra.sys },
  });
}

/** Outcome of one call: blocked by the policy, or the tool's output. */
export type CallOutcome = { blocked: string } | { output: ToolOutput };

let callCounter = 0;

/**
 * Calls tool `name` like the agent core does: policy first (unless `policy: false`, i.e. the hook
 * replaced by allow-all), then execute.
 */
export async function callTool(
  sb: Sandbox,
  name: string,
  args: Record<string, unknown>,
  options: { policy?: boolean; signal?: AbortSignal; onUpdate?: (update: ToolUpdate) => void } = {},
): Promise<CallOutcome> {
  const tool = sb.tools.find((t) => t.name === name);
  if (tool === undefined) throw new Error(`no tool ${name}`);
  const signal = options.signal ?? new AbortController().signal;
  const toolCallId = `t${++callCounter}`;
  if (options.policy !== false) {
    const decision = await sb.onToolCall({ toolCallId, name, args, tool, signal });
    if (decision?.block) return { blocked: decision.reason };
  }
  const onUpdate = options.onUpdate ?? (() => {});
  const output = await tool.execute(args, signal, { toolCallId, onUpdate });
  return { output };
}

/** Text of an outcome (blocked reason or output + content). */
export function textOf(outcome: CallOutcome): string {
  if ("blocked" in outcome) return `BLOCKED: ${outcome.blocked}`;
  const content = outcome.output.content;
  const blocks = Array.isArray(content)
    ? content.map((b) => b.type === "text" ? b.text : "").join("\n")
    : content ?? "";
  return `${outcome.output.output}\n${blocks}`;
}

/** Every file under `dir` (not following symlinks) with its content, for before/after compares. */
export async function snapshot(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (d: string) => {
    for await (const e of Deno.readDir(d)) {
      const p = join(d, e.name);
      if (e.isDirectory) await walk(p);
      else if (e.isSymlink) out[p] = `-> ${await Deno.readLink(p)}`;
      else out[p] = await Deno.readTextFile(p);
    }
  };
  await walk(dir);
  return out;
}

/** Host pids whose command line contains `needle` (e.g. a unique `sleep 300.4711`). */
export function processesWith(needle: string): number[] {
  const pids: number[] = [];
  for (const e of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(e.name)) continue;
    try {
      const cmd = Deno.readTextFileSync(`/proc/${e.name}/cmdline`).replaceAll("\0", " ");
      if (cmd.includes(needle)) pids.push(Number(e.name));
    } catch { /* exited */ }
  }
  return pids;
}

/** Waits (≤ `ms`, a generous bound) until no process matches; returns the survivors. */
export async function waitGone(needle: string, ms = 5000): Promise<number[]> {
  const deadline = Date.now() + ms;
  for (;;) {
    const left = processesWith(needle);
    if (left.length === 0 || Date.now() > deadline) return left;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** git's `-c` options of a fixed committer, for git in and outside the sandbox. */
export const GIT_IDENTITY = ["-c", "user.name=t", "-c", "user.email=t@t"];

/** The reason a call was blocked (fails the test when it was not). */
export function blockedReason(outcome: CallOutcome): string {
  assert.ok("blocked" in outcome, textOf(outcome));
  return outcome.blocked;
}

/**
 * Runs the user's own git outside the sandbox (a fixed identity, HOME = `cwd`, no system
 * config); its stdout, or throws with its stderr when it fails.
 */
export async function hostGit(cwd: string, ...args: string[]): Promise<string> {
  const out = await new Deno.Command("git", {
    args: [...GIT_IDENTITY, "-c", "init.defaultBranch=main", ...args],
    cwd,
    env: { HOME: cwd, GIT_CONFIG_NOSYSTEM: "1", PATH: "/usr/local/bin:/usr/bin:/bin" },
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!out.success) {
    throw new Error(`git ${args.join(" ")} failed: ${new TextDecoder().decode(out.stderr)}`);
  }
  return new TextDecoder().decode(out.stdout);
}
