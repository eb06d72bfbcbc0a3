/**
 * Compiling a grep pattern: the per-line regex, and a chunk-wide candidate finder that can search
 * many lines at once because it can never consume a line end.
 */

/** The compiled search: the per-line regex and the chunk-wide candidate finders. */
export interface Search {
  line: RegExp;
  finder: RegExp | null;
  /** A literal every matching line contains (searched instead of `finder`), or null. */
  needle: Needle | null;
  context: number;
}

/**
 * A literal every line the search matches contains, found through its rarest character (`rare`
 * is its index): a plain string search, much cheaper than the regex over text that mostly does
 * not match (ripgrep's rare-byte prefilter, on decoded text: V8 decodes ASCII faster than any
 * byte search Deno offers).
 */
export interface Needle {
  text: string;
  rare: number;
}

/** JavaScript's `\s` without the LF: the whitespace a line can hold. */
const SPACE_NO_LF =
  "\\t\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff";

/**
 * The pattern rewritten so that it can never consume an LF, and otherwise the same on text
 * without LFs (a line): `\s`, `\W`, `\D` and negated classes exclude the LF. Null when the
 * pattern has a construct this does not handle (escapes that may denote an LF, like `\n`, `\x0a`,
 * `\u000a`, octal or back references, `\s`/`\W`/`\D` or control escapes inside a class, literal
 * control characters). Without this, a chunk-wide search could backtrack across a whole chunk
 * (`[^;]*;` is quadratic in the chunk size) where line by line it stays bounded by the line.
 */
function lineBoundSource(source: string): string | null {
  // deno-lint-ignore no-control-regex
  if (/[\x00-\x1f]/.test(source)) return null;
  let out = "";
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i] as string;
    if (c === "\\") {
      const next = source[++i] ?? "";
      if (next === "d" || next === "w" || next === "S" || next === "B") {
        out += `\\${next}`;
      } else if (
        !inClass && (next === "b" || next === "t" || next === "r" || next === "v" || next === "f")
      ) {
        out += `\\${next}`; // an assertion or one character other than LF
      } else if (!inClass && next === "s") {
        out += `[${SPACE_NO_LF}]`;
      } else if (!inClass && (next === "W" || next === "D")) {
        out += `[^\\${next.toLowerCase()}\\n]`;
      } else if (!inClass && next === "x" && /^[0-9A-Fa-f]{2}$/.test(source.slice(i + 1, i + 3))) {
        // One character by its code (RegExp.escape writes these), but never the LF; in a class
        // it could be a range end, so classes keep the line-by-line search.
        const hex = source.slice(i + 1, i + 3);
        if (hex.toLowerCase() === "0a") return null;
        out += `\\x${hex}`;
        i += 2;
      } else if (/^[^0-9A-Za-z]$/.test(next)) {
        out += `\\${next}`; // an escaped printable character
      } else {
        return null;
      }
    } else if (inClass) {
      out += c;
      if (c === "]") inClass = false;
    } else if (c === "[") {
      inClass = true;
      if (source[i + 1] === "^") {
        out += "[^\\n";
        i++;
      } else {
        out += c;
      }
    } else {
      out += c;
    }
  }
  return out;
}

/**
 * The candidate finder for a line regex: the same pattern made unable to consume an LF, global
 * and multiline, run over many lines at once; or null to test every line. It finds a match
 * starting in every line the line regex matches (`^`, `$`, `\b` behave alike at line ends, and
 * the consumed characters are the same), except through lookarounds, which could see past the
 * line end: those patterns are tested line by line. Exported for tests.
 */
export function candidateFinder(source: string, ignoreCase: boolean): RegExp | null {
  if (/\(\?<?[=!]/.test(source)) return null;
  const bounded = lineBoundSource(source);
  if (bounded === null) return null;
  try {
    return new RegExp(bounded, ignoreCase ? "gim" : "gm");
  } catch (e) {
    // The rewrite of an exotic pattern did not compile: search it line by line.
    if (e instanceof SyntaxError) return null;
    throw e;
  }
}

/** A search as plain data (what a helper thread is sent): compiled by `compileSearch`. */
export interface SearchSpec {
  pattern: string;
  literal: boolean;
  ignoreCase: boolean;
  context: number;
}

/** Compiles a search; throws SyntaxError for an invalid regular expression. */
export function compileSearch(spec: SearchSpec): Search {
  const source = spec.literal ? RegExp.escape(spec.pattern) : spec.pattern;
  const line = new RegExp(source, spec.ignoreCase ? "i" : "");
  // A needle finds the candidates by itself: no finder regex to build then.
  const needle = searchNeedle(spec);
  return {
    line,
    finder: needle === null ? candidateFinder(source, spec.ignoreCase) : null,
    needle,
    context: spec.context,
  };
}

/** Shortest required literal of a regex worth searching for instead of the regex itself. */
const MIN_REGEX_NEEDLE = 3;

/**
 * The needle of a search: a literal pattern itself, a regex's longest required literal (at least
 * MIN_REGEX_NEEDLE characters: shorter ones find too many candidates); none when case does not
 * matter (a needle is matched exactly) or the literal holds an LF (no line contains one).
 */
function searchNeedle(spec: SearchSpec): Needle | null {
  if (spec.ignoreCase) return null;
  let text = spec.pattern;
  if (!spec.literal) {
    const required = requiredLiteral(spec.pattern);
    if (required === null || required.length < MIN_REGEX_NEEDLE) return null;
    text = required;
  }
  if (text === "" || text.includes("\n")) return null;
  return { text, rare: rarestIndex(text) };
}

/**
 * Characters from the most to the least common in source code and prose (a rough rank in the
 * spirit of ripgrep's byte frequencies); characters not listed (other punctuation, non-ASCII,
 * control characters) count as rarer than all of them.
 */
const BY_FREQUENCY = " etaoinsrlhdcupmfgywbvkxjqz\t.,()=;\"'/:-_{}0123456789[]<>*#+!&|" +
  "ETASRINOLCDPMFUBGHWVYKXJQZ";

/** Index in `text` of its rarest character (the first of equally rare ones). */
export function rarestIndex(text: string): number {
  let best = 0;
  let bestRank = Infinity;
  for (let i = 0; i < text.length; i++) {
    const at = BY_FREQUENCY.indexOf(text[i] as string);
    const rank = at === -1 ? -1 : BY_FREQUENCY.length - at;
    if (rank < bestRank) {
      best = i;
      bestRank = rank;
    }
  }
  return best;
}

/** Characters an escape of this letter or digit spans after the backslash and the letter. */
function escapeTail(source: string, i: number): number | null {
  const c = source[i] as string;
  const rest = source.slice(i + 1);
  if ("dDwWsSbBnrtvf".includes(c)) return 0;
  if (c === "x") return /^[0-9A-Fa-f]{2}/.test(rest) ? 2 : 0;
  if (c === "u") {
    if (/^[0-9A-Fa-f]{4}/.test(rest)) return 4;
    const braced = /^\{[0-9A-Fa-f]+\}/.exec(rest);
    return braced === null ? 0 : braced[0].length;
  }
  if (c === "c") return /^[A-Za-z]/.test(rest) ? 1 : 0;
  if (c === "k" || c === "p" || c === "P") {
    const named = /^(<[^>]*>|\{[^}]*\})/.exec(rest);
    return named === null ? 0 : named[0].length;
  }
  if (/[0-9]/.test(c)) return (/^[0-9]*/.exec(rest) as RegExpExecArray)[0].length;
  return null;
}

/**
 * The longest run of plain characters every match of a regex (no flags but i) contains: one
 * outside every group and class, not followed by a quantifier (that drops its last character),
 * in a regex without a top-level alternation. Null when there is none, or for a construct this
 * does not know (then the regex is searched as it is). Exported for tests.
 */
export function requiredLiteral(source: string): string | null {
  let best = "";
  let run = "";
  let depth = 0;
  const close = (quantified: boolean) => {
    const r = quantified ? run.slice(0, -1) : run;
    if (r.length > best.length) best = r;
    run = "";
  };
  for (let i = 0; i < source.length; i++) {
    const c = source[i] as string;
    if (c === "\\") {
      const next = source[++i];
      if (next === undefined) return null;
      if (/[^0-9A-Za-z]/.test(next)) {
        if (depth === 0) run += next; // an escaped punctuation character is itself
        continue;
      }
      const tail = escapeTail(source, i);
      if (tail === null) return null;
      i += tail;
      close(false);
    } else if (c === "[") {
      close(false);
      let j = i + 1;
      if (source[j] === "^") j++;
      while (j < source.length && source[j] !== "]") j += source[j] === "\\" ? 2 : 1;
      if (j >= source.length) return null;
      i = j;
    } else if (c === "(") {
      close(false);
      depth++;
    } else if (c === ")") {
      depth--;
    } else if (c === "|") {
      if (depth === 0) return null;
    } else if (depth > 0) {
      continue;
    } else if (c === "*" || c === "+" || c === "?") {
      close(true);
    } else if (c === "{") {
      // A quantifier `{n}`, `{n,}`, `{n,m}` (skipped); any other "{" just ends the run.
      const quantifier = /^\{[0-9]+(,[0-9]*)?\}/.exec(source.slice(i));
      close(quantifier !== null);
      if (quantifier !== null) i += quantifier[0].length - 1;
    } else if (c === "." || c === "^" || c === "$") {
      close(false);
    } else {
      run += c;
    }
  }
  close(false);
  return best === "" ? null : best;
}
