/**
 * The entry point of the tool host's bundle (src/sandbox/host_bundle.ts): what main.ts does for
 * `moat __tool-host`, without main.ts's computed imports, which a bundle cannot follow.
 */
import { runToolHost } from "./main.ts";

if (import.meta.main) Deno.exit(await runToolHost(Deno.args.slice(1)));
