/**
 * HTML as markdown of the page's main content: linkedom's DOM, Mozilla's Readability, Turndown;
 * scripts, styles and other non-content dropped. Loaded on the first HTML page only (the three
 * libraries take most of a second to load).
 */
import { parseHTML } from "linkedom";
import { Readability } from "@mozilla/readability";
import TurndownService from "turndown";

/** The little of linkedom's DOM used here (Deno has no DOM types). */
interface Element {
  remove(): void;
  textContent: string | null;
  innerHTML: string;
}
interface Doc {
  querySelectorAll(selector: string): Iterable<Element>;
  querySelector(selector: string): Element | null;
  toString(): string;
}
const parse = (html: string) => (parseHTML(html) as unknown as { document: Doc }).document;
type ReadabilityDocument = ConstructorParameters<typeof Readability>[0];
type TurndownFilter = Parameters<TurndownService["remove"]>[0];

/** Elements that are never content. */
const NOT_CONTENT = ["script", "style", "noscript", "template", "iframe", "object", "embed"];

/** Markdown of the main content of `html` (the whole body when no main content is found). */
export function htmlToMarkdown(html: string): string {
  const document = parse(html);
  for (const tag of NOT_CONTENT) {
    for (const element of [...document.querySelectorAll(tag)]) element.remove();
  }
  const title = document.querySelector("title")?.textContent?.trim() ?? "";
  // Readability changes the document it reads: it gets its own copy of what is left.
  const copy = parse(document.toString());
  const article = new Readability(copy as unknown as ReadabilityDocument, { keepClasses: false })
    .parse();
  const content = article?.content ?? document.querySelector("body")?.innerHTML ?? html;
  const turndown = new TurndownService({
    headingStyle: "atx",
    codeBlockStyle: "fenced",
    bulletListMarker: "-",
  });
  turndown.remove(NOT_CONTENT as TurndownFilter);
  const markdown = turndown.turndown(content).trim();
  const heading = (article?.title ?? title).trim();
  const head = heading === "" ? "" : `# ${heading}\n\n`;
  return `${head}${markdown}\n`;
}
