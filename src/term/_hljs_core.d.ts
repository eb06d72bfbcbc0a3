/**
 * The part of highlight.js's core moat uses. Its own types pull in the DOM library, whose
 * declarations clash with Deno's (streams), so they are replaced by these.
 */
/** A language definition as highlight.js's language modules export it. */
export type LanguageFn = (hljs: unknown) => unknown;

declare const hljs: {
  registerLanguage(name: string, language: LanguageFn): void;
  getLanguage(name: string): unknown;
  highlight(code: string, options: { language: string; ignoreIllegals?: boolean }): {
    value: string;
  };
};
export default hljs;
