/** Summary statistics for benchmark samples: median, min, max and percentiles. */

/** A summary of repeated samples of one quantity. */
export interface Stat {
  median: number;
  min: number;
  max: number;
  /** Number of samples. */
  n: number;
}

/** Nearest-rank percentile (p in 0..100) of unsorted samples. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) throw new RangeError("percentile() needs at least one sample");
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))] as number;
}

/** Median (mean of the two middle values for an even count). */
export function median(samples: readonly number[]): number {
  if (samples.length === 0) throw new RangeError("median() needs at least one sample");
  const sorted = [...samples].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? sorted[mid] as number
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** Median, min and max of the samples. */
export function summarize(samples: readonly number[]): Stat {
  if (samples.length === 0) throw new RangeError("summarize() needs at least one sample");
  return {
    median: median(samples),
    min: Math.min(...samples),
    max: Math.max(...samples),
    n: samples.length,
  };
}
