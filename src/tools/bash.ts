/**
 * The bash tool: `bash -c command` in its own process group, stdout and stderr collected
 * separately with bounded memory (tail in memory, first 10 MiB spilled to files), finished when
 * the command has exited and its output has ended or gone quiet, and the whole group killed at
 * the end, on timeout and on abort.
 */
import { type Static, Type } from "@sinclair/typebox";
import { join } from "node:path";
import type { Tool, ToolOutput } from "./types.ts";
import type { ChildProcessHandle, ProcessExit, ProcessOps, ProcessRegistry } from "./ops.ts";
import { DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, formatSize } from "./_truncate.ts";
import {
  asTerminalShows,
  fitTails,
  type FittedTail,
  looksLikeBinaryText,
  StreamCollector,
} from "./_process.ts";
import { createDenoProcessOps } from "../sys/process.ts";

/** Arguments of the bash tool. */
export const BashParams = Type.Object({
  command: Type.String({ description: "The bash command line to run (passed to `bash -c`)." }),
  timeout: Type.Optional(
    Type.Number({
      exclusiveMinimum: 0,
      description:
        "Timeout in seconds (default 120, capped by the configured maximum, 600 by default). " +
        "On timeout the command and everything it started are killed.",
    }),
  ),
});

/** Validated bash arguments. */
export type BashArgs = Static<typeof BashParams>;

/** Options for `createBashTool`. All but `process` and `processRegistry` are serialisable. */
export interface BashToolOptions {
  /** Working directory of every command. */
  cwd: string;
  /** Per-run directory for spilled output files (created when first needed). */
  spillDir: string;
  /**
   * The complete environment of the command; nothing is inherited and the tool never reads
   * Deno.env. Default: empty. The caller should include PATH; without one, `/usr/bin:/bin` is used.
   */
  env?: Record<string, string>;
  /** Default timeout in seconds (120). */
  timeoutSec?: number;
  /** Largest timeout the model may ask for, in seconds (600). */
  maxTimeoutSec?: number;
  /** Process operations (default: Deno's). */
  process?: ProcessOps;
  /** Argv prefix bash runs under, e.g. a nested `bwrap --unshare-pid --die-with-parent …`. */
  commandPrefix?: string[];
  /** Registry of live process groups, so the host can kill them all on exit. */
  processRegistry?: ProcessRegistry;
  /** Time of the live updates' throttle (default: the real clock); tests pass a manual one. */
  updateClock?: UpdateClock;
}

/** The time source of the live-update throttle. */
export interface UpdateClock {
  /** Milliseconds since an arbitrary epoch. */
  now(): number;
  /** Schedules `fn` once after `ms`; returns a handle for `clearTimeout`. */
  setTimeout(fn: () => void, ms: number): unknown;
  /** Cancels a timer from `setTimeout`. */
  clearTimeout(handle: unknown): void;
}

/** The real clock of the live-update throttle. */
const REAL_CLOCK: UpdateClock = {
  now: () => performance.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as number),
};

/** Structured result data of a bash call. */
export interface BashDetails {
  /** Exit code; null when the command was killed, timed out, was aborted or never started. */
  exitCode: number | null;
  /** Signal that ended the command, when one did. */
  signal?: string;
  timedOut?: boolean;
  aborted?: boolean;
  /** Timeout applied, in seconds. */
  timeoutSec: number;
  stdoutBytes: number;
  stderrBytes: number;
  /** True when some output is not in the result. */
  truncated: boolean;
  /** Spill files holding the first 10 MiB of a stream, when one was written. */
  stdoutFile?: string;
  stderrFile?: string;
  /** Most stream bytes held in memory at once (for benchmarks; bounded by design). */
  retainedPeakBytes: number;
}

const QUIET_MS = 100;
const MAX_DRAIN_AFTER_EXIT_MS = 2_000;
const MAX_DRAIN_AFTER_KILL_MS = 500;
const UPDATE_INTERVAL_MS = 100;
const STDERR_HEADER = "--- stderr ---";

type Ending =
  | { type: "exit"; status: ProcessExit }
  | { type: "timeout" }
  | { type: "abort" };

/** Creates the bash tool. */
export function createBashTool(options: BashToolOptions): Tool<typeof BashParams> {
  const defaultTimeout = options.timeoutSec ?? 120;
  const maxTimeout = options.maxTimeoutSec ?? 600;
  const env = options.env ?? {};
  const prefix = options.commandPrefix ?? [];
  const registry = options.processRegistry;
  let ops = options.process;

  return {
    name: "bash",
    label: "Bash",
    description:
      "Run a shell command with `bash -c` in the workspace directory; stdin is empty, so " +
      "interactive prompts fail. Returns the end of stdout and, separately, of stderr (together " +
      `at most ${DEFAULT_MAX_LINES} lines / ${DEFAULT_MAX_BYTES / 1024} KB); when output is ` +
      "dropped, a note gives the files holding the full output (first 10 MiB of each stream): " +
      "page them with the read tool. A non-zero exit code is reported at the end of the output, " +
      `not as an error. Default timeout ${defaultTimeout}s (pass \`timeout\` in seconds, at most ` +
      `${maxTimeout}s); on timeout or abort the command and everything it started are killed. ` +
      "Background processes (`&`) are killed when the command finishes: do not start servers " +
      "expecting them to keep running.",
    parameters: BashParams,
    kind: "execute",
    concurrencySafe: false,
    // The output is already bounded by its own budget; room for the notes keeps the generic
    // cap from cutting a second hole into the middle of it.
    maxResultChars: DEFAULT_MAX_BYTES + 4_000,
    locations() {
      return [{ access: "run", program: "bash" }];
    },
    async execute(args, signal, ctx): Promise<ToolOutput> {
      const requested = args.timeout ?? defaultTimeout;
      const timeoutSec = Math.min(requested, maxTimeout);
      const notes: string[] = [];
      if (requested > maxTimeout) {
        notes.push(`[Timeout ${requested}s is over the maximum; used ${maxTimeout}s.]`);
      }
      const emptyDetails: BashDetails = {
        exitCode: null,
        timeoutSec,
        stdoutBytes: 0,
        stderrBytes: 0,
        truncated: false,
        retainedPeakBytes: 0,
      };
      if (signal.aborted) {
        return {
          output: "command aborted",
          isError: true,
          details: { ...emptyDetails, aborted: true },
        };
      }
      ops ??= createDenoProcessOps();
      const processOps = ops;
      const callId = newCallId();
      const collectors = {
        stdout: new StreamCollector({
          openSpill: () =>
            processOps.createSpillFile(join(options.spillDir, `bash-${callId}.stdout.log`)),
        }),
        stderr: new StreamCollector({
          openSpill: () =>
            processOps.createSpillFile(join(options.spillDir, `bash-${callId}.stderr.log`)),
        }),
      };
      const argv = [...prefix, "bash", "-c", args.command];
      const spawned = processOps.spawn(argv[0] as string, argv.slice(1), { cwd: options.cwd, env });
      if (!spawned.ok) {
        return {
          output: `Could not start bash in "${options.cwd}": ${spawned.message}`,
          isError: true,
          details: emptyDetails,
        };
      }
      const child = spawned.child;
      const unregister = registry?.add(child) ?? (() => {});
      const run = new CallRun(child, collectors, ctx.onUpdate, options.updateClock ?? REAL_CLOCK);
      let ending: Ending;
      try {
        ending = await run.wait(timeoutSec * 1000, signal);
      } finally {
        await run.finish();
        unregister();
      }
      return await buildResult({ ending, collectors, notes, timeoutSec, peak: run.peakRetained });
    },
  };
}

/** A unique-enough id for spill file names (time + randomness; files are created exclusively). */
function newCallId(): string {
  const random = new Uint8Array(4);
  crypto.getRandomValues(random);
  const hex = [...random].map((b) => b.toString(16).padStart(2, "0")).join("");
  return `${Date.now().toString(36)}-${hex}`;
}

interface Pump {
  ended: Promise<void>;
  isEnded: () => boolean;
  cancel(): Promise<void>;
}

/** One running command: its stream pumps, the waiting rules and live updates. */
class CallRun {
  readonly #child: ChildProcessHandle;
  readonly #collectors: { stdout: StreamCollector; stderr: StreamCollector };
  readonly #onUpdate: (update: { text: string }) => void;
  readonly #pumps: Pump[];
  #lastActivity = performance.now();
  readonly #clock: UpdateClock;
  #updateTimer: unknown;
  #lastUpdate: number;
  #finished = false;
  /** Most stream bytes retained at once. */
  peakRetained = 0;

  constructor(
    child: ChildProcessHandle,
    collectors: { stdout: StreamCollector; stderr: StreamCollector },
    onUpdate: (update: { text: string }) => void,
    clock: UpdateClock,
  ) {
    this.#child = child;
    this.#collectors = collectors;
    this.#onUpdate = onUpdate;
    this.#clock = clock;
    this.#lastUpdate = clock.now() - UPDATE_INTERVAL_MS;
    this.#pumps = [
      this.#pump(child.stdout, collectors.stdout),
      this.#pump(child.stderr, collectors.stderr),
    ];
  }

  #pump(stream: ReadableStream<Uint8Array>, collector: StreamCollector): Pump {
    const read = chunkReader(stream);
    let ended = false;
    const loop = (async () => {
      try {
        while (true) {
          let chunk: Uint8Array | null;
          try {
            chunk = await read.next();
          } catch (e) {
            // A failing pipe read ends the stream like EOF.
            if (e instanceof Error) break;
            throw e;
          }
          if (chunk === null) break;
          this.#lastActivity = performance.now();
          // The collector copies what it keeps, so the chunk's buffer can be read into again.
          await collector.push(chunk);
          this.#lastActivity = performance.now();
          this.#trackMemory();
          this.#scheduleUpdate();
        }
      } finally {
        ended = true;
      }
    })();
    return {
      // Never rejects (which also marks `loop` handled); `cancel` rethrows a failure of `loop`.
      ended: loop.then(() => {}, () => {}),
      isEnded: () => ended,
      cancel: async () => {
        if (!ended) {
          await read.cancel().catch(() => {});
        }
        await loop;
      },
    };
  }

  #trackMemory(): void {
    const retained = this.#collectors.stdout.retainedBytes + this.#collectors.stderr.retainedBytes;
    if (retained > this.peakRetained) this.peakRetained = retained;
  }

  #scheduleUpdate(): void {
    if (this.#finished || this.#updateTimer !== undefined) return;
    // Rounded up: timers take whole milliseconds, and an update must never come early.
    const wait = Math.max(0, Math.ceil(this.#lastUpdate + UPDATE_INTERVAL_MS - this.#clock.now()));
    this.#updateTimer = this.#clock.setTimeout(() => {
      this.#updateTimer = undefined;
      if (this.#finished) return;
      if (this.#clock.now() - this.#lastUpdate < UPDATE_INTERVAL_MS) {
        this.#scheduleUpdate();
        return;
      }
      this.#lastUpdate = this.#clock.now();
      const fitted = fitTails(
        this.#collectors.stdout.tail.view(),
        this.#collectors.stderr.tail.view(),
      );
      try {
        this.#onUpdate({ text: joinStreams(fitted.stdout, fitted.stderr) });
      } catch {
        // A failing progress sink must not break the call.
      }
    }, wait);
  }

  /** Waits until the command exits, times out or is aborted, then drains its output. */
  async wait(timeoutMs: number, signal: AbortSignal): Promise<Ending> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let onAbort: (() => void) | undefined;
    const ending = await new Promise<Ending>((resolve) => {
      timer = setTimeout(() => resolve({ type: "timeout" }), timeoutMs);
      onAbort = () => resolve({ type: "abort" });
      signal.addEventListener("abort", onAbort, { once: true });
      this.#child.status.then((status) => resolve({ type: "exit", status }));
    });
    clearTimeout(timer);
    if (onAbort) signal.removeEventListener("abort", onAbort);
    if (ending.type === "exit") {
      // A background process may hold the pipes open forever: stop once output goes quiet.
      await this.#drain(MAX_DRAIN_AFTER_EXIT_MS, signal);
    } else {
      await this.#child.killGroup();
      await this.#drain(MAX_DRAIN_AFTER_KILL_MS, undefined);
    }
    return ending;
  }

  /** Resolves when both streams ended, or output was quiet QUIET_MS, or after `maxMs`. */
  async #drain(maxMs: number, signal: AbortSignal | undefined): Promise<void> {
    const start = performance.now();
    this.#lastActivity = Math.max(this.#lastActivity, start);
    const bothEnded = Promise.all(this.#pumps.map((p) => p.ended));
    while (!this.#pumps.every((p) => p.isEnded()) && !signal?.aborted) {
      const now = performance.now();
      const quietFor = now - this.#lastActivity;
      const left = maxMs - (now - start);
      if (quietFor >= QUIET_MS || left <= 0) return;
      let timer: ReturnType<typeof setTimeout> | undefined;
      let onAbort: (() => void) | undefined;
      await Promise.race([
        bothEnded,
        new Promise<void>((resolve) => {
          timer = setTimeout(resolve, Math.min(QUIET_MS - quietFor, left));
          if (signal) {
            onAbort = resolve;
            signal.addEventListener("abort", onAbort, { once: true });
          }
        }),
      ]);
      clearTimeout(timer);
      if (signal && onAbort) signal.removeEventListener("abort", onAbort);
    }
  }

  /** Kills the group, stops reading, and waits for the process; safe after any failure. */
  async finish(): Promise<void> {
    this.#finished = true;
    if (this.#updateTimer !== undefined) this.#clock.clearTimeout(this.#updateTimer);
    this.#updateTimer = undefined;
    await this.#child.killGroup();
    await Promise.all(this.#pumps.map((p) => p.cancel()));
    await this.#child.status;
    this.#trackMemory();
  }
}

/** Bytes read from a pipe at a time (a Linux pipe holds 64 KiB by default). */
const READ_CHUNK_BYTES = 64 * 1024;

/** Pulls chunks from a stream; each chunk is valid only until the next `next()` call. */
interface ChunkReader {
  /** The next chunk, or null at the end of the stream. */
  next(): Promise<Uint8Array | null>;
  cancel(): Promise<void>;
}

/**
 * Reads a byte stream into one reused buffer (a BYOB reader): the default reader allocates a
 * fresh 64 KiB buffer per read, and V8 frees those only after tens of MB of them, which shows in
 * the peak RSS of a command printing hundreds of MB. Streams that are not byte streams (e.g.
 * test fakes) fall back to the default reader.
 */
function chunkReader(stream: ReadableStream<Uint8Array>): ChunkReader {
  let byob: ReadableStreamBYOBReader;
  try {
    byob = stream.getReader({ mode: "byob" });
  } catch (e) {
    if (!(e instanceof TypeError)) throw e;
    const reader = stream.getReader();
    return {
      async next() {
        const r = await reader.read();
        return r.done ? null : r.value;
      },
      cancel: () => reader.cancel(),
    };
  }
  let buffer: ArrayBuffer = new ArrayBuffer(READ_CHUNK_BYTES);
  return {
    async next() {
      for (;;) {
        // The read transfers the buffer; the view it returns keeps the same memory.
        const r = await byob.read(new Uint8Array(buffer));
        if (r.value !== undefined) buffer = r.value.buffer as ArrayBuffer;
        if (r.done) return null;
        if (r.value !== undefined && r.value.length > 0) return r.value;
      }
    },
    cancel: () => byob.cancel(),
  };
}

function joinStreams(stdout: FittedTail, stderr: FittedTail): string {
  if (stderr.text === "") return stdout.text;
  if (stdout.text === "") return `${STDERR_HEADER}\n${stderr.text}`;
  return `${stdout.text}\n${STDERR_HEADER}\n${stderr.text}`;
}

function streamNote(
  name: "stdout" | "stderr",
  fitted: FittedTail,
  collector: StreamCollector,
): string | null {
  if (!fitted.truncated) return null;
  const parts: string[] = [];
  const lines = fitted.totalLines === 1 ? "1 line" : `${fitted.totalLines} lines`;
  const total = `${lines}, ${formatSize(fitted.totalBytes)}`;
  if (fitted.lineCut) {
    parts.push(
      `${name}: ${total}; showing only the end of its last line (the line is longer than the output budget).`,
    );
  } else {
    parts.push(`${name}: showing the last ${fitted.shownLines} of ${total}.`);
  }
  const path = collector.spillPath;
  if (path !== null) {
    parts.push(
      collector.spillCapped
        ? `The first 10 MiB of ${name} are saved in ${path} (the rest was not kept).`
        : `Full ${name} saved in ${path}.`,
    );
  } else if (collector.spillError !== null) {
    parts.push(`The full ${name} could not be saved: ${collector.spillError}`);
  }
  return `[${parts.join(" ")}]`;
}

function endingLine(ending: Ending, timeoutSec: number): string | null {
  switch (ending.type) {
    case "timeout":
      return `command timed out after ${timeoutSec}s and was killed`;
    case "abort":
      return "command aborted";
    case "exit": {
      const { code, signal } = ending.status;
      if (signal !== null) return `Command was killed by signal ${signal}`;
      if (code === null) return "Command ended without an exit status";
      return code === 0 ? null : `Command exited with code ${code}`;
    }
    default: {
      const never: never = ending;
      return never;
    }
  }
}

async function buildResult(input: {
  ending: Ending;
  collectors: { stdout: StreamCollector; stderr: StreamCollector };
  notes: string[];
  timeoutSec: number;
  peak: number;
}): Promise<ToolOutput> {
  const { ending, collectors, timeoutSec } = input;
  const fitted = fitTails(collectors.stdout.tail.view(), collectors.stderr.tail.view());
  // Streams that lost output must be on disk for the model to page.
  if (fitted.stdout.truncated) await collectors.stdout.ensureSpilled();
  if (fitted.stderr.truncated) await collectors.stderr.ensureSpilled();
  await collectors.stdout.close();
  await collectors.stderr.close();

  const notes = [...input.notes];
  const outNote = streamNote("stdout", fitted.stdout, collectors.stdout);
  if (outNote !== null) notes.push(outNote);
  const errNote = streamNote("stderr", fitted.stderr, collectors.stderr);
  if (errNote !== null) notes.push(errNote);
  const last = endingLine(ending, timeoutSec);
  const body = joinStreams(
    { ...fitted.stdout, text: shownToModel(fitted.stdout) },
    { ...fitted.stderr, text: shownToModel(fitted.stderr) },
  );

  const sections: string[] = [];
  if (body !== "") sections.push(body);
  const tail = [...notes, ...(last === null ? [] : [last])].join("\n");
  if (tail !== "") sections.push(tail);
  const output = sections.length > 0 ? sections.join("\n\n") : "(no output)";

  const details: BashDetails = {
    exitCode: ending.type === "exit" && ending.status.signal === null ? ending.status.code : null,
    timeoutSec,
    stdoutBytes: fitted.stdout.totalBytes,
    stderrBytes: fitted.stderr.totalBytes,
    truncated: fitted.stdout.truncated || fitted.stderr.truncated,
    retainedPeakBytes: input.peak,
  };
  if (ending.type === "exit" && ending.status.signal !== null) {
    details.signal = ending.status.signal;
  }
  if (ending.type === "timeout") details.timedOut = true;
  if (ending.type === "abort") details.aborted = true;
  if (collectors.stdout.spillPath !== null) details.stdoutFile = collectors.stdout.spillPath;
  if (collectors.stderr.spillPath !== null) details.stderrFile = collectors.stderr.spillPath;

  const isError = ending.type !== "exit" ||
    (ending.status.code === null && ending.status.signal === null);
  return isError ? { output, isError: true, details } : { output, details };
}

/** A stream's tail as the model should see it: as a terminal shows it, and never binary noise. */
function shownToModel(tail: FittedTail): string {
  if (looksLikeBinaryText(tail.text)) {
    return `[binary output not shown (${formatSize(tail.totalBytes)}); inspect it with ` +
      `"xxd | head" or "od -c | head", or redirect it to a file]`;
  }
  return asTerminalShows(tail.text);
}
