/**
 * One running command: pumps reading stdout and stderr into their collectors, the waiting rules
 * (exit, timeout, abort; then draining the pipes with a deadline) and throttled live updates.
 */
import type { ChildProcessHandle } from "../ops.ts";
import type { StreamCollector } from "./collector.ts";
import { fitTails } from "./fit.ts";
import { type Ending, joinStreams } from "./output.ts";

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
export const REAL_CLOCK: UpdateClock = {
  now: () => performance.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as number),
};

const QUIET_MS = 100;
const MAX_DRAIN_AFTER_EXIT_MS = 2_000;
const MAX_DRAIN_AFTER_KILL_MS = 500;
const UPDATE_INTERVAL_MS = 100;

/**
 * What one live update holds at most: the last lines of the output, for a person watching (the
 * model gets the full tail in the result). Keeps each update small however much a command prints.
 */
export const LIVE_TAIL_BUDGET = { maxLines: 20, maxBytes: 4096 } as const;

/** The `details` of a bash live update: how much the command has printed so far. */
export interface BashProgressDetails {
  /** Lines of stdout and stderr so far (a last line without a newline counts). */
  totalLines: number;
  /** Bytes of stdout and stderr so far. */
  totalBytes: number;
}

/** A bash live update: the joined tail (stderr after a header, as in the result) and totals. */
export interface BashProgress {
  text: string;
  details: BashProgressDetails;
}

interface Pump {
  ended: Promise<void>;
  isEnded: () => boolean;
  cancel(): Promise<void>;
}

/** One running command: its stream pumps, the waiting rules and live updates. */
export class CallRun {
  readonly #child: ChildProcessHandle;
  readonly #collectors: { stdout: StreamCollector; stderr: StreamCollector };
  readonly #onUpdate: (update: BashProgress) => void;
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
    onUpdate: (update: BashProgress) => void,
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
      const { stdout, stderr } = fitTails(
        this.#collectors.stdout.tail.view(),
        this.#collectors.stderr.tail.view(),
        LIVE_TAIL_BUDGET,
      );
      const details: BashProgressDetails = {
        totalLines: stdout.totalLines + stderr.totalLines,
        totalBytes: stdout.totalBytes + stderr.totalBytes,
      };
      try {
        this.#onUpdate({ text: joinStreams(stdout, stderr), details });
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

/** The argv prefix bash runs under: fixed, or built for each call (the hidden-path view). */
export type CommandPrefix = string[] | (() => Promise<string[]>);

/** The argv that runs `command` under `prefix`, or why the prefix could not be built. */
export async function bashArgv(
  prefix: CommandPrefix | undefined,
  command: string,
): Promise<{ ok: true; argv: string[] } | { ok: false; message: string }> {
  try {
    const head = typeof prefix === "function" ? await prefix() : prefix ?? [];
    return { ok: true, argv: [...head, "bash", "-c", command] };
  } catch (e) {
    return { ok: false, message: e instanceof Error ? e.message : String(e) };
  }
}
