/**
 * `deno task bundle`: builds the CLI's code-split bundle (scripts/_bundle_build.ts) unless its
 * current build is fresh — checked first, with nothing else loaded, because `deno task start`
 * and `deno task test` run this before they run moat. A failed build warns and exits 0 (main.ts
 * then runs the sources) unless `--strict`.
 *
 * Usage: deno task bundle [--force] [--strict]
 */
import { freshCliBundle } from "../src/sys/cli_bundle.ts";

const USAGE = "Usage: deno task bundle [--force] [--strict]";

async function main(args: string[]): Promise<number> {
  const unknown = args.filter((a) => a !== "--force" && a !== "--strict");
  if (unknown.length > 0) {
    say(`bundle: unknown option "${unknown[0]}". ${USAGE}`);
    return 2;
  }
  const force = args.includes("--force");
  const root = decodeURIComponent(new URL("..", import.meta.url).pathname).replace(/\/$/, "");
  if (!force && freshCliBundle(root) !== undefined) return 0;
  const { writeBundle } = await import("./_bundle_build.ts");
  try {
    const outcome = await writeBundle(root, { force });
    if (outcome.kind === "built") say(`bundle: wrote ${outcome.dir.slice(root.length + 1)}`);
    return 0;
  } catch (e) {
    say(
      `bundle: the CLI's bundle could not be built, so moat runs from the sources: ` +
        `${e instanceof Error ? e.message : String(e)}`,
    );
    return args.includes("--strict") ? 1 : 0;
  }
}

function say(line: string): void {
  Deno.stderr.writeSync(new TextEncoder().encode(line + "\n"));
}

if (import.meta.main) Deno.exit(await main(Deno.args));
