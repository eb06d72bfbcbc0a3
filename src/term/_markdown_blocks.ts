/**
 * Markdown tokens (from marked's lexer) as terminal lines: inline styles, wrapping to a width,
 * lists, quotes, tables and highlighted code blocks.
 */
import type { Token, Tokens } from "marked";
import { escapeControls } from "./terminal_text.ts";
import { highlightCode } from "./_markdown_code.ts";
import { type MarkdownStyles, pad, wrapStyled } from "./_markdown_style.ts";
import { displayWidth } from "./wrap.ts";

/** What a block is rendered with. */
export interface BlockContext {
  readonly width: number;
  readonly styles: MarkdownStyles;
}

/** Inline tokens as one styled string (hard breaks as "\n"). */
function renderInline(tokens: readonly Token[] | undefined, s: MarkdownStyles): string {
  return (tokens ?? []).map((t) => inlineToken(t, s)).join("");
}

function inlineToken(token: Token, s: MarkdownStyles): string {
  const t = token as Tokens.Generic;
  switch (t.type) {
    case "strong":
      return s.strong(renderInline(t.tokens, s));
    case "em":
      return s.em(renderInline(t.tokens, s));
    case "del":
      return s.strike(renderInline(t.tokens, s));
    case "codespan":
      return s.code(s.color ? safe(t.text) : `\`${safe(t.text)}\``);
    case "br":
      return "\n";
    case "link": {
      const text = renderInline(t.tokens, s);
      const href = safe(t.href);
      return href === "" || href === safe(t.text)
        ? s.link(text)
        : `${s.link(text)} ${s.dim(`(${href})`)}`;
    }
    case "image":
      return s.dim(`[image: ${safe(t.text || t.href)}]`);
    case "checkbox":
      return "";
    case "text":
      return t.tokens ? renderInline(t.tokens, s) : safe(decodeEntities(String(t.text)));
    case "escape":
      return safe(t.text);
    default:
      return safe(t.raw ?? t.text);
  }
}

// What marked made of the text, made safe again: the lexer decodes character references, so
// "&#27;" in a model's answer would otherwise reach the terminal as ESC.
function safe(text: unknown): string {
  return escapeControls(typeof text === "string" ? text : "");
}

const ENTITIES: Record<string, string> = {
  "&amp;": "&",
  "&lt;": "<",
  "&gt;": ">",
  "&quot;": '"',
  "&#39;": "'",
};

// The few named entities models write; numeric ones stay as written (one could name a control).
function decodeEntities(text: string): string {
  return text.replace(/&(?:amp|lt|gt|quot|#39);/g, (e) => ENTITIES[e] ?? e);
}

/** Top-level or nested block tokens as lines, one blank line between blocks. */
export function renderBlocks(tokens: readonly Token[], ctx: BlockContext): string[] {
  const out: string[] = [];
  for (const token of tokens) {
    if (token.type === "space") continue;
    const lines = renderBlock(token, ctx);
    if (out.length > 0 && lines.length > 0) out.push("");
    out.push(...lines);
  }
  return out;
}

/** One block token as lines. */
export function renderBlock(token: Token, ctx: BlockContext): string[] {
  const t = token as Tokens.Generic;
  const s = ctx.styles;
  switch (t.type) {
    case "heading": {
      const marks = s.color ? "" : `${"#".repeat(Number(t.depth))} `;
      return wrapStyled(s.heading(marks + renderInline(t.tokens, s)), ctx.width);
    }
    case "paragraph":
      return wrapStyled(renderInline(t.tokens, s), ctx.width);
    case "text":
      return wrapStyled(t.tokens ? renderInline(t.tokens, s) : safe(t.text), ctx.width);
    case "code":
      return codeBlock(t as Tokens.Code, ctx);
    case "blockquote":
      return renderBlocks(t.tokens ?? [], { ...ctx, width: ctx.width - 2 })
        .map((line) => `${s.dim("│")} ${line}`);
    case "list":
      return listBlock(t as Tokens.List, ctx);
    case "table":
      return tableBlock(t as Tokens.Table, ctx);
    case "hr":
      return [s.dim("─".repeat(Math.max(1, Math.min(ctx.width, 40))))];
    default:
      return wrapStyled(safe(t.raw).replace(/\n+$/, ""), ctx.width);
  }
}

function codeBlock(t: Tokens.Code, ctx: BlockContext): string[] {
  const s = ctx.styles;
  const lang = safe(t.lang);
  const fence = t.codeBlockStyle === "indented" ? "" : "```";
  const lines = highlightCode(safe(t.text).replaceAll("\t", "  "), lang, s.color);
  if (fence === "") return lines.map((line) => `    ${line}`);
  return [s.dim(fence + lang), ...lines, s.dim(fence)];
}

function listBlock(t: Tokens.List, ctx: BlockContext): string[] {
  return t.items.flatMap((_, i) => listItemLines(t, i, ctx));
}

/**
 * The lines of item `i` of a list, with the blank line before it when the source has one. An
 * item's lines depend on nothing after it, so a stream can write the items a list has so far.
 */
export function listItemLines(t: Tokens.List, i: number, ctx: BlockContext): string[] {
  const s = ctx.styles;
  const item = t.items[i];
  if (item === undefined) return [];
  const start = typeof t.start === "number" ? t.start : 1;
  const bullet = t.ordered ? `${start + i}.` : "•";
  const marker = item.task ? `${bullet} ${item.checked ? "[x]" : "[ ]"}` : bullet;
  const indent = marker.length + 1;
  const body = itemBody(item.tokens, { ...ctx, width: ctx.width - indent });
  const lines = body.map((line, j) =>
    line === "" ? "" : (j === 0 ? s.bullet(marker) + " " : " ".repeat(indent)) + line
  );
  if (lines.length === 0) lines.push(s.bullet(marker));
  const gap = i > 0 && /\n[ \t]*\n$/.test(t.items[i - 1]?.raw ?? "");
  return gap ? ["", ...lines] : lines;
}

// An item's blocks, a blank line between two only where the source has one.
function itemBody(tokens: readonly Token[], ctx: BlockContext): string[] {
  const out: string[] = [];
  let gap = false;
  for (const token of tokens) {
    if (token.type === "checkbox") continue;
    if (token.type === "space") {
      gap = true;
      continue;
    }
    if (gap && out.length > 0) out.push("");
    out.push(...renderBlock(token, ctx));
    gap = false;
  }
  return out;
}

function tableBlock(t: Tokens.Table, ctx: BlockContext): string[] {
  const s = ctx.styles;
  const header = t.header.map((cell) => s.strong(renderInline(cell.tokens, s)));
  const rows = t.rows.map((row) => row.map((cell) => renderInline(cell.tokens, s)));
  const columns = header.length;
  const natural = header.map((h, c) =>
    Math.max(1, displayWidth(h), ...rows.map((r) => displayWidth(r[c] ?? "")))
  );
  const widths = fitColumns(natural, ctx.width - 3 * (columns - 1));
  const align = (c: number) => t.align[c] ?? "left";
  const line = (cells: readonly string[]): string[] => {
    const wrapped = widths.map((w, c) => wrapStyled(cells[c] ?? "", w));
    const height = Math.max(...wrapped.map((w) => w.length));
    return Array.from(
      { length: height },
      (_, i) =>
        wrapped.map((w, c) => pad(w[i] ?? "", widths[c] ?? 1, align(c))).join(s.dim(" │ "))
          .trimEnd(),
    );
  };
  const rule = s.dim(widths.map((w) => "─".repeat(w)).join("─┼─"));
  return [...line(header), rule, ...rows.flatMap(line)];
}

// Column widths that fit `room`: the widest columns give up space first, none below 3.
function fitColumns(natural: readonly number[], room: number): number[] {
  const widths = [...natural];
  let total = widths.reduce((a, b) => a + b, 0);
  while (total > room) {
    const max = Math.max(...widths);
    if (max <= 3) break;
    const i = widths.indexOf(max);
    widths[i] = max - 1;
    total--;
  }
  return widths;
}
