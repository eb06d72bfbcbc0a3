/**
 * Text from outside (a repository's config, a model, a tool) shown to a person: control
 * characters, terminal escape sequences, bidi controls and look-alike slashes are made visible as
 * `\uXXXX` escapes, so nothing can redraw the terminal or pass for something it is not.
 */

// C0 and C1 controls (ESC included), DEL, zero-width and bidi controls, line/paragraph separators,
// the byte-order mark, and characters that look like "/".
const UNSAFE =
  // deno-lint-ignore no-control-regex
  /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2066-\u2069\ufeff\u2044\u2215\u29f8\uff0f]/g;

/** `text` with every unsafe character written as `\uXXXX` (a backslash itself stays as is). */
export function escapeUnsafe(text: string): string {
  return text.replace(UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

// What may not reach a terminal inside multi-line text (answers, messages): every control
// character but tab and newline, and the bidi overrides that reorder what is shown.
// deno-lint-ignore no-control-regex
const UNSAFE_IN_TEXT = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/**
 * Multi-line text from a model or a tool, safe to print: carriage returns are dropped (they could
 * overwrite a line), and other controls (ESC starts every terminal sequence) and bidi overrides
 * are written as `\uXXXX`. Works on any piece of a stream: each character is judged on its own.
 */
export function escapeControls(text: string): string {
  return text.replaceAll("\r", "").replace(
    UNSAFE_IN_TEXT,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

/** `text` in double quotes with unsafe characters escaped; `raw` leaves out the quotes. */
export function terminalQuote(text: string, options: { raw?: boolean } = {}): string {
  const safe = escapeUnsafe(options.raw ? text : JSON.stringify(text).slice(1, -1));
  return options.raw ? safe : `"${safe}"`;
}
