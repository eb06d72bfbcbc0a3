/**
 * Collecting one output stream: its tail kept in memory, its first bytes spilled to a file once it
 * outgrows the result budget.
 */
import { FsError, type SpillFile } from "../ops.ts";
import { DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES } from "../truncate.ts";
import type { OutputBudget } from "./fit.ts";
import { DEFAULT_TAIL_CAPACITY, TailBuffer } from "./tail.ts";

/** How much of each stream is saved to its spill file (10 MiB). */
const DEFAULT_SPILL_LIMIT = 10 * 1024 * 1024;

/** Options for a `StreamCollector`. */
export interface StreamCollectorOptions {
  /** Creates the spill file; called at most once, only when the stream needs one. */
  openSpill: () => Promise<SpillFile>;
  /** Tail bytes kept in memory. */
  tailCapacity?: number;
  /** Bytes of the stream saved to the spill file. */
  spillLimit?: number;
  /** The stream is spilled as soon as it exceeds this many bytes or lines. */
  spillThreshold?: OutputBudget;
}

/**
 * Collects one output stream: keeps its tail in a `TailBuffer` and saves its first `spillLimit`
 * bytes to a spill file, opened lazily once the stream outgrows the result budget (until then the
 * few bytes seen are held in memory). Memory is bounded by the tail capacity plus the threshold.
 * `push` must not be called concurrently (await each call); spill failures become `spillError`.
 */
export class StreamCollector {
  /** The stream's tail. */
  readonly tail: TailBuffer;
  readonly #openSpill: () => Promise<SpillFile>;
  readonly #spillLimit: number;
  readonly #threshold: OutputBudget;
  #head: Uint8Array[] = [];
  #headBytes = 0;
  #spill: SpillFile | null = null;
  #spilledBytes = 0;
  #spillError: string | null = null;
  #closed = false;

  constructor(options: StreamCollectorOptions) {
    this.tail = new TailBuffer(options.tailCapacity ?? DEFAULT_TAIL_CAPACITY);
    this.#openSpill = options.openSpill;
    this.#spillLimit = options.spillLimit ?? DEFAULT_SPILL_LIMIT;
    this.#threshold = options.spillThreshold ??
      { maxLines: DEFAULT_MAX_LINES, maxBytes: DEFAULT_MAX_BYTES };
  }

  /** Path of the spill file, once one was created. */
  get spillPath(): string | null {
    return this.#spill?.path ?? null;
  }

  /** True when the stream was longer than what the spill file holds. */
  get spillCapped(): boolean {
    return this.#spill !== null && this.tail.totalBytes > this.#spillLimit;
  }

  /** Bytes written to the spill file. */
  get spilledBytes(): number {
    return this.#spilledBytes;
  }

  /** Why the stream could not be saved, if it could not. */
  get spillError(): string | null {
    return this.#spillError;
  }

  /** Bytes of stream data held in memory right now (tail + unspilled head). */
  get retainedBytes(): number {
    return this.tail.retainedBytes + this.#headBytes;
  }

  /** Adds a chunk of the stream. */
  async push(chunk: Uint8Array): Promise<void> {
    if (chunk.length === 0) return;
    this.tail.push(chunk);
    if (this.#closed || this.#spillError !== null) return;
    if (this.#spill !== null) {
      await this.#write(chunk);
      return;
    }
    const withinThreshold = this.tail.totalBytes <= this.#threshold.maxBytes &&
      this.tail.totalLines <= this.#threshold.maxLines;
    if (withinThreshold) {
      this.#head.push(chunk.slice());
      this.#headBytes += chunk.length;
      return;
    }
    await this.#startSpill(chunk);
  }

  /** Makes sure the stream is saved to a spill file (e.g. when the result drops part of it). */
  async ensureSpilled(): Promise<void> {
    if (this.#closed || this.#spill !== null || this.#spillError !== null) return;
    if (this.tail.totalBytes === 0) return;
    await this.#startSpill(null);
  }

  /** Closes the spill file; later pushes only update the tail. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#head = [];
    this.#headBytes = 0;
    const spill = this.#spill;
    if (spill === null) return;
    try {
      await spill.close();
    } catch (e) {
      if (!(e instanceof FsError)) throw e;
      this.#spillError ??= e.message;
    }
  }

  async #startSpill(chunk: Uint8Array | null): Promise<void> {
    const head = this.#head;
    this.#head = [];
    this.#headBytes = 0;
    try {
      this.#spill = await this.#openSpill();
    } catch (e) {
      if (!(e instanceof FsError)) throw e;
      this.#spillError = e.message;
      return;
    }
    for (const part of head) await this.#write(part);
    if (chunk !== null) await this.#write(chunk);
  }

  async #write(chunk: Uint8Array): Promise<void> {
    const spill = this.#spill;
    const room = this.#spillLimit - this.#spilledBytes;
    if (spill === null || room <= 0 || this.#spillError !== null) return;
    const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
    try {
      await spill.write(part);
      this.#spilledBytes += part.length;
    } catch (e) {
      if (!(e instanceof FsError)) throw e;
      this.#spillError = e.message;
    }
  }
}
