/**
 * When a run's tool host comes up, seen from outside (no instrumentation in moat): the first
 * process below the run that is a tool host command (the bubblewrap launch: "host spawned") and
 * the first Deno process running `__tool-host` (inside bubblewrap: "host runtime started").
 * Walks /proc/<pid>/task/<tid>/children from the run's pid every few milliseconds.
 */
import { TOOL_HOST_COMMAND } from "../../src/sandbox/mod.ts";
import { procChildren } from "../../src/sys/_proc_stat.ts";
import { cmdline, procInfo } from "./proc.ts";

/** Milliseconds after `startedAt` at which each phase was first seen (undefined: never). */
export interface HostPhases {
  hostSpawned?: number;
  hostRuntime?: number;
}

/** Watches the tree below `root` until stopped; `startedAt` is performance.now() at spawn. */
export class HostPhaseWatcher {
  readonly phases: HostPhases = {};
  readonly #root: number;
  readonly #startedAt: number;
  #timer: ReturnType<typeof setInterval> | undefined;

  constructor(root: number, startedAt: number, intervalMs = 3) {
    this.#root = root;
    this.#startedAt = startedAt;
    this.#timer = setInterval(() => this.#sample(), intervalMs);
  }

  #sample(): void {
    if (this.phases.hostRuntime !== undefined) return this.stop();
    const now = performance.now() - this.#startedAt;
    const stack = [this.#root];
    while (stack.length > 0) {
      const pid = stack.pop() as number;
      for (const child of procChildren(pid)) {
        stack.push(child);
        const line = cmdline(child);
        if (line === null || !line.split(" ").includes(TOOL_HOST_COMMAND)) continue;
        // A process's command line changes once it execs: look again until it is Deno.
        this.phases.hostSpawned ??= now;
        if (procInfo(child)?.comm === "deno") this.phases.hostRuntime ??= now;
      }
    }
  }

  /** Stops watching. */
  stop(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
  }
}
