/** moat's version; kept equal to deno.json "version" by tests/version_test.ts. */
export const VERSION = "0.1.0";
