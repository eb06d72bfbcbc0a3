/** moat entry point: argv and environment in, exit code out. The only place that calls Deno.exit. */
import { TOOL_HOST_COMMAND } from "./src/sandbox/host/protocol.ts";

if (import.meta.main) {
  // Each process loads only its own module graph: the sandboxed tool host never loads the CLI's
  // (the model SDK, rendering, sessions), and `moat --version` loads nothing but the version.
  // The specifiers are string literals, so `deno compile` embeds every graph.
  const code = Deno.args.length === 1 && Deno.args[0] === "--version"
    ? await printVersion()
    : Deno.args[0] === TOOL_HOST_COMMAND
    ? await (await import("./src/sandbox/host/main.ts")).runToolHost(Deno.args.slice(1))
    : await (await import("./src/cli/main.ts")).runCli(Deno.args, {
      env: Deno.env.toObject(),
      cwd: Deno.cwd(),
    });
  Deno.exit(code);
}

async function printVersion(): Promise<number> {
  const { VERSION } = await import("./src/version.ts");
  await Deno.stdout.write(new TextEncoder().encode(`moat ${VERSION}\n`));
  return 0;
}
