/**
 * The modules main.ts imports by computed specifiers, so that `deno run` does not load their
 * graphs up front (a literal dynamic import is part of the start-up graph): `moat --version`
 * then loads nothing else. `deno task compile` embeds them with --include (scripts/compile.ts).
 */
export const LAZY_ENTRY_MODULES = {
  cli: "src/cli/main.ts",
  toolHost: "src/sandbox/host/main.ts",
  mcpForward: "src/sandbox/host/mcp_forward_main.ts",
  version: "src/version.ts",
} as const;
