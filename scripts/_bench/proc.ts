/** Linux /proc readers: peak RSS (VmHWM), process trees, machine facts. */

/** One line of /proc/<pid>/stat that the bench cares about. */
export interface ProcInfo {
  pid: number;
  ppid: number;
  /** One-letter state; "Z" (zombie) and "X" (dead) mean the process no longer runs. */
  state: string;
  comm: string;
}

/** Reads a `kB` field (VmHWM, VmRSS, …) of /proc/<pid>/status; null when gone or absent. */
export function statusKb(
  pid: number | "self",
  field: "VmHWM" | "VmRSS" | "RssFile" | "RssAnon",
): number | null {
  let text: string;
  try {
    text = Deno.readTextFileSync(`/proc/${pid}/status`);
  } catch {
    return null;
  }
  const m = text.match(new RegExp(`^${field}:\\s+(\\d+) kB`, "m"));
  return m ? Number(m[1]) : null;
}

/** Resets this process's peak RSS (VmHWM) to its current RSS (Linux ≥ 4.0). */
export function resetPeakRss(): boolean {
  try {
    Deno.writeTextFileSync("/proc/self/clear_refs", "5");
    return true;
  } catch {
    return false;
  }
}

/** Parses /proc/<pid>/stat; null when the process is gone. */
export function procInfo(pid: number): ProcInfo | null {
  let text: string;
  try {
    text = Deno.readTextFileSync(`/proc/${pid}/stat`);
  } catch {
    return null;
  }
  const open = text.indexOf("(");
  const close = text.lastIndexOf(")");
  if (open < 0 || close < 0) return null;
  const rest = text.slice(close + 2).split(" ");
  return {
    pid,
    ppid: Number(rest[1]),
    state: rest[0] ?? "?",
    comm: text.slice(open + 1, close),
  };
}

/** Every process visible in /proc. */
function listProcs(): ProcInfo[] {
  const out: ProcInfo[] = [];
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    const info = procInfo(Number(entry.name));
    if (info) out.push(info);
  }
  return out;
}

/** The command line of a process (NUL-separated argv joined by spaces); null when gone. */
export function cmdline(pid: number): string | null {
  try {
    return Deno.readTextFileSync(`/proc/${pid}/cmdline`).replaceAll("\0", " ").trim();
  } catch {
    return null;
  }
}

/** Pids of every live (non-zombie) process below `root` (not including it). */
export function descendants(root: number, procs: ProcInfo[] = listProcs()): number[] {
  const children = new Map<number, number[]>();
  for (const p of procs) {
    if (p.state === "Z" || p.state === "X") continue;
    const list = children.get(p.ppid) ?? [];
    list.push(p.pid);
    children.set(p.ppid, list);
  }
  const out: number[] = [];
  const stack = [root];
  while (stack.length > 0) {
    const pid = stack.pop() as number;
    for (const c of children.get(pid) ?? []) {
      out.push(c);
      stack.push(c);
    }
  }
  return out;
}

/** Peak RSS seen for one process of a sampled tree. */
export interface ProcessPeak {
  pid: number;
  comm: string;
  cmdline: string;
  hwmKb: number;
}

/**
 * Samples VmHWM of a process and all its descendants every `intervalMs` until stopped. VmHWM is
 * the kernel's own high-water mark, so sampling only has to catch each process once before it
 * exits; the last sample before exit is what is reported.
 */
export class TreePeakSampler {
  readonly #peaks = new Map<number, ProcessPeak>();
  readonly #root: number;
  #timer: ReturnType<typeof setInterval> | undefined;

  constructor(root: number, intervalMs = 25) {
    this.#root = root;
    this.sample();
    this.#timer = setInterval(() => this.sample(), intervalMs);
  }

  /** Takes one sample now (also called on the timer). */
  sample(): void {
    for (const pid of [this.#root, ...descendants(this.#root)]) {
      const hwm = statusKb(pid, "VmHWM");
      if (hwm === null) continue;
      const prev = this.#peaks.get(pid);
      if (prev) {
        prev.hwmKb = Math.max(prev.hwmKb, hwm);
        continue;
      }
      this.#peaks.set(pid, {
        pid,
        comm: procInfo(pid)?.comm ?? "?",
        cmdline: cmdline(pid) ?? "",
        hwmKb: hwm,
      });
    }
  }

  /** Stops sampling and returns the peak of every process seen. */
  stop(): ProcessPeak[] {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
    return [...this.#peaks.values()];
  }
}

/** Facts about the machine for the table header. */
export function machineFacts(): { cores: number; memGiB: number; cpu: string; kernel: string } {
  let memGiB = NaN;
  let cpu = "unknown CPU";
  try {
    const m = Deno.readTextFileSync("/proc/meminfo").match(/^MemTotal:\s+(\d+) kB/m);
    if (m) memGiB = Number(m[1]) / 1024 / 1024;
  } catch { /* not Linux */ }
  try {
    const m = Deno.readTextFileSync("/proc/cpuinfo").match(/^model name\s*:\s*(.+)$/m);
    if (m?.[1]) cpu = m[1].trim();
  } catch { /* not Linux */ }
  return { cores: navigator.hardwareConcurrency, memGiB, cpu, kernel: Deno.osRelease() };
}
