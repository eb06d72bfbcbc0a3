/**
 * The end of an output stream with bounded memory: a ring buffer keeping its last bytes, with
 * counters for the whole stream.
 */

const NEWLINE = 0x0a;
const decoder = new TextDecoder();
const encoder = new TextEncoder();

/** Bytes of stream tail kept in memory: the 50 KB result budget plus room for a partial line. */
export const DEFAULT_TAIL_CAPACITY = 64 * 1024;

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

/**
 * Counts the LF bytes of `bytes`, four at a time (SWAR over the aligned middle): about twice as
 * fast as a byte loop and far faster than one `indexOf` call per newline on short lines.
 */
export function countNewlines(bytes: Uint8Array): number {
  const len = bytes.length;
  let count = 0;
  let i = 0;
  const head = Math.min(len, (4 - (bytes.byteOffset & 3)) & 3);
  for (; i < head; i++) if (bytes[i] === 0x0a) count++;
  const words = (len - i) >>> 2;
  if (words > 0) {
    const view = new Uint32Array(bytes.buffer, bytes.byteOffset + i, words);
    for (let k = 0; k < words; k++) {
      const x = (view[k] as number) ^ 0x0a0a0a0a;
      // 0x80 in every byte of x that is zero (an LF in the input), exactly: no borrow leaks.
      const zeros = ~(((x & 0x7f7f7f7f) + 0x7f7f7f7f) | x | 0x7f7f7f7f);
      if (zeros !== 0) count += Math.imul(zeros >>> 7, 0x01010101) >>> 24;
    }
    i += words * 4;
  }
  for (; i < len; i++) if (bytes[i] === 0x0a) count++;
  return count;
}
