/**
 * Compiling a grep pattern: the per-line regex, and a chunk-wide candidate finder that can search
 * many lines at once because it can never consume a line end.
 */

/** The compiled search: the per-line regex and the chunk-wide candidate finder. */
export interface Search {
  line: RegExp;
  finder: RegExp | null;
  context: number;
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
  return {
    line: new RegExp(source, spec.ignoreCase ? "i" : ""),
    finder: candidateFinder(source, spec.ignoreCase),
    context: spec.context,
  };
}
