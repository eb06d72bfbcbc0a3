/**
 * Which fetched bodies the model gets: HTML (as markdown), JSON and text; anything else is
 * refused with its type and size.
 */

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
