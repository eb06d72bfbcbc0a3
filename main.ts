/** moat entry point: argv and environment in, exit code out. The only place that calls Deno.exit. */
import { runCli } from "./src/cli/run.ts";

if (import.meta.main) {
  const code = await runCli(Deno.args, { env: Deno.env.toObject(), cwd: Deno.cwd() });
  Deno.exit(code);
}
