/** moat entry point: argv and environment in, exit code out. The only place that calls Deno.exit. */
import { TOOL_HOST_COMMAND } from "./src/sandbox/host/protocol.ts";

if (import.meta.main) {
  // Each process loads only its own module graph: the sandboxed tool host never loads the CLI's
  // (the model SDK, rendering, sessions). Both specifiers are string literals, so `deno compile`
  // embeds both graphs.
  const code = Deno.args[0] === TOOL_HOST_COMMAND
    ? await (await import("./src/sandbox/host/main.ts")).runToolHost(Deno.args.slice(1))
    : await (await import("./src/cli/main.ts")).runCli(Deno.args, {
      env: Deno.env.toObject(),
      cwd: Deno.cwd(),
    });
  Deno.exit(code);
}
