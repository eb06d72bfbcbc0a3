/**
 * The block-by-block writer behind a markdown stream: it lexes what has come so far, writes the
 * blocks that nothing after them can change, and follows an open code block line by line.
 */
import { Lexer, type Token, type Tokens } from "marked";
import { escapeControls } from "./terminal_text.ts";
import { type BlockContext, listItemLines, renderBlock } from "./_markdown_blocks.ts";
import { highlightCode } from "./_markdown_code.ts";

/** Takes text already made safe for a terminal; writes rendered lines. */
export interface BlockStream {
  push(text: string): void;
  end(): void;
}

const FENCE = /^( {0,3})(`{3,}|~{3,})/;

// A fenced code block whose closing fence has arrived.
function isClosedFence(token: Token): boolean {
  if (token.type !== "code" || (token as Tokens.Code).codeBlockStyle === "indented") return false;
  const lines = token.raw.replace(/\n$/, "").split("\n");
  const fence = FENCE.exec(lines[0] ?? "")?.[2];
  return fence !== undefined && lines.length > 1 && closes(fence, lines.at(-1) ?? "");
}

function closes(fence: string, line: string): boolean {
  return new RegExp(`^ {0,3}${fence[0]}{${fence.length},}[ \\t]*$`).test(line);
}

// A block that text after it can still change (a paragraph can grow or become a heading, a
// list can gain items, a table rows): final only once another block has started after it.
function isFinal(tokens: readonly Token[], i: number): boolean {
  const token = tokens[i];
  if (token === undefined) return false;
  if (tokens.slice(i + 1).some((t) => t.type !== "space")) return true;
  if (token.type === "heading" && token.raw.trimStart().startsWith("#")) return true;
  if (token.type === "hr") return true;
  if (token.type === "code") return isClosedFence(token);
  return token.type === "paragraph" && tokens[i + 1]?.type === "space";
}

// Lines of items `from` to `to` (exclusive) of a list.
function itemLines(list: Tokens.List, from: number, to: number, ctx: BlockContext): string[] {
  const out: string[] = [];
  for (let i = from; i < to; i++) out.push(...listItemLines(list, i, ctx));
  return out;
}

// A code block being followed line by line; `lines` are its code lines so far.
interface OpenCode {
  readonly fence: string;
  readonly indent: number;
  readonly lang: string;
  readonly lines: string[];
}

// Lines of context a new code line is highlighted with (a block this long or shorter is
// coloured exactly as it is when rendered whole).
const CONTEXT_LINES = 40;

function openCode(token: Tokens.Code, raw: string): OpenCode {
  const [first = "", ...rest] = raw.replace(/\n$/, "").split("\n");
  const match = FENCE.exec(first);
  const indent = match?.[1]?.length ?? 0;
  return {
    fence: match?.[2] ?? "```",
    indent,
    lang: escapeControls(token.lang ?? ""),
    lines: rest.map((line) => codeLine(line, indent)),
  };
}

function codeLine(line: string, indent: number): string {
  const strip = Math.min(indent, /^ */.exec(line)?.[0].length ?? 0);
  return escapeControls(line.slice(strip)).replaceAll("\t", "  ");
}

/** A stream that writes each block once it is final (see `createMarkdownStream`). */
export function createBlockStream(ctx: BlockContext, write: (text: string) => void): BlockStream {
  let pending = "";
  let wroteBlock = false;
  let shownItems = 0; // items of the unfinished list at the head of `pending` already written
  let code: OpenCode | null = null;
  // Writes lines; `starts` when they begin a block (a blank line then separates it).
  const emit = (lines: readonly string[], starts: boolean): void => {
    if (lines.length === 0) return;
    if (starts && wroteBlock) write("\n");
    write(lines.map((line) => `${line}\n`).join(""));
    wroteBlock = true;
  };
  const followCode = (all: boolean): void => {
    while (code !== null) {
      const nl = pending.indexOf("\n");
      if (nl < 0 && !(all && pending !== "")) break;
      const line = nl < 0 ? pending : pending.slice(0, nl);
      pending = nl < 0 ? "" : pending.slice(nl + 1);
      if (closes(code.fence, line)) {
        code = null;
        write(`${ctx.styles.dim("```")}\n`);
        return;
      }
      code.lines.push(codeLine(line, code.indent));
      const context = code.lines.slice(-CONTEXT_LINES).join("\n");
      write(`${highlightCode(context, code.lang, ctx.styles.color).at(-1) ?? ""}\n`);
    }
    if (all && code !== null) {
      code = null;
      write(`${ctx.styles.dim("```")}\n`);
    }
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
      if (token.type === "list") {
        // Every item but the last is final: write the ones not yet written.
        const list = token as Tokens.List;
        const to = final ? list.items.length : list.items.length - 1;
        emit(itemLines(list, shownItems, to, ctx), shownItems === 0);
        shownItems = final ? 0 : Math.max(shownItems, to);
        if (!final) break;
        used += token.raw.length;
        continue;
      }
      if (final) {
        emit(renderBlock(token, ctx), true);
        used += token.raw.length;
        continue;
      }
      if (token.type === "code" && token.codeBlockStyle !== "indented") {
        // An open code block runs to the end of what has come: follow it line by line now.
        const rest = complete.slice(used);
        emit(renderBlock(token, ctx).slice(0, rest.replace(/\n$/, "").split("\n").length), true);
        code = openCode(token as Tokens.Code, rest);
        used = complete.length;
        break;
      }
      break;
    }
    pending = pending.slice(used);
  };
  const step = (all: boolean): void => {
    followCode(all);
    if (code !== null) return;
    const end = all ? pending.length : pending.lastIndexOf("\n") + 1;
    if (end > 0) flush(pending.slice(0, end), all);
    if (code !== null) followCode(all);
  };
  return {
    push(text) {
      pending += text;
      step(false);
    },
    end() {
      step(true);
      pending = "";
    },
  };
}
