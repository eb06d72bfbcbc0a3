/** Test entry: what main.ts does for `__tool-host` (the tool host's own entry), nothing else. */
import { runToolHost } from "../../src/sandbox/host/main.ts";

if (import.meta.main) {
  Deno.exit(await runToolHost(Deno.args.slice(1)));
}
