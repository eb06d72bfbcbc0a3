/**
 * Reading a connection ahead for parsing a handshake (SOCKS5 greetings, HTTP request heads) in
 * bash's network proxy, and HTTP heads as text with one character per byte.
 */
import type { NetConn } from "../ops.ts";

/** `bytes` as text with one character per byte (reversible, whatever the bytes are). */
export function binaryText(bytes: Uint8Array): string {
  let text = "";
  for (let i = 0; i < bytes.length; i += 8192) {
    text += String.fromCharCode(...bytes.subarray(i, i + 8192));
  }
  return text;
}

/** The bytes of a text made by `binaryText` (one byte per character). */
export function binaryBytes(text: string): Uint8Array {
  return Uint8Array.from(text, (c) => c.charCodeAt(0) & 0xff);
}

/** Reads a connection ahead into a buffer, for parsing a handshake. */
export class BufferedInput {
  #conn: NetConn;
  #buffer = new Uint8Array(0);

  constructor(conn: NetConn) {
    this.#conn = conn;
  }

  /** What has been read and not taken yet. */
  get bytes(): Uint8Array {
    return this.#buffer;
  }

  /** Reads until at least `n` bytes are buffered; false when the stream ends first. */
  async fill(n: number): Promise<boolean> {
    while (this.#buffer.length < n) {
      const chunk = new Uint8Array(Math.max(4096, n - this.#buffer.length));
      const got = await this.#conn.read(chunk);
      if (got === null) return false;
      const next = new Uint8Array(this.#buffer.length + got);
      next.set(this.#buffer);
      next.set(chunk.subarray(0, got), this.#buffer.length);
      this.#buffer = next;
    }
    return true;
  }

  /** Reads until `marker` is buffered within `max` bytes; the offset after it, or undefined. */
  async until(marker: Uint8Array, max: number): Promise<number | undefined> {
    let from = 0;
    for (;;) {
      const at = indexOf(this.#buffer, marker, from);
      if (at !== -1 && at + marker.length <= max) return at + marker.length;
      if (this.#buffer.length >= max) return undefined;
      from = Math.max(0, this.#buffer.length - marker.length + 1);
      if (!await this.fill(this.#buffer.length + 1)) return undefined;
    }
  }

  /** Removes and returns the first `n` buffered bytes. */
  take(n: number): Uint8Array {
    const out = this.#buffer.slice(0, n);
    this.#buffer = this.#buffer.slice(n);
    return out;
  }

  /** Removes and returns everything buffered. */
  rest(): Uint8Array {
    return this.take(this.#buffer.length);
  }
}

function indexOf(haystack: Uint8Array, needle: Uint8Array, from: number): number {
  outer: for (let i = from; i + needle.length <= haystack.length; i++) {
    for (let j = 0; j < needle.length; j++) {
      if (haystack[i + j] !== needle[j]) continue outer;
    }
    return i;
  }
  return -1;
}
