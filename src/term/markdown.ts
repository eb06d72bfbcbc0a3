/**
 * Answers as people read them in a terminal: markdown (headings, emphasis, lists, quotes, tables,
 * code blocks with highlighting) parsed by marked's lexer and drawn with SGR styles, wrapped to a
 * width, whole or streamed block by block. The text is a model's: its control characters and
 * escape sequences are made visible before anything is styled, so only moat's own styles reach
 * the terminal. With colour off the output holds no escape byte. Import this module lazily (only
 * for an interactive session on a terminal): marked and highlight.js take some tens of ms to load.
 */
import { Lexer, type Token, type Tokens } from "marked";
import { escapeControls } from "../cli/terminal_text.ts";
import { type BlockContext, listItemLines, renderBlock, renderBlocks } from "./_markdown_blocks.ts";
import { markdownStyles } from "./_markdown_style.ts";

/** How markdown is drawn. */
export interface MarkdownOptions {
  /** Columns to wrap prose at (code lines are never wrapped). */
  readonly width: number;
  /** Whether to style with SGR sequences; false under NO_COLOR (no escape byte at all). */
  readonly color: boolean;
}

function context(options: MarkdownOptions): BlockContext {
  return { width: Math.max(10, options.width), styles: markdownStyles(options.color) };
}

/** `text` (markdown from a model) rendered as terminal lines. */
export function renderMarkdown(text: string, options: MarkdownOptions): string[] {
  return renderBlocks(new Lexer().lex(escapeControls(text)), context(options));
}

/** Options of a markdown stream: where its lines go. */
export interface MarkdownStreamOptions extends MarkdownOptions {
  /** Receives finished lines, each ending with "\n"; never asked to redraw what it was given. */
  readonly write: (text: string) => void;
}

/** A markdown answer rendered while it streams in. */
export interface MarkdownStream {
  /** Adds the next piece of the answer; writes the blocks this piece finished. */
  push(delta: string): void;
  /** Writes the rest (an unfinished block as it stands). */
  end(): void;
}

// A fenced code block whose closing fence has arrived.
function isClosedFence(token: Token): boolean {
  if (token.type !== "code" || (token as Tokens.Code).codeBlockStyle === "indented") return false;
  const lines = token.raw.replace(/\n$/, "").split("\n");
  const fence = /^ {0,3}(`{3,}|~{3,})/.exec(lines[0] ?? "")?.[1];
  const last = lines.at(-1) ?? "";
  return fence !== undefined && lines.length > 1 &&
    new RegExp(`^ {0,3}${fence[0]}{${fence.length},}[ \\t]*$`).test(last);
}

// A block that text after it can still change (a paragraph can grow or become a heading, a
// list can gain items, a table rows): final only once another block has started after it.
function isFinal(tokens: readonly Token[], i: number): boolean {
  const token = tokens[i];
  const next = tokens[i + 1];
  if (token === undefined) return false;
  if (tokens.slice(i + 1).some((t) => t.type !== "space")) return true;
  if (token.type === "heading" && token.raw.trimStart().startsWith("#")) return true;
  if (token.type === "hr") return true;
  if (token.type === "code") return isClosedFence(token);
  return token.type === "paragraph" && next?.type === "space";
}

// The lines of an unfinished block that what comes after cannot change: an open code block's
// fence and lines so far, a list's items but the last.
function finishedPart(token: Token, lines: readonly string[], ctx: BlockContext): string[] {
  if (token.type === "code" && token.codeBlockStyle !== "indented") {
    return lines.slice(0, token.raw.replace(/\n$/, "").split("\n").length);
  }
  if (token.type === "list") {
    const list = token as Tokens.List;
    return list.items.slice(0, -1).flatMap((_, i) => listItemLines(list, i, ctx));
  }
  return [];
}

/**
 * A stream that writes each block once it is complete: a paragraph when a blank line (or the next
 * block) follows it, a heading when its line ends, a table when the next block starts, a list item
 * when the next item starts. A fenced code block is written line by line as its lines arrive
 * (highlighted as the whole block so far, so colours across lines stay right). Nothing written is ever redrawn; `end()` writes
 * what is left. The lines written equal `renderMarkdown` of the whole text.
 */
export function createMarkdownStream(options: MarkdownStreamOptions): MarkdownStream {
  const ctx = context(options);
  let pending = "";
  let wroteBlock = false;
  let shownOfOpen = 0; // lines of the unfinished block at the head of `pending` already written
  const emit = (lines: readonly string[], from: number): void => {
    if (lines.length <= from) return;
    if (from === 0 && wroteBlock) options.write("\n");
    options.write(lines.slice(from).map((line) => `${line}\n`).join(""));
    wroteBlock = true;
  };
  const flush = (complete: string, all: boolean): void => {
    const tokens = new Lexer().lex(complete);
    let used = 0;
    for (let i = 0; i < tokens.length; i++) {
      const token = tokens[i] as Token;
      if (token.type === "space") {
        used += token.raw.length;
        continue;
      }
      const final = all || isFinal(tokens, i);
      const lines = renderBlock(token, ctx);
      if (!final) {
        const shown = finishedPart(token, lines, ctx);
        emit(shown, shownOfOpen);
        shownOfOpen = Math.max(shownOfOpen, shown.length);
        break;
      }
      emit(lines, shownOfOpen);
      shownOfOpen = 0;
      used += token.raw.length;
    }
    pending = pending.slice(used);
  };
  return {
    push(delta) {
      pending += escapeControls(delta);
      const end = pending.lastIndexOf("\n");
      if (end >= 0) flush(pending.slice(0, end + 1), false);
    },
    end() {
      flush(pending, true);
      pending = "";
    },
  };
}
