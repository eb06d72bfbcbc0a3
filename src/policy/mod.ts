/**
 * Public API of the policy layer: the grants (Deno's permission flags), the onToolCall check, the
 * approval prompt's contract, the protected-path decisions, the look-ups they work through, and
 * the path containment they share with the sandbox's bwrap view.
 */
export * from "./grants.ts";
export * from "./home.ts";
export * from "./grant_hints.ts";
export * from "./check.ts";
export * from "./approve.ts";
export * from "./protected.ts";
export * from "./ops.ts";
export { entryOf, hostEntryProblem, netDenied, urlHostPort } from "./net_deny.ts";
export { isWithin } from "./_within.ts";
export * from "./git_excludes.ts";
