/** Finding matching lines and their context in a stream of byte chunks with bounded memory. */
import { BINARY_SNIFF_BYTES, looksBinary } from "../lines.ts";
import { candidateSearch, detach, nextLongLine } from "./_text.ts";
import type { Needle } from "./pattern.ts";

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
  /**
   * A literal every line that `line` matches contains: candidates are found by it instead of
   * `finder` (a string search is much cheaper than a regex). Null or absent: `finder` decides.
   */
  needle?: Needle | null;
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
  /** Start of the next candidate at or after `from` in a block, or -1; null: test every line. */
  readonly #find: ((text: string, from: number) => number) | null;
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
    this.#find = candidateSearch(options.finder, options.needle ?? null);
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
    const find = this.#find;
    let pos = 0;
    this.#settle();
    let n = this.#lineNo;
    // Lines over maxChars are tested on their head only, where `$` or `\b` can match at the cut
    // although the finder sees no match in the whole line: such lines are always tested. Only a
    // block longer than maxChars can hold one.
    const checkLong = find !== null && len > o.maxChars;
    let nextLong = -1;
    // Line number bookkeeping: `n` is the number of the line starting at `pos`.
    while (pos < len && !this.#done) {
      if (this.#after === 0) {
        if (this.matches >= o.cap) {
          this.#done = true;
          break;
        }
        if (find !== null) {
          const p = find(text, pos);
          let start = p === -1 ? len : p === 0 ? 0 : text.lastIndexOf("\n", p - 1) + 1;
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
