/** Shared fixtures for agent tests: a manual clock, gates, tiny in-test tools, event capture. */
import { Type } from "@sinclair/typebox";
import type { AgentEvent } from "../../src/agent/events.ts";
import type { Clock } from "../../src/agent/types.ts";
import type { UserMessage } from "../../src/model/types.ts";
import type { AnyTool, Tool, ToolOutput } from "../../src/agent/tool.ts";
import { codeText } from "./compaction/_fixtures.ts";

/** A clock whose time only moves when the test says so. */
export class ManualClock implements Clock {
  #now = 1_000;
  #nextId = 1;
  readonly #timers = new Map<number, { at: number; fn: () => void }>();
  #onTimer: Array<() => void> = [];
  /** Number of timers ever created. */
  created = 0;

  now(): number {
    return this.#now;
  }
  setTimeout(fn: () => void, ms: number): unknown {
    const id = this.#nextId++;
    this.created++;
    this.#timers.set(id, { at: this.#now + ms, fn });
    for (const wake of this.#onTimer.splice(0)) wake();
    return id;
  }
  clearTimeout(handle: unknown): void {
    this.#timers.delete(handle as number);
  }
  /** Timers scheduled and not yet fired or cleared. */
  get pending(): number {
    return this.#timers.size;
  }
  /** Moves time forward, firing due timers in deadline order. */
  advance(ms: number): void {
    const target = this.#now + ms;
    while (true) {
      const due = [...this.#timers.entries()].filter(([, t]) => t.at <= target)
        .sort((a, b) => a[1].at - b[1].at)[0];
      if (due === undefined) break;
      this.#timers.delete(due[0]);
      this.#now = due[1].at;
      due[1].fn();
    }
    this.#now = target;
  }
  /** Resolves once at least one timer is pending. */
  waitForTimer(): Promise<void> {
    if (this.#timers.size > 0) return Promise.resolve();
    return new Promise((resolve) => this.#onTimer.push(resolve));
  }
}

/** A user message. */
export function user(text: string): UserMessage {
  return { role: "user", content: text };
}

/** Collects events; `of(type)` filters them. */
export function eventLog(): {
  events: AgentEvent[];
  onEvent: (e: AgentEvent) => void;
  of<T extends AgentEvent["type"]>(type: T): Array<Extract<AgentEvent, { type: T }>>;
  /** "type:toolCallId" for tool events, "type" otherwise. */
  trace(): string[];
} {
  const events: AgentEvent[] = [];
  return {
    events,
    onEvent: (e) => events.push(e),
    of: <T extends AgentEvent["type"]>(type: T) =>
      events.filter((e): e is Extract<AgentEvent, { type: T }> => e.type === type),
    trace: () => events.map((e) => "toolCallId" in e ? `${e.type}:${e.toolCallId}` : e.type),
  };
}

const ReadParams = Type.Object({
  path: Type.String({ description: "File to read" }),
});

/** A tiny in-memory read tool (the real one lives in src/tools and is not used here). */
export function memoryReadTool(files: Record<string, string>): Tool<typeof ReadParams> {
  return {
    name: "read",
    description: "Reads a file.",
    parameters: ReadParams,
    kind: "read",
    concurrencySafe: true,
    execute(args): Promise<ToolOutput> {
      const text = files[args.path];
      if (text === undefined) {
        return Promise.resolve({ output: `File "${args.path}" not found.`, isError: true });
      }
      return Promise.resolve({ output: text });
    },
  };
}

const AnyParams = Type.Object({
  id: Type.Optional(Type.String({ description: "Label used by the test" })),
  path: Type.Optional(Type.String({ description: "Path a write call mutates" })),
});

/** A test tool whose execution the test controls. */
export function controlledTool(
  name: string,
  options: {
    concurrencySafe?: boolean;
    kind?: "read" | "write" | "execute";
    run: (args: { id?: string; path?: string }, signal: AbortSignal) => Promise<ToolOutput>;
    withLocations?: boolean;
    maxResultChars?: number;
  },
): AnyTool {
  const tool: Tool<typeof AnyParams> = {
    name,
    description: `Test tool ${name}.`,
    parameters: AnyParams,
    kind: options.kind ?? "read",
    execute: (args, signal) => options.run(args, signal),
  };
  if (options.concurrencySafe !== undefined) tool.concurrencySafe = options.concurrencySafe;
  if (options.maxResultChars !== undefined) tool.maxResultChars = options.maxResultChars;
  if (options.withLocations) {
    tool.locations = (args) =>
      args.path === undefined ? [] : [{ access: "write", path: args.path }];
  }
  return tool;
}

/** Yields to the event loop `times` times so pending promise chains can run. */
export async function flush(times = 5): Promise<void> {
  for (let i = 0; i < times; i++) await new Promise<void>((r) => setTimeout(r, 0));
}

/** Flushes until `predicate` holds; throws with `what` when it never does. */
export async function until(predicate: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (predicate()) return;
    await new Promise<void>((r) => setTimeout(r, 0));
  }
  throw new Error(`Timed out waiting for: ${what}`);
}

/** A set of gates keyed by id: `open(id)` releases the call waiting on that id. */
export function gates(): { wait(id: string): Promise<void>; open(id: string): void } {
  const map = new Map<string, PromiseWithResolvers<void>>();
  const get = (id: string) => {
    let d = map.get(id);
    if (d === undefined) {
      d = Promise.withResolvers<void>();
      map.set(id, d);
    }
    return d;
  };
  return { wait: (id) => get(id).promise, open: (id) => get(id).resolve() };
}

const DumpParams = Type.Object({ part: Type.Integer({ description: "Part number" }) });

/**
 * A tiny tool for the compaction tests: part N of a big file is `chars` characters of code;
 * `prunedHint` (optional) says how to get a pruned part back.
 */
export function dumpTool(
  chars: number,
  options: { prunedHint?: boolean } = {},
): Tool<typeof DumpParams> {
  return {
    name: "dump",
    description: "Prints one part of a big file.",
    parameters: DumpParams,
    kind: "read",
    concurrencySafe: true,
    execute: (args) => Promise.resolve({ output: codeText(chars, `p${args.part}`) }),
    ...(options.prunedHint === true
      ? { prunedHint: (args: { part: number }) => `Call dump with part ${args.part} again for it.` }
      : {}),
  };
}
