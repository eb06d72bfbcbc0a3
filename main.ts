/** moat entry point: argv and environment in, exit code out. The only place that calls Deno.exit. */
import { LAZY_ENTRY_MODULES } from "./src/entry_modules.ts";
import { bundledCli } from "./src/sys/cli_bundle.ts";
import { MCP_FORWARD_OPTION, TOOL_HOST_COMMAND } from "./src/sandbox/host/protocol.ts";

// What main.ts uses of each entry module (a type import would join them to the graph again).
interface CliModule {
  runCli(
    argv: string[],
    environment: { env: Record<string, string>; cwd: string; moduleRoot: string },
  ): Promise<number>;
}
interface ToolHostModule {
  runToolHost(args: string[]): Promise<number>;
}
interface McpForwardModule {
  runMcpForwarder(args: string[]): Promise<number>;
}

/** This file's directory, moat's module root. */
const ROOT_URL = new URL("./", import.meta.url);

/** Imports one of LAZY_ENTRY_MODULES; the computed specifier keeps it out of the start-up graph. */
function load<T>(module: string): Promise<T> {
  return import(new URL(module, ROOT_URL).href);
}

/** The CLI's module: its local bundle while it is fresh (src/sys/cli_bundle.ts), else the sources. */
function cliModuleUrl(): string {
  const root = decodeURIComponent(ROOT_URL.pathname).replace(/\/$/, "");
  const bundled = import.meta.url.startsWith("file:") ? bundledCli(root, Deno.env) : undefined;
  return bundled ?? LAZY_ENTRY_MODULES.cli;
}

/**
 * Runs moat for this process's arguments and returns its exit code; `cliModule` (a URL, or a
 * path under this directory) is the CLI's module: by default its fresh local bundle or the
 * sources; the release's entry (scripts/bundle.ts) passes the bundle it was compiled with.
 */
export async function runMoat(cliModule?: string): Promise<number> {
  // Each process loads only its own module graph: the sandboxed tool host never loads the CLI's
  // (the model SDK, rendering, sessions), an MCP server's forwarder loads only its sockets, and
  // `moat --version` loads nothing but the version.
  return Deno.args.length === 1 && Deno.args[0] === "--version"
    ? await printVersion()
    : Deno.args[0] === TOOL_HOST_COMMAND && Deno.args[1] === MCP_FORWARD_OPTION
    ? await (await load<McpForwardModule>(LAZY_ENTRY_MODULES.mcpForward)).runMcpForwarder(
      Deno.args.slice(2),
    )
    : Deno.args[0] === TOOL_HOST_COMMAND
    ? await (await load<ToolHostModule>(LAZY_ENTRY_MODULES.toolHost)).runToolHost(
      Deno.args.slice(1),
    )
    : await (await load<CliModule>(cliModule ?? cliModuleUrl())).runCli(Deno.args, {
      env: Deno.env.toObject(),
      cwd: Deno.cwd(),
      moduleRoot: ROOT_URL.href,
    });
}

if (import.meta.main) Deno.exit(await runMoat());

async function printVersion(): Promise<number> {
  const { VERSION } = await load<{ VERSION: string }>(LAZY_ENTRY_MODULES.version);
  await Deno.stdout.write(new TextEncoder().encode(`moat ${VERSION}\n`));
  return 0;
}
