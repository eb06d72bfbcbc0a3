/**
 * Streaming line reading over an open FileHandle with bounded memory, even for huge lines, and the
 * binary-file check shared by read, edit and grep.
 */
import type { FileHandle } from "./ops.ts";

const CHUNK = 64 * 1024;
/** How many leading bytes the binary check looks at. */
export const BINARY_SNIFF_BYTES = 8192;

/** One line as read: possibly shortened text plus its full length. */
export interface Line {
  /** The line without its terminator (and without a trailing CR), at most `maxChars` long. */
  text: string;
  /** Full length in characters (UTF-16 units), CR excluded. */
  length: number;
  /** True when `text` is shorter than the line. */
  truncated: boolean;
}

/** True when the bytes contain a NUL within the first 8 KB (the binary heuristic). */
export function looksBinary(prefix: Uint8Array): boolean {
  return prefix.subarray(0, BINARY_SNIFF_BYTES).includes(0);
}

/** Pulls lines from a handle one at a time; keeps at most `maxChars` of any line in memory. */
export class LineReader {
  readonly #handle: FileHandle;
  readonly #maxChars: number;
  readonly #maxBytes: number;
  readonly #decoder = new TextDecoder();
  // One read buffer reused for every chunk: a fresh 64 KiB buffer per chunk leaves the GC
  // gigabytes of garbage to catch up with when skipping through a huge file.
  readonly #buf = new Uint8Array(CHUNK);
  #data: Uint8Array = new Uint8Array(0);
  #pos = 0;
  #eof = false;
  #started = false;

  constructor(handle: FileHandle, options: { maxChars: number }) {
    this.#handle = handle;
    this.#maxChars = options.maxChars;
    // Enough bytes to decode maxChars UTF-16 units whatever the encoding mix.
    this.#maxBytes = options.maxChars * 4 + 4;
  }

  async #fill(): Promise<boolean> {
    if (this.#eof) return false;
    // Overwrites #buf: callers must not hold views of #data across a fill.
    const n = await this.#handle.read(this.#buf);
    if (n === null) {
      this.#eof = true;
      return false;
    }
    this.#data = this.#buf.subarray(0, n);
    this.#pos = 0;
    return true;
  }

  /** The first `n` bytes of the file (fewer at EOF); only before the first `next()`. */
  async prefix(n: number): Promise<Uint8Array> {
    if (this.#started) throw new Error("LineReader.prefix() must be called before next()");
    const parts: Uint8Array[] = [this.#data.subarray(this.#pos)];
    let total = parts[0]?.length ?? 0;
    while (total < n && !this.#eof) {
      const buf = new Uint8Array(CHUNK);
      const got = await this.#handle.read(buf);
      if (got === null) {
        this.#eof = true;
        break;
      }
      parts.push(buf.subarray(0, got));
      total += got;
    }
    const joined = new Uint8Array(total);
    let at = 0;
    for (const p of parts) {
      joined.set(p, at);
      at += p.length;
    }
    this.#data = joined;
    this.#pos = 0;
    return joined.subarray(0, Math.min(n, total));
  }

  /** The next line, or null at end of file. A final line without a newline still counts. */
  async next(): Promise<Line | null> {
    this.#started = true;
    const kept: Uint8Array[] = [];
    let keptBytes = 0;
    let overflow: TextDecoder | null = null;
    let overflowText = "";
    let overflowChars = 0;
    let sawAny = false;
    let lastByte = -1;
    for (;;) {
      if (this.#pos >= this.#data.length && !(await this.#fill())) break;
      const idx = this.#data.indexOf(10, this.#pos);
      const end = idx === -1 ? this.#data.length : idx;
      const seg = this.#data.subarray(this.#pos, end);
      sawAny = true;
      if (seg.length > 0) {
        lastByte = seg[seg.length - 1] as number;
        const room = this.#maxBytes - keptBytes;
        if (overflow === null && seg.length <= room) {
          // A segment that does not end the line outlives the next fill, which reuses the buffer.
          kept.push(idx === -1 ? seg.slice() : seg);
          keptBytes += seg.length;
        } else {
          if (overflow === null) {
            kept.push(seg.subarray(0, room));
            keptBytes += room;
            overflow = new TextDecoder();
            overflowText = overflow.decode(concat(kept, keptBytes), { stream: true });
            overflowChars = overflow.decode(seg.subarray(room), { stream: true }).length;
          } else {
            overflowChars += overflow.decode(seg, { stream: true }).length;
          }
        }
      }
      this.#pos = idx === -1 ? end : idx + 1;
      if (idx !== -1) break;
    }
    if (!sawAny) return null;
    let text: string;
    let length: number;
    if (overflow === null) {
      text = this.#decoder.decode(concat(kept, keptBytes));
      if (text.endsWith("\r")) text = text.slice(0, -1);
      length = text.length;
    } else {
      overflowChars += overflow.decode().length;
      text = overflowText;
      length = text.length + overflowChars - (lastByte === 13 ? 1 : 0);
    }
    if (text.length > this.#maxChars) {
      return { text: text.slice(0, this.#maxChars), length, truncated: true };
    }
    return { text, length, truncated: length > text.length };
  }

  /** Skips up to `n` lines without decoding them; resolves to how many there were. */
  async skip(n: number): Promise<number> {
    this.#started = true;
    let skipped = 0;
    let partial = false;
    while (skipped < n) {
      if (this.#pos >= this.#data.length && !(await this.#fill())) {
        if (partial) skipped++;
        break;
      }
      const idx = this.#data.indexOf(10, this.#pos);
      if (idx === -1) {
        partial = true;
        this.#pos = this.#data.length;
        continue;
      }
      skipped++;
      partial = false;
      this.#pos = idx + 1;
    }
    return skipped;
  }

  /** Counts the lines not read yet, consuming the rest of the file. */
  async countRemaining(): Promise<number> {
    this.#started = true;
    let count = 0;
    let pendingPartial = false;
    for (;;) {
      if (this.#pos >= this.#data.length && !(await this.#fill())) break;
      let i = this.#data.indexOf(10, this.#pos);
      let last = this.#pos;
      while (i !== -1) {
        count++;
        last = i + 1;
        i = this.#data.indexOf(10, last);
      }
      if (last < this.#data.length) pendingPartial = true;
      else if (last > this.#pos) pendingPartial = false;
      this.#pos = this.#data.length;
    }
    return count + (pendingPartial ? 1 : 0);
  }
}

function concat(parts: Uint8Array[], total: number): Uint8Array {
  if (parts.length === 1) return parts[0] as Uint8Array;
  const out = new Uint8Array(total);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
