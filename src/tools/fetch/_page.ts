/**
 * A fetched body as text for the model: HTML as markdown of the page's main content (linkedom's
 * DOM, Mozilla's Readability, Turndown; scripts, styles and other non-content dropped), JSON and
 * text as they are, anything else refused with its type.
 */
import { parseHTML } from "linkedom";
import { Readability } from "@mozilla/readability";
import TurndownService from "turndown";

/** How a content type is shown, or why it is not. */
export type BodyKind = "html" | "json" | "text" | "refused";

/** The kind of body a `Content-Type` header value announces (none: text). */
export function bodyKind(contentType: string | null): BodyKind {
  const type = (contentType ?? "text/plain").split(";")[0]?.trim().toLowerCase() ?? "";
  if (type === "text/html" || type === "application/xhtml+xml") return "html";
  if (type === "application/json" || type.endsWith("+json")) return "json";
  if (type.startsWith("text/")) return "text";
  if (["application/xml", "application/javascript", "application/x-ndjson"].includes(type)) {
    return "text";
  }
  if (type.endsWith("+xml")) return "text";
  return "refused";
}

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
