/** Test entry: what main.ts does for `__tool-host`, without the rest of the CLI. */
import { runToolHost } from "../../src/sandbox/host.ts";

if (import.meta.main) {
  const encoder = new TextEncoder();
  const code = await runToolHost(Deno.args.slice(1), {
    stdin: Deno.stdin.readable,
    stdout: Deno.stdout.writable,
    stderr: (text) => void Deno.stderr.writeSync(encoder.encode(text)),
  });
  Deno.exit(code);
}
