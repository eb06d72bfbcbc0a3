/** The benchmark table: rows of moat figures next to same-run baselines, printed as Markdown. */
import type { Stat } from "./stats.ts";

/** Units the table knows how to format. */
export type Unit = "ms" | "s" | "MB" | "KB" | "B" | "x";

/** One measured figure: a repeated-sample summary or a single value, with its unit. */
export type Figure = { stat: Stat; unit: Unit } | { value: number; unit: Unit } | { text: string };

/** One line of the table. `met` is undefined when the row has no target. */
export interface Row {
  /** Measure number from the bench issue (1–7). */
  id: number;
  measure: string;
  moat: Figure;
  baselineLabel?: string;
  baseline?: Figure;
  /** Ratio or difference against the baseline, already formatted. */
  compare?: string;
  target?: string;
  met?: boolean;
  /** Footnote printed under the table. */
  note?: string;
}

/** Formats a number in a unit with a precision that suits its size. */
export function formatValue(value: number, unit: Unit): string {
  if (!Number.isFinite(value)) return String(value);
  switch (unit) {
    case "ms":
    case "s":
    case "x": {
      const abs = Math.abs(value);
      const digits = abs < 10 ? 2 : abs < 100 ? 1 : 0;
      return unit === "x" ? `${value.toFixed(digits)}×` : `${value.toFixed(digits)} ${unit}`;
    }
    case "MB":
      return `${value.toFixed(1)} MB`;
    case "KB":
      return `${value.toFixed(1)} KB`;
    case "B":
      return `${Math.round(value)} B`;
  }
}

function formatNumber(value: number, unit: Unit): string {
  return formatValue(value, unit).replace(/ \S+$/, "").replace(/×$/, "");
}

/** Formats a figure as `median (min–max)` or a single value. */
export function formatFigure(figure: Figure | undefined): string {
  if (figure === undefined) return "—";
  if ("text" in figure) return figure.text;
  if ("value" in figure) return formatValue(figure.value, figure.unit);
  const { stat, unit } = figure;
  if (stat.n === 1) return formatValue(stat.median, unit);
  return `${formatValue(stat.median, unit)} (${formatNumber(stat.min, unit)}–${
    formatNumber(stat.max, unit)
  })`;
}

/** `a / b` formatted as a ratio, e.g. "1.84×". */
export function ratio(a: number, b: number): string {
  if (b === 0) return "—";
  return formatValue(a / b, "x");
}

/** `a - b` formatted with a sign, e.g. "+0.42 ms". */
export function difference(a: number, b: number, unit: Unit): string {
  const d = a - b;
  return `${d >= 0 ? "+" : "−"}${formatValue(Math.abs(d), unit)}`;
}

/** Header facts about the machine and run. */
export interface Header {
  title: string;
  lines: string[];
}

const COLUMNS = [
  "#",
  "Measure",
  "moat: median (min–max)",
  "Baseline",
  "Ratio / diff",
  "Target",
  "Met?",
];

function cell(text: string): string {
  return text.replaceAll("|", "\\|").replaceAll("\n", " ");
}

/** Renders the header, the table and its footnotes as Markdown with aligned columns. */
export function renderTable(header: Header, rows: readonly Row[]): string {
  const notes: string[] = [];
  const body = rows.map((row) => {
    let measure = row.measure;
    if (row.note !== undefined) {
      notes.push(row.note);
      measure += ` [${notes.length}]`;
    }
    const baseline = row.baseline === undefined
      ? (row.baselineLabel ?? "—")
      : `${formatFigure(row.baseline)}${row.baselineLabel ? ` — ${row.baselineLabel}` : ""}`;
    const marker = row.met === undefined ? "" : row.met ? "✓ met" : "✗ missed";
    return [
      String(row.id),
      measure,
      formatFigure(row.moat),
      baseline,
      row.compare ?? "—",
      row.target ?? "—",
      marker,
    ].map(cell);
  });
  const widths = COLUMNS.map((c, i) => Math.max(c.length, ...body.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) =>
    `| ${cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(" | ")} |`;
  const out: string[] = [`## ${header.title}`, "", ...header.lines.map((l) => `- ${l}`), ""];
  out.push(line(COLUMNS));
  out.push(`|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`);
  for (const r of body) out.push(line(r));
  if (notes.length > 0) {
    out.push("");
    notes.forEach((n, i) => out.push(`[${i + 1}] ${n}`));
  }
  const missed = rows.filter((r) => r.met === false).length;
  const met = rows.filter((r) => r.met === true).length;
  out.push("", `Targets: ${met} met, ${missed} missed.`);
  return out.join("\n") + "\n";
}
