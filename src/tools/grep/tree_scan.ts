/**
 * Scanning a walked tree for grep: files go in batches to helper threads when the entry point
 * provides them and the tree is big enough, else (and whenever a thread fails, and once the walk
 * is done and the threads are busy) to the calling thread. Outcomes are handed on strictly in walk
 * order, so the output is the same however the work was split.
 */
import type { FsOps } from "../ops.ts";
import type { PlaceholderFilter } from "../placeholders.ts";
import { walkTreeBatches } from "../walk.ts";
import type { SearchSpec } from "./pattern.ts";
import type { ScanOutcome } from "./scan.ts";
import type { ScanThread, ScanThreads, ThreadReply } from "./threads.ts";

/** Files per batch: small enough to share the tail of a walk, big enough to amortise messages. */
const BATCH_FILES = 64;
/** Batches a helper thread holds at once (queued in its inbox while it works). */
const MAX_IN_FLIGHT = 4;
/** Helper threads start once the walk has found this many files, by default (see ScanThreads). */
const MIN_FILES_FOR_THREADS = 1000;
/** While threads work, the walk gives the event loop a turn this often so their replies land. */
const THREAD_TURN_MS = 1;

/** What `scanTree` needs. */
export interface TreeScanOptions {
  fs: FsOps;
  /** The real directory to search. */
  root: string;
  /** Directories above `root` whose ignore files apply (see `walkTree`). */
  ancestors: string[];
  /** Only files whose walk-relative path this accepts are searched. */
  glob: ((rel: string) => boolean) | null;
  signal: AbortSignal;
  /** Gives the event loop a turn when due (the calling thread's scans and walk are synchronous). */
  pace: () => Promise<void> | undefined;
  /** The sandbox's placeholders, skipped while unused (see `walkTree`). */
  hidden?: PlaceholderFilter;
  /** Scans one file on the calling thread. */
  scanHere: (path: string, rel: string) => Promise<ScanOutcome>;
  /** Files the calling thread scans at the same time. */
  width: number;
  /** Helper threads, when the entry point provides them. */
  threads?: ScanThreads | undefined;
  /** The search as the helper threads get it. */
  request: { spec: SearchSpec; cap: number; chunkBytes: number };
  /** Takes each outcome in walk order; returns true to end the search. */
  consume: (outcome: ScanOutcome) => boolean;
}

interface Batch {
  id: number;
  paths: string[];
  rels: string[];
  outcomes: ScanOutcome[] | null;
  helper: Helper | null;
}

interface Helper {
  thread: ScanThread;
  inFlight: number;
  dead: boolean;
}

/**
 * Walks `root` and scans its files (see the module doc); resolves once done or stopped, to the
 * number of helper threads it started.
 */
export async function scanTree(options: TreeScanOptions): Promise<number> {
  const { signal } = options;
  const threads = options.threads !== undefined && options.threads.size > 0
    ? options.threads
    : undefined;
  const batches: Batch[] = []; // formed and not yet consumed, in walk order
  const waiting: Batch[] = []; // formed and not yet given to anyone, in walk order
  const byId = new Map<number, Batch>();
  const helpers: Helper[] = [];
  let pending: string[] = [];
  let pendingRels: string[] = [];
  let found = 0;
  let nextId = 0;
  let stopped = false;
  let wake: (() => void) | null = null;
  const notify = () => {
    const w = wake;
    wake = null;
    w?.();
  };
  const turn = macrotaskTurn();
  signal.addEventListener("abort", notify);

  const alive = () => helpers.some((h) => !h.dead);
  const form = (count: number) => {
    const batch: Batch = {
      id: nextId++,
      paths: pending.slice(0, count),
      rels: pendingRels.slice(0, count),
      outcomes: null,
      helper: null,
    };
    pending = pending.slice(count);
    pendingRels = pendingRels.slice(count);
    batches.push(batch);
    waiting.push(batch);
  };
  const dispatch = () => {
    for (const h of helpers) {
      while (!h.dead && h.inFlight < MAX_IN_FLIGHT && waiting.length > 0) {
        const batch = waiting.shift() as Batch;
        batch.helper = h;
        h.inFlight++;
        byId.set(batch.id, batch);
        h.thread.postMessage({ type: "batch", id: batch.id, paths: batch.paths });
      }
    }
  };
  const fail = (h: Helper) => {
    if (h.dead) return;
    h.dead = true;
    h.thread.terminate();
    // Its unanswered batches go back to the front of the queue, in walk order.
    const lost = batches.filter((b) => b.helper === h && b.outcomes === null);
    for (const b of lost) {
      b.helper = null;
      byId.delete(b.id);
    }
    waiting.unshift(...lost);
    dispatch();
    notify();
  };
  const startHelpers = (threads: ScanThreads) => {
    for (let i = 0; i < threads.size; i++) {
      const h: Helper = { thread: threads.start(), inFlight: 0, dead: false };
      h.thread.onmessage = (event) => {
        const reply = event.data as ThreadReply;
        if (reply.type === "failed") return fail(h);
        const batch = byId.get(reply.id);
        if (batch === undefined || h.dead) return;
        byId.delete(reply.id);
        h.inFlight--;
        batch.outcomes = reply.outcomes.map((o, k) =>
          o === null || o === "binary" ? o : { rel: batch.rels[k] as string, ...o }
        );
        dispatch();
        notify();
      };
      h.thread.onerror = (event) => {
        event.preventDefault();
        fail(h);
      };
      h.thread.postMessage({ type: "search", ...options.request });
      helpers.push(h);
    }
  };
  /** The calling thread scans a batch (`width` files at a time). */
  const runHere = async (batch: Batch) => {
    const outcomes: ScanOutcome[] = new Array(batch.paths.length);
    let next = 0;
    const lane = async () => {
      while (next < batch.paths.length && !stopped && !signal.aborted) {
        const k = next++;
        outcomes[k] = await options.scanHere(batch.paths[k] as string, batch.rels[k] as string);
      }
    };
    await Promise.all(Array.from({ length: Math.min(options.width, batch.paths.length) }, lane));
    batch.outcomes = outcomes;
  };
  /** Hands finished batches on in order; true once the search should end. */
  const drain = (): boolean => {
    // An aborted batch may be incomplete: nothing more is handed on.
    if (signal.aborted) return true;
    while (!stopped && batches.length > 0 && (batches[0] as Batch).outcomes !== null) {
      const batch = batches.shift() as Batch;
      for (const outcome of batch.outcomes as ScanOutcome[]) {
        if (options.consume(outcome)) {
          stopped = true;
          break;
        }
      }
    }
    return stopped;
  };
  let lastTurn = performance.now();
  const pace = async () => {
    if (helpers.length > 0 && performance.now() - lastTurn >= THREAD_TURN_MS) {
      await turn.next();
      lastTurn = performance.now();
    }
    await options.pace();
  };

  try {
    const walker = walkTreeBatches(options.fs, options.root, {
      ancestors: options.ancestors,
      signal,
      pace,
      ...(options.hidden === undefined ? {} : { hidden: options.hidden }),
    });
    for await (const entries of walker) {
      for (const entry of entries) {
        if (!entry.isFile) continue; // symlinks are not followed, like ripgrep
        if (options.glob !== null && !options.glob(entry.rel)) continue;
        pending.push(entry.path);
        pendingRels.push(entry.rel);
        found++;
      }
      const minFiles = threads?.minFiles ?? MIN_FILES_FOR_THREADS;
      if (threads !== undefined && helpers.length === 0 && found >= minFiles) {
        startHelpers(threads);
      }
      while (pending.length >= BATCH_FILES) form(BATCH_FILES);
      if (alive()) {
        dispatch();
      } else if (threads === undefined || helpers.length > 0) {
        // No helper threads (or none left): this thread scans as it walks.
        while (waiting.length > 0 && !drain()) await runHere(waiting.shift() as Batch);
      }
      if (drain()) break;
    }
    if (pending.length > 0 && !stopped) form(pending.length);
    while (!drain() && batches.length > 0) {
      dispatch();
      if (waiting.length > 0) {
        // Every thread is busy (or there are none): this thread takes the next batch itself,
        // then lets the threads' replies in so that they get more work.
        await runHere(waiting.shift() as Batch);
        if (alive()) await turn.next();
      } else {
        await new Promise<void>((resolve) => (wake = resolve));
      }
    }
  } finally {
    signal.removeEventListener("abort", notify);
    for (const h of helpers) {
      h.dead = true;
      h.thread.terminate();
    }
    turn.close();
  }
  return helpers.length;
}

/**
 * A turn of the event loop that lets other tasks (the threads' replies) run, without a timer's
 * minimum delay: a message to ourselves through a MessageChannel.
 */
function macrotaskTurn(): { next(): Promise<void>; close(): void } {
  let channel: MessageChannel | null = null;
  let resolve: (() => void) | null = null;
  return {
    next() {
      if (channel === null) {
        channel = new MessageChannel();
        channel.port1.onmessage = () => {
          const r = resolve;
          resolve = null;
          r?.();
        };
      }
      const port = channel.port2;
      return new Promise<void>((r) => {
        resolve = r;
        port.postMessage(null);
      });
    },
    close() {
      channel?.port1.close();
      channel?.port2.close();
    },
  };
}
