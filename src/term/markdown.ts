/**
 * Answers as people read them in a terminal: markdown (headings, emphasis, lists, quotes, tables,
 * code blocks with highlighting) parsed by marked's lexer and drawn with SGR styles, wrapped to a
 * width, whole or streamed block by block. The text is a model's: its control characters and
 * escape sequences are made visible before anything is styled, so only moat's own styles reach
 * the terminal. With colour off the output holds no escape byte. Import this module lazily (only
 * for an interactive session on a terminal): marked and highlight.js take some tens of ms to load.
 */
import { Lexer } from "marked";
import { escapeControls } from "./terminal_text.ts";
import { type BlockContext, renderBlocks } from "./_markdown_blocks.ts";
import { createBlockStream } from "./_markdown_stream.ts";
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

/**
 * A stream that writes each block once it is complete: a paragraph when a blank line (or the next
 * block) follows it, a heading when its line ends, a table when the next block starts, a list item
 * when the next item starts. A fenced code block is written line by line as its lines arrive
 * (each highlighted in the context of the lines before it). Nothing written is ever redrawn; `end()` writes
 * what is left. The lines written equal `renderMarkdown` of the whole text.
 */
export function createMarkdownStream(options: MarkdownStreamOptions): MarkdownStream {
  const blocks = createBlockStream(context(options), options.write);
  return {
    push: (delta) => blocks.push(escapeControls(delta)),
    end: () => blocks.end(),
  };
}
