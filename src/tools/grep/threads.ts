/**
 * grep's helper threads: the messages between a grep call and the threads that scan its files,
 * what an entry point implements to start them, and the loop each thread runs over the file
 * operations its entry point built (the same as the calling thread's, under the same permissions).
 */
import type { FsOps } from "../ops.ts";
import type { MatchRow } from "./line_matcher.ts";
import { compileSearch, type Search, type SearchSpec } from "./pattern.ts";
import { scanWalkedFileSync } from "./scan.ts";

/** What a grep call sends a helper thread: its search once, then batches of walked files. */
export type ThreadRequest =
  | { type: "search"; spec: SearchSpec; cap: number; chunkBytes: number }
  | { type: "batch"; id: number; paths: string[] };

/** One file's outcome from a helper thread: its rows, "binary", or null (no match, unreadable). */
export type ThreadOutcome = { rows: MatchRow[]; matches: number } | "binary" | null;

/** What a helper thread answers: a batch's outcomes in the batch's order, or why it cannot. */
export type ThreadReply =
  | { type: "batch"; id: number; outcomes: ThreadOutcome[] }
  | { type: "failed"; message: string };

/** One started helper thread (a Worker fits). */
export interface ScanThread {
  postMessage(message: ThreadRequest): void;
  onmessage: ((event: MessageEvent) => void) | null;
  /** A failure the thread did not handle: the caller cancels it (`preventDefault`) and stops. */
  onerror: ((event: ErrorEvent) => void) | null;
  terminate(): void;
}

/**
 * Starts grep's helper threads. Each must read through the same file operations (deny lists,
 * race checks) and hold no more permissions than the thread that starts it.
 */
export interface ScanThreads {
  /** Helper threads one grep call may start. */
  readonly size: number;
  /**
   * Files the walk must have found before they start (default 1000: a thread takes tens of
   * milliseconds to start, more than a small tree takes to scan).
   */
  readonly minFiles?: number;
  /** Starts one helper thread. */
  start(): ScanThread;
}

/** The port a helper thread serves on (its Worker's global scope). */
export interface ThreadPort {
  onmessage: ((event: MessageEvent) => void) | null;
  postMessage(message: ThreadReply): void;
}

/**
 * Serves grep's requests on `port`, reading the files through `fs` (which must have
 * `openWalkedFileSync`). Failures are answered with a "failed" reply, never thrown: the grep
 * call then scans that thread's files itself.
 */
export function serveScanThread(port: ThreadPort, fs: FsOps): void {
  const openSync = fs.openWalkedFileSync?.bind(fs);
  let job: { search: Search; cap: number; buf: Uint8Array } | null = null;
  port.onmessage = (event) => {
    const msg = event.data as ThreadRequest;
    try {
      if (msg.type === "search") {
        job = {
          search: compileSearch(msg.spec),
          cap: msg.cap,
          buf: new Uint8Array(msg.chunkBytes),
        };
        return;
      }
      if (job === null) throw new Error("no search was set before the first batch");
      if (openSync === undefined) throw new Error("these file operations cannot scan here");
      const { search, cap, buf } = job;
      const outcomes = msg.paths.map((path): ThreadOutcome => {
        const r = scanWalkedFileSync(path, { openSync, buf, rel: "", search, cap });
        return r === null || r === "binary" ? r : { rows: r.rows, matches: r.matches };
      });
      port.postMessage({ type: "batch", id: msg.id, outcomes });
    } catch (e) {
      // The thread boundary: whatever went wrong, the caller must hear of it to take over.
      port.postMessage({ type: "failed", message: e instanceof Error ? e.message : String(e) });
    }
  };
}
