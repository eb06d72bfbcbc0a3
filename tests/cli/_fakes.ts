/** Test doubles for the CLI's Terminal and Clock. */
import type { CliSignal, Terminal } from "../../src/cli/io.ts";
import type { CliDeps, SandboxHandle, SandboxRequest } from "../../src/cli/setup.ts";
import { emptyUsage, type ModelClient } from "../../src/model/types.ts";
import type { AnyTool } from "../../src/agent/tool.ts";

/** A Terminal that records output, replays scripted stdin and lets tests raise signals. */
export interface FakeTerminal extends Terminal {
  stdout: string;
  stderr: string;
  raise(signal: CliSignal): void;
  /** Feeds a typed line to readLines(). */
  typeLine(line: string): void;
  /** Ends readLines(). */
  endInput(): void;
}

/** Creates a fake terminal; `tty` sets which streams are terminals. */
export function createFakeTerminal(
  options: {
    tty?: { stdin?: boolean; stdout?: boolean; stderr?: boolean };
    /** Piped stdin text; null = nothing arrived in time; "never" = a read that never ends. */
    stdin?: string | null | "never";
    /** The terminal's width in columns (80 when not given). */
    columns?: number;
  } = {},
): FakeTerminal {
  const handlers = new Map<CliSignal, Set<() => void>>();
  const lines: string[] = [];
  let ended = false;
  let wake: () => void = () => {};
  const term: FakeTerminal = {
    stdout: "",
    stderr: "",
    isTty: (s) => options.tty?.[s] ?? false,
    writeStdout(t) {
      term.stdout += t;
    },
    writeStderr(t) {
      term.stderr += t;
    },
    readStdin: (read = {}) => {
      if (options.stdin === "never") return new Promise(() => {});
      if (options.stdin === null) return Promise.resolve(null);
      const bytes = new TextEncoder().encode(options.stdin ?? "");
      const max = read.maxBytes ?? Infinity;
      return Promise.resolve({
        text: new TextDecoder().decode(bytes.subarray(0, Math.min(bytes.length, max))),
        truncated: bytes.length > max,
      });
    },
    async *readLines() {
      for (;;) {
        const line = lines.shift();
        if (line !== undefined) {
          yield line;
          continue;
        }
        if (ended) return;
        await new Promise<void>((resolve) => wake = resolve);
      }
    },
    onSignal(signal, handler) {
      const set = handlers.get(signal) ?? new Set();
      set.add(handler);
      handlers.set(signal, set);
      return () => set.delete(handler);
    },
    columns: () => options.columns ?? 80,
    raise(signal) {
      for (const h of handlers.get(signal) ?? []) h();
    },
    typeLine(line) {
      lines.push(line);
      wake();
    },
    endInput() {
      ended = true;
      wake();
    },
  };
  return term;
}

export { createManualClock } from "../support/manual_clock.ts";

/** A model that answers every request with the text "ok". */
export function okModel(): ModelClient {
  return {
    stream: () =>
      Promise.resolve({
        role: "assistant" as const,
        blocks: [{ type: "text" as const, text: "ok" }],
        stopReason: "stop" as const,
        usage: emptyUsage(),
      }),
  };
}

/** What a runCli test's fake deps were asked for. */
export interface FakeCliCalls {
  sandboxes: SandboxRequest[];
  closed: number;
  models: number;
}

/**
 * CliDeps whose sandbox offers `tools` and whose model is `model` (creating a model without one
 * throws: a replay must never do it); `over` replaces single deps. Records what was used.
 */
export function createFakeCliDeps(
  options: { model?: ModelClient; tools?: AnyTool[]; over?: Partial<CliDeps> } = {},
): { deps: CliDeps; calls: FakeCliCalls } {
  const calls: FakeCliCalls = { sandboxes: [], closed: 0, models: 0 };
  const deps: CliDeps = {
    createModel: () => {
      calls.models++;
      if (options.model === undefined) throw new Error("this run must not create a model client");
      return options.model;
    },
    openSandbox: (request) => {
      calls.sandboxes.push(request);
      const sandbox: SandboxHandle = {
        tools: options.tools ?? [],
        onToolCall: () => Promise.resolve(undefined),
        mode: "worker",
        warnings: [],
        grants: request.grants,
        close: () => {
          calls.closed++;
          return Promise.resolve();
        },
      };
      return Promise.resolve({ ok: true, sandbox });
    },
    ...options.over,
  };
  return { deps, calls };
}
