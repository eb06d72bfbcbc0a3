/** Shared helpers for tool tests: calling a tool, a tiny real PNG, watching processes. */
import type { AnyTool, ToolOutput } from "../../src/agent/tool.ts";

/** Runs a tool's execute with a fresh signal and a no-op context. */
export function call(tool: AnyTool, args: unknown, signal?: AbortSignal): Promise<ToolOutput> {
  return tool.execute(args, signal ?? new AbortController().signal, {
    toolCallId: "call-1",
    onUpdate: () => {},
  });
}

function crc32(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const b of bytes) {
    crc ^= b;
    for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + data.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, data.length);
  out.set(new TextEncoder().encode(type), 4);
  out.set(data, 8);
  view.setUint32(8 + data.length, crc32(out.subarray(4, 8 + data.length)));
  return out;
}

/** A valid 1×1 RGB PNG, built from scratch (zlib via CompressionStream). */
export async function tinyPng(): Promise<Uint8Array> {
  const ihdr = new Uint8Array(13);
  const v = new DataView(ihdr.buffer);
  v.setUint32(0, 1);
  v.setUint32(4, 1);
  ihdr.set([8, 2, 0, 0, 0], 8);
  const raw = new Uint8Array([0, 255, 0, 0]); // filter byte + one red pixel
  const zipped = new Uint8Array(
    await new Response(
      new Blob([raw]).stream().pipeThrough(new CompressionStream("deflate")),
    ).arrayBuffer(),
  );
  const parts = [
    new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", ihdr),
    chunk("IDAT", zipped),
    chunk("IEND", new Uint8Array(0)),
  ];
  return concatBytes(parts);
}

/** The bytes of `parts`, one after the other. */
export function concatBytes(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** True while `pid` exists and is not a zombie. */
export function isAlive(pid: number): boolean {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
    return state !== "Z" && state !== "X";
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return false;
    throw e;
  }
}

/** Waits up to 1 s for SIGKILLed processes to disappear, then returns those still alive. */
export async function survivors(pids: number[]): Promise<number[]> {
  for (let i = 0; i < 50 && pids.some(isAlive); i++) await new Promise((r) => setTimeout(r, 20));
  return pids.filter(isAlive);
}

/** "line 1\nline 2\n…" with `n` lines and a trailing newline. */
export function numberedLines(n: number, prefix = "line "): string {
  return Array.from({ length: n }, (_, i) => `${prefix}${i + 1}\n`).join("");
}

/** A small seeded pseudo-random generator (mulberry32): the same sequence for the same seed. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
