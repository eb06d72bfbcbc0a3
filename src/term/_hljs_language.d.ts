/** A highlight.js language module (see _hljs_core.d.ts for why its own types are not used). */
import type { LanguageFn } from "./_hljs_core.d.ts";

declare const language: LanguageFn;
export default language;
