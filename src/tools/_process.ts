/**
 * Output collection for the bash tool with bounded memory: a ring buffer keeping the tail of a
 * stream, a collector that spills the first bytes of a stream to a file once it outgrows the
 * result budget, and pure helpers that fit two tails into one shared budget.
 */
import { FsError, type SpillFile } from "./ops.ts";
import { byteLength, DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, truncateTail } from "./_truncate.ts";
import { countNewlines } from "./_lines.ts";

const NEWLINE = 0x0a;
const decoder = new TextDecoder();
const encoder = new TextEncoder();

/** Bytes of stream tail kept in memory: the 50 KB result budget plus room for a partial line. */
const DEFAULT_TAIL_CAPACITY = 64 * 1024;
/** How much of each stream is saved to its spill file (10 MiB). */
const DEFAULT_SPILL_LIMIT = 10 * 1024 * 1024;

/** The end of a stream as text, as far as a tail buffer still holds it. */
export interface TailView {
  /**
   * Whole lines from the end (the last one may lack its newline). When the retained bytes lie
   * inside a single line, that line's retained end (see `lineCut`).
   */
  text: string;
  /** True when `text` is the complete stream. */
  complete: boolean;
  /** True when `text` is only the end of one line longer than the buffer. */
  lineCut: boolean;
  /** Bytes the stream carried in total. */
  totalBytes: number;
  /** Lines the stream carried in total (a final line without newline counts). */
  totalLines: number;
}

/**
 * A fixed-capacity ring buffer holding the last `capacity` bytes of a stream, plus counters for
 * the whole stream. Memory never exceeds `capacity` bytes whatever is pushed.
 */
export class TailBuffer {
  /** Maximum bytes retained. */
  readonly capacity: number;
  #buf: Uint8Array | null = null;
  #start = 0;
  #length = 0;
  #totalBytes = 0;
  #newlines = 0;
  #lastByte = -1;
  #lastDroppedByte = -1;

  constructor(capacity: number = DEFAULT_TAIL_CAPACITY) {
    if (!Number.isInteger(capacity) || capacity < 1) {
      throw new RangeError(`TailBuffer capacity must be a positive integer, got ${capacity}`);
    }
    this.capacity = capacity;
  }

  /** Bytes pushed so far. */
  get totalBytes(): number {
    return this.#totalBytes;
  }

  /** Lines pushed so far (a final line without newline counts). */
  get totalLines(): number {
    if (this.#totalBytes === 0) return 0;
    return this.#newlines + (this.#lastByte === NEWLINE ? 0 : 1);
  }

  /** Bytes currently held (at most `capacity`). */
  get retainedBytes(): number {
    return this.#length;
  }

  /** Bytes that fell out of the buffer. */
  get droppedBytes(): number {
    return this.#totalBytes - this.#length;
  }

  /** Appends a chunk, dropping the oldest bytes beyond capacity. */
  push(chunk: Uint8Array): void {
    if (chunk.length === 0) return;
    this.#totalBytes += chunk.length;
    // A word-at-a-time count: an indexOf call per newline costs more than the copy below.
    this.#newlines += countNewlines(chunk);
    this.#lastByte = chunk[chunk.length - 1] as number;
    const buf = this.#buf ??= new Uint8Array(this.capacity);
    const cap = this.capacity;
    let data = chunk;
    if (data.length >= cap) {
      // Everything held so far and the head of this chunk fall out.
      const droppedFromChunk = data.length - cap;
      this.#lastDroppedByte = droppedFromChunk > 0
        ? data[droppedFromChunk - 1] as number
        : this.#length > 0
        ? buf[(this.#start + this.#length - 1) % cap] as number
        : this.#lastDroppedByte;
      buf.set(data.subarray(droppedFromChunk));
      this.#start = 0;
      this.#length = cap;
      return;
    }
    const overflow = this.#length + data.length - cap;
    if (overflow > 0) {
      this.#lastDroppedByte = buf[(this.#start + overflow - 1) % cap] as number;
      this.#start = (this.#start + overflow) % cap;
      this.#length -= overflow;
    }
    let end = (this.#start + this.#length) % cap;
    while (data.length > 0) {
      const n = Math.min(data.length, cap - end);
      buf.set(data.subarray(0, n), end);
      data = data.subarray(n);
      this.#length += n;
      end = (end + n) % cap;
    }
  }

  /** A contiguous copy of the retained bytes, oldest first. */
  bytes(): Uint8Array {
    const out = new Uint8Array(this.#length);
    if (this.#buf === null || this.#length === 0) return out;
    const firstPart = Math.min(this.#length, this.capacity - this.#start);
    out.set(this.#buf.subarray(this.#start, this.#start + firstPart));
    if (firstPart < this.#length) {
      out.set(this.#buf.subarray(0, this.#length - firstPart), firstPart);
    }
    return out;
  }

  /** The retained tail as text, starting at a line boundary whenever one is held. */
  view(): TailView {
    const totals = { totalBytes: this.#totalBytes, totalLines: this.totalLines };
    let bytes = this.bytes();
    if (this.droppedBytes === 0) {
      return { text: decoder.decode(bytes), complete: true, lineCut: false, ...totals };
    }
    if (this.#lastDroppedByte !== NEWLINE) {
      const firstNewline = bytes.indexOf(NEWLINE);
      if (firstNewline === -1 || firstNewline === bytes.length - 1) {
        // The buffer holds the end of one long line.
        bytes = skipContinuationBytes(bytes);
        return { text: decoder.decode(bytes), complete: false, lineCut: true, ...totals };
      }
      bytes = bytes.subarray(firstNewline + 1);
    }
    return { text: decoder.decode(bytes), complete: false, lineCut: false, ...totals };
  }
}

/** Drops UTF-8 continuation bytes at the start so decoding does not begin mid-character. */
function skipContinuationBytes(bytes: Uint8Array): Uint8Array {
  let i = 0;
  while (i < bytes.length && i < 4 && ((bytes[i] as number) & 0xc0) === 0x80) i++;
  return bytes.subarray(i);
}

/** The last `maxBytes` bytes of `text`, never starting mid-character. */
export function tailBytes(text: string, maxBytes: number): string {
  const bytes = encoder.encode(text);
  if (bytes.length <= maxBytes) return text;
  return decoder.decode(skipContinuationBytes(bytes.subarray(bytes.length - maxBytes)));
}

// CSI (colours, cursor moves) and OSC (titles, hyperlinks) escape sequences.
// deno-lint-ignore no-control-regex
const ANSI_ESCAPES = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)/g;

/**
 * Output as a terminal would show it: escape sequences removed, and text a carriage return went
 * back over (progress bars, spinners) overwritten, so a model does not receive every frame.
 */
export function asTerminalShows(text: string): string {
  if (!text.includes("\r") && !text.includes("\x1b")) return text;
  return text.replace(ANSI_ESCAPES, "").split("\n").map((line) => {
    const body = line.endsWith("\r") ? line.slice(0, -1) : line;
    if (!body.includes("\r")) return body;
    return body.split("\r").reduce((shown, frame) => frame + shown.slice(frame.length), "");
  }).join("\n");
}

/**
 * True when decoded output is mostly not text: it has NUL bytes, or more than a tenth of it is
 * replacement characters (invalid UTF-8) and control characters other than whitespace.
 */
export function looksLikeBinaryText(text: string): boolean {
  if (text.length === 0) return false;
  if (text.includes("\0")) return true;
  let odd = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    // Tab, newline, carriage return, form feed and escape are ordinary in terminal output.
    if (
      code === 0xfffd || (code < 32 && code !== 9 && code !== 10 && code !== 12 && code !== 13 &&
        code !== 27)
    ) odd++;
  }
  return odd * 10 > text.length;
}

/** Result budget shared by stdout and stderr. */
export interface OutputBudget {
  maxLines: number;
  maxBytes: number;
}

/** What is shown of one stream after fitting. */
export interface FittedTail {
  text: string;
  /** Lines shown. */
  shownLines: number;
  /** True when part of the stream is not shown. */
  truncated: boolean;
  /** True when the last shown line is only the end of a longer line. */
  lineCut: boolean;
  totalLines: number;
  totalBytes: number;
}

function splitLineCount(text: string): number {
  if (text === "") return 0;
  const n = text.split("\n").length;
  return text.endsWith("\n") ? n - 1 : n;
}

/**
 * Splits `total` between two needs: each gets what it needs when both fit, otherwise the smaller
 * need is met up to half and the larger takes the rest.
 */
export function splitBudget(needA: number, needB: number, total: number): [number, number] {
  if (needA + needB <= total) return [needA, needB];
  const half = Math.floor(total / 2);
  if (needA <= half) return [needA, total - needA];
  if (needB <= half) return [total - needB, needB];
  return [total - half, half];
}

function fitOne(view: TailView, maxLines: number, maxBytes: number): FittedTail {
  const totals = { totalLines: view.totalLines, totalBytes: view.totalBytes };
  if (view.text === "") {
    return { text: "", shownLines: 0, truncated: !view.complete, lineCut: false, ...totals };
  }
  // Keep the trailing newline out of the budget arithmetic; it is not shown.
  const text = view.text.endsWith("\n") ? view.text.slice(0, -1) : view.text;
  const fitted = truncateTail(text, { maxLines, maxBytes });
  if (fitted.outputLines > 0 || maxLines === 0 || maxBytes === 0) {
    return {
      text: fitted.content,
      shownLines: fitted.outputLines,
      truncated: !view.complete || fitted.truncated,
      lineCut: view.lineCut && fitted.outputLines === fitted.totalLines,
      ...totals,
    };
  }
  // The last line alone is over the byte budget: show its end rather than nothing.
  const lastLine = text.slice(text.lastIndexOf("\n") + 1);
  return {
    text: tailBytes(lastLine, maxBytes),
    shownLines: 1,
    truncated: true,
    lineCut: true,
    ...totals,
  };
}

/**
 * Fits the tails of stdout and stderr into one shared budget of lines and bytes (whole lines from
 * the end; a last line longer than its share is cut to its end).
 */
export function fitTails(
  stdout: TailView,
  stderr: TailView,
  budget: OutputBudget = { maxLines: DEFAULT_MAX_LINES, maxBytes: DEFAULT_MAX_BYTES },
): { stdout: FittedTail; stderr: FittedTail } {
  const outText = stdout.text.endsWith("\n") ? stdout.text.slice(0, -1) : stdout.text;
  const errText = stderr.text.endsWith("\n") ? stderr.text.slice(0, -1) : stderr.text;
  const [outLines, errLines] = splitBudget(
    splitLineCount(outText),
    splitLineCount(errText),
    budget.maxLines,
  );
  const [outBytes, errBytes] = splitBudget(
    byteLength(outText),
    byteLength(errText),
    budget.maxBytes,
  );
  return {
    stdout: fitOne(stdout, outLines, outBytes),
    stderr: fitOne(stderr, errLines, errBytes),
  };
}

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
