/**
 * Code blocks in rendered markdown: highlighted with highlight.js (its core and a set of common
 * languages, so loading stays quick) and turned from its HTML into SGR colours, one line at a time.
 */
// @ts-types="./_hljs_core.d.ts"
import hljs from "highlight.js/lib/core";
// @ts-types="./_hljs_language.d.ts"
import bash from "highlight.js/lib/languages/bash";
// @ts-types="./_hljs_language.d.ts"
import c from "highlight.js/lib/languages/c";
// @ts-types="./_hljs_language.d.ts"
import cpp from "highlight.js/lib/languages/cpp";
// @ts-types="./_hljs_language.d.ts"
import css from "highlight.js/lib/languages/css";
// @ts-types="./_hljs_language.d.ts"
import diff from "highlight.js/lib/languages/diff";
// @ts-types="./_hljs_language.d.ts"
import go from "highlight.js/lib/languages/go";
// @ts-types="./_hljs_language.d.ts"
import java from "highlight.js/lib/languages/java";
// @ts-types="./_hljs_language.d.ts"
import javascript from "highlight.js/lib/languages/javascript";
// @ts-types="./_hljs_language.d.ts"
import json from "highlight.js/lib/languages/json";
// @ts-types="./_hljs_language.d.ts"
import markdown from "highlight.js/lib/languages/markdown";
// @ts-types="./_hljs_language.d.ts"
import python from "highlight.js/lib/languages/python";
// @ts-types="./_hljs_language.d.ts"
import rust from "highlight.js/lib/languages/rust";
// @ts-types="./_hljs_language.d.ts"
import shell from "highlight.js/lib/languages/shell";
// @ts-types="./_hljs_language.d.ts"
import sql from "highlight.js/lib/languages/sql";
// @ts-types="./_hljs_language.d.ts"
import typescript from "highlight.js/lib/languages/typescript";
// @ts-types="./_hljs_language.d.ts"
import xml from "highlight.js/lib/languages/xml";
// @ts-types="./_hljs_language.d.ts"
import yaml from "highlight.js/lib/languages/yaml";

const LANGUAGES = {
  bash,
  c,
  cpp,
  css,
  diff,
  go,
  java,
  javascript,
  json,
  markdown,
  python,
  rust,
  shell,
  sql,
  typescript,
  xml,
  yaml,
};

let registered = false;

function register(): void {
  if (registered) return;
  for (const [name, language] of Object.entries(LANGUAGES)) hljs.registerLanguage(name, language);
  registered = true;
}

// SGR colour per highlight.js scope (its first class name, without "hljs-").
const SCOPE_COLOR: Record<string, number> = {
  keyword: 35,
  built_in: 36,
  type: 36,
  literal: 36,
  number: 33,
  string: 32,
  regexp: 32,
  comment: 90,
  doctag: 90,
  meta: 90,
  title: 34,
  function: 34,
  attr: 33,
  attribute: 33,
  variable: 31,
  "template-variable": 31,
  tag: 31,
  name: 31,
  symbol: 33,
  bullet: 33,
  addition: 32,
  deletion: 31,
  section: 34,
  selector: 35,
};

const ENTITIES: Record<string, string> = {
  "&amp;": "&",
  "&lt;": "<",
  "&gt;": ">",
  "&quot;": '"',
  "&#x27;": "'",
  "&#39;": "'",
};

function colorOf(classes: string): number | undefined {
  const scope = /hljs-([\w-]+)/.exec(classes)?.[1] ?? "";
  return SCOPE_COLOR[scope];
}

/** highlight.js HTML (spans and entities only) as text with SGR colours, split in lines. */
function htmlToLines(html: string): string[] {
  const stack: (number | undefined)[] = [];
  const lines: string[] = [];
  let line = "";
  const current = (): number | undefined => stack.findLast((n) => n !== undefined);
  const open = (): string => {
    const n = current();
    return n === undefined ? "" : `\x1b[${n}m`;
  };
  for (const part of html.split(/(<span class="[^"]*">|<\/span>|\n)/)) {
    if (part === "\n") {
      lines.push(line + (current() === undefined ? "" : "\x1b[39m"));
      line = open();
    } else if (part.startsWith("<span")) {
      stack.push(colorOf(part));
      line += open();
    } else if (part === "</span>") {
      stack.pop();
      const n = current();
      line += n === undefined ? "\x1b[39m" : `\x1b[${n}m`;
    } else {
      line += part.replace(/&(?:amp|lt|gt|quot|#x27|#39);/g, (e) => ENTITIES[e] ?? e);
    }
  }
  lines.push(line);
  return lines.map((l) => l.replaceAll("\x1b[39m\x1b[39m", "\x1b[39m"));
}

/**
 * The lines of `code`, highlighted as `language` when colour is on and highlight.js knows the
 * language (no guessing: a block without a language stays plain). Lines are never wrapped.
 */
export function highlightCode(code: string, language: string, color: boolean): string[] {
  const lines = code.split("\n");
  if (!color) return lines;
  register();
  const name = language.trim().split(/\s/)[0]?.toLowerCase() ?? "";
  if (name === "" || hljs.getLanguage(name) === undefined) return lines;
  return htmlToLines(hljs.highlight(code, { language: name, ignoreIllegals: true }).value);
}
