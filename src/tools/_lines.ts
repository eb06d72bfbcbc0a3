/** Streaming line reading over an open FileHandle with bounded memory, even for huge lines. */
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

/** A row found by `LineMatcher`: a matching line, a context line, or a group separator. */
export type MatchRow =
  | { kind: "match" | "context"; line: number; text: string }
  | { kind: "sep" };

/** Options of `LineMatcher`. */
export interface LineMatcherOptions {
  /** The line semantics: tested (no g/y flag) against each candidate line, CR and LF excluded. */
  line: RegExp;
  /**
   * A global, multiline regex run over many lines at once to find candidate lines; it must find
   * a match starting in every line that `line` matches (a superset: candidates are verified with
   * `line`). Null tests every line with `line`.
   */
  finder: RegExp | null;
  /** Lines of context before and after each match. */
  context: number;
  /** Matches to find at most; scanning stops once they and their after-context are in. */
  cap: number;
  /** Characters of one line that are tested (bounded memory for minified files). */
  maxChars: number;
  /** Turns a line (at most `maxChars` characters) and its full length into row text. */
  format: (text: string, fullLength: number) => string;
}

/** A context line kept from an earlier chunk, with its already formatted text. */
interface KeptLine {
  line: number;
  text: string;
}

/** State of a line longer than the carry limit (only its head is kept). */
interface LongLine {
  decoder: TextDecoder;
  head: string;
  chars: number;
  lastByte: number;
}

/**
 * Finds matching lines (and their context) in a stream of byte chunks with bounded memory. Whole
 * runs of complete lines are decoded at once and searched with the `finder` regex; line numbers
 * and line texts are computed only around candidates. A partial line is carried to the next
 * chunk; a line longer than `maxChars * 4 + 4` bytes is not kept whole: its first `maxChars`
 * characters are tested and the rest only counted (like `LineReader`). A final line without a
 * newline counts; a trailing CR is not part of a line.
 */
export class LineMatcher {
  /** Rows found so far, in file order. */
  readonly rows: MatchRow[] = [];
  /** Matching lines found so far. */
  matches = 0;
  readonly #o: LineMatcherOptions;
  readonly #carryLimit: number;
  // The first block is decoded with BOM removal (a file's BOM is not text); later ones keep it.
  readonly #firstDecoder = new TextDecoder();
  readonly #decoder = new TextDecoder("utf-8", { ignoreBOM: true });
  #decodedAny = false;
  #carry: Uint8Array[] = [];
  #carryBytes = 0;
  #long: LongLine | null = null;
  /** Number of the first line not yet processed, once `#settle()` has run. */
  #lineNo = 1;
  /** A processed block whose remaining LFs are not counted yet (often never needed). */
  #uncounted: string | null = null;
  #uncountedFrom = 0;
  #lastRow = 0;
  #after = 0;
  #done = false;
  /** The last `context` lines of earlier blocks, for before-context across chunk boundaries. */
  #kept: KeptLine[] = [];

  constructor(options: LineMatcherOptions) {
    this.#o = options;
    this.#carryLimit = options.maxChars * 4 + 4;
  }

  /** True once more input cannot change the rows (the cap and its after-context are reached). */
  get done(): boolean {
    return this.#done;
  }

  /**
   * Adds the first chunk of a file (its first `BINARY_SNIFF_BYTES` bytes at least, or all of it)
   * unless the file looks binary (`looksBinary`): then nothing is added and this returns false.
   * The check mostly reuses the decoded text: only a NUL byte decodes to U+0000.
   */
  pushFirst(bytes: Uint8Array): boolean {
    const sniff = Math.min(bytes.length, BINARY_SNIFF_BYTES);
    const last = bytes.lastIndexOf(0x0a);
    if (this.#decodedAny || this.#carryBytes > 0 || this.#long !== null || last + 1 < sniff) {
      if (looksBinary(bytes)) return false;
      this.push(bytes);
      return true;
    }
    const text = this.#decode(bytes.subarray(0, last + 1), false);
    // A U+0000 may come from a NUL past the first 8 KB of bytes: the bytes decide.
    if (text.indexOf("\0") !== -1 && looksBinary(bytes)) return false;
    this.#block(text, false);
    if (last + 1 < bytes.length) this.push(bytes.subarray(last + 1));
    return true;
  }

  /** Adds the next chunk of the file; `bytes` may be reused by the caller once this returns. */
  push(bytes: Uint8Array): void {
    let data = bytes;
    while (data.length > 0 && !this.#done) {
      if (this.#long !== null) {
        const nl = data.indexOf(0x0a);
        this.#extendLong(nl === -1 ? data : data.subarray(0, nl));
        if (nl === -1) return;
        this.#finishLong();
        data = data.subarray(nl + 1);
        continue;
      }
      const last = data.lastIndexOf(0x0a);
      if (last === -1) {
        this.#addCarry(data);
        return;
      }
      const block = data.subarray(0, last + 1);
      let text: string;
      if (this.#carryBytes === 0) {
        text = this.#decode(block, false);
      } else {
        let joined = "";
        for (const part of this.#carry) joined += this.#decode(part, true);
        text = joined + this.#decode(block, false);
        this.#carry = [];
        this.#carryBytes = 0;
      }
      this.#block(text, false);
      data = data.subarray(last + 1);
    }
  }

  /** Ends the input: the carried partial line, if any, is the file's last line. */
  end(): void {
    if (this.#done) return;
    if (this.#long !== null) {
      this.#finishLong();
      return;
    }
    if (this.#carryBytes === 0) return;
    let text = "";
    const parts = this.#carry;
    this.#carry = [];
    this.#carryBytes = 0;
    for (let i = 0; i < parts.length; i++) {
      text += this.#decode(parts[i] as Uint8Array, i < parts.length - 1);
    }
    this.#block(text, true);
  }

  #decode(bytes: Uint8Array, stream: boolean): string {
    const decoder = this.#decodedAny ? this.#decoder : this.#firstDecoder;
    const text = decoder.decode(bytes, { stream });
    // A streaming decode may hold back a partial BOM: switch decoders only once a call ends.
    if (!stream) this.#decodedAny = true;
    return text;
  }

  #addCarry(data: Uint8Array): void {
    this.#carry.push(data.slice());
    this.#carryBytes += data.length;
    if (this.#carryBytes <= this.#carryLimit) return;
    // The line is too long to keep whole: keep its head, count the rest.
    const parts = this.#carry;
    this.#carry = [];
    this.#carryBytes = 0;
    const decoder = this.#decodedAny
      ? new TextDecoder("utf-8", { ignoreBOM: true })
      : new TextDecoder();
    this.#decodedAny = true;
    const long: LongLine = { decoder, head: "", chars: 0, lastByte: -1 };
    let room = this.#carryLimit;
    for (const part of parts) {
      const keep = Math.min(room, part.length);
      room -= keep;
      if (keep > 0) long.head += decoder.decode(part.subarray(0, keep), { stream: true });
    }
    long.chars = long.head.length;
    this.#long = long;
    room = this.#carryLimit;
    for (const part of parts) {
      const skip = Math.min(room, part.length);
      room -= skip;
      this.#extendLong(part.subarray(skip));
    }
  }

  #extendLong(bytes: Uint8Array): void {
    const long = this.#long as LongLine;
    if (bytes.length === 0) return;
    long.chars += long.decoder.decode(bytes, { stream: true }).length;
    long.lastByte = bytes[bytes.length - 1] as number;
  }

  #finishLong(): void {
    const long = this.#long as LongLine;
    this.#long = null;
    long.chars += long.decoder.decode().length;
    const length = long.chars - (long.lastByte === 0x0d ? 1 : 0);
    const text = long.head.length > this.#o.maxChars
      ? long.head.slice(0, this.#o.maxChars)
      : long.head;
    this.#settle();
    const n = this.#lineNo++;
    const row = this.#line(text, length, n, null, 0);
    if (this.#o.context > 0) this.#keep([{ line: n, text: row ?? this.#fmt(text, length) }]);
  }

  /** Processes decoded complete lines (the last one may lack its LF only when `final`). */
  #block(text: string, final: boolean): void {
    const o = this.#o;
    const len = text.length;
    const finder = o.finder;
    let pos = 0;
    this.#settle();
    let n = this.#lineNo;
    // Lines over maxChars are tested on their head only, where `$` or `\b` can match at the cut
    // although the finder sees no match in the whole line: such lines are always tested. Only a
    // block longer than maxChars can hold one.
    const checkLong = finder !== null && len > o.maxChars;
    let nextLong = -1;
    // Line number bookkeeping: `n` is the number of the line starting at `pos`.
    while (pos < len && !this.#done) {
      if (this.#after === 0) {
        if (this.matches >= o.cap) {
          this.#done = true;
          break;
        }
        if (finder !== null) {
          finder.lastIndex = pos;
          const m = finder.exec(text);
          const p = m === null ? len : m.index;
          let start = p === 0 ? 0 : text.lastIndexOf("\n", p - 1) + 1;
          if (m === null) start = len;
          if (checkLong) {
            if (nextLong < pos) nextLong = nextLongLine(text, pos, o.maxChars);
            if (nextLong < start) start = nextLong;
          }
          if (start >= len) break; // no candidate, or an empty match after the last LF
          for (
            let i = text.indexOf("\n", pos);
            i !== -1 && i < start;
            i = text.indexOf("\n", i + 1)
          ) {
            n++;
          }
          pos = start;
        }
      }
      const nl = text.indexOf("\n", pos);
      const end = nl === -1 ? len : nl;
      const raw = end > pos && text.charCodeAt(end - 1) === 0x0d
        ? text.slice(pos, end - 1)
        : text.slice(pos, end);
      const scanned = raw.length > o.maxChars ? raw.slice(0, o.maxChars) : raw;
      this.#line(scanned, raw.length, n, text, pos);
      pos = end + 1;
      n++;
    }
    if (final || this.#done) return;
    this.#lineNo = n;
    // The lines left after the last candidate are counted only if a later chunk needs numbers.
    if (pos < len) {
      this.#uncounted = text;
      this.#uncountedFrom = pos;
    }
    if (o.context > 0) {
      this.#settle();
      this.#keepTail(text, this.#lineNo);
    }
  }

  /** Counts the lines of the last block that were skipped without a candidate. */
  #settle(): void {
    const text = this.#uncounted;
    if (text === null) return;
    this.#uncounted = null;
    let n = this.#lineNo;
    for (let i = text.indexOf("\n", this.#uncountedFrom); i !== -1; i = text.indexOf("\n", i + 1)) {
      n++;
    }
    this.#lineNo = n;
  }

  /**
   * Tests one line and records it as a match or after-context row; returns the row text when a
   * row was added. `text`/`start` locate the line in its block for before-context lookups.
   */
  #line(
    scanned: string,
    length: number,
    n: number,
    block: string | null,
    start: number,
  ): string | null {
    const o = this.#o;
    const isMatch = this.matches < o.cap && o.line.test(scanned);
    if (isMatch) {
      const before = o.context > 0 ? this.#before(block, start, n) : [];
      const firstLine = before[0]?.line ?? n;
      if (o.context > 0 && this.#lastRow > 0 && firstLine > this.#lastRow + 1) {
        this.rows.push({ kind: "sep" });
      }
      for (const b of before) this.rows.push({ kind: "context", line: b.line, text: b.text });
      const row = this.#fmt(scanned, length);
      this.rows.push({ kind: "match", line: n, text: row });
      this.matches++;
      this.#lastRow = n;
      this.#after = o.context;
      return row;
    }
    if (this.#after > 0) {
      const row = this.#fmt(scanned, length);
      this.rows.push({ kind: "context", line: n, text: row });
      this.#lastRow = n;
      this.#after--;
      return row;
    }
    return null;
  }

  /** The before-context of line `n`: lines after the last row, at most `context` of them. */
  #before(block: string | null, start: number, n: number): KeptLine[] {
    const first = Math.max(this.#lastRow + 1, n - this.#o.context, 1);
    const out: KeptLine[] = [];
    let ln = n - 1;
    if (block !== null) {
      let end = start - 1; // the LF that ends line `ln`
      while (ln >= first && end >= 0) {
        const s = end === 0 ? 0 : block.lastIndexOf("\n", end - 1) + 1;
        out.push({ line: ln, text: this.#fmtSlice(block, s, end) });
        ln--;
        end = s - 1;
      }
    }
    for (let i = this.#kept.length - 1; i >= 0 && ln >= first; i--) {
      const k = this.#kept[i] as KeptLine;
      if (k.line === ln) {
        out.push(k);
        ln--;
      }
    }
    return out.reverse();
  }

  /** Remembers the last `context` lines of a processed block (which ends with LF). */
  #keepTail(block: string, next: number): void {
    const lines: KeptLine[] = [];
    let end = block.length - 1;
    let ln = next - 1;
    while (lines.length < this.#o.context && end >= 0 && ln > this.#lastRow) {
      const s = end === 0 ? 0 : block.lastIndexOf("\n", end - 1) + 1;
      lines.push({ line: ln, text: this.#fmtSlice(block, s, end) });
      ln--;
      end = s - 1;
    }
    this.#keep(lines.reverse());
  }

  #keep(lines: KeptLine[]): void {
    const all = lines.length >= this.#o.context ? lines : [...this.#kept, ...lines];
    this.#kept = all.slice(-this.#o.context);
  }

  #fmtSlice(block: string, start: number, end: number): string {
    const raw = end > start && block.charCodeAt(end - 1) === 0x0d
      ? block.slice(start, end - 1)
      : block.slice(start, end);
    const scanned = raw.length > this.#o.maxChars ? raw.slice(0, this.#o.maxChars) : raw;
    return this.#fmt(scanned, raw.length);
  }

  #fmt(text: string, length: number): string {
    return detach(this.#o.format(text, length));
  }
}

/** Start of the first line at or after `from` longer than `maxChars` (CR excluded), or the end. */
function nextLongLine(text: string, from: number, maxChars: number): number {
  const len = text.length;
  let start = from;
  while (start < len) {
    const nl = text.indexOf("\n", start);
    const end = nl === -1 ? len : nl;
    const length = end - start - (end > start && text.charCodeAt(end - 1) === 0x0d ? 1 : 0);
    if (length > maxChars) return start;
    start = end + 1;
  }
  return len;
}

/**
 * A flat copy of `text`, so that a row does not keep the whole decoded block it was sliced from
 * alive (V8 slices share their parent string's memory).
 */
function detach(text: string): string {
  if (text.length < 16) return text;
  const joined = ` ${text}`;
  joined.charCodeAt(1); // flattens the concatenation into a fresh string
  return joined.slice(1);
}
