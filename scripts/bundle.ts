/**
 * `deno task bundle`: builds the CLI's code-split bundle (scripts/_bundle_build.ts) unless its
 * current build is fresh — checked first, with nothing else loaded, because `deno task start`
 * and `deno task test` run this before they run moat. A failed build warns and exits 0 (main.ts
 * then runs the sources) unless `--strict`.
 *
 * Usage: deno task bundle [--force] [--strict]
 */
import { CLI_BUNDLE_DIR, failedBefore, freshCliBundle } from "../src/sys/cli_bundle.ts";

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
  if (!force && failedBefore(root)) {
    say(
      "bundle: not built: the last build from these same sources failed, so moat runs from the " +
        "sources (`deno task bundle --force` tries again)",
    );
    return 0;
  }
  const problem = unwritable(`${root}/${CLI_BUNDLE_DIR}`);
  if (problem !== undefined) {
    say(`bundle: not built, so moat runs from the sources: ${problem}`);
    return args.includes("--strict") ? 1 : 0;
  }
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

/** Why the bundle's directory cannot be written (a read-only checkout), or undefined. */
function unwritable(dir: string): string | undefined {
  try {
    Deno.mkdirSync(dir, { recursive: true });
    const probe = `${dir}/.probe-${crypto.randomUUID().slice(0, 8)}`;
    Deno.writeTextFileSync(probe, "");
    Deno.removeSync(probe);
    return undefined;
  } catch (e) {
    return `"${dir}" cannot be written (${e instanceof Error ? e.message : String(e)})`;
  }
}

function say(line: string): void {
  Deno.stderr.writeSync(new TextEncoder().encode(line + "\n"));
}

if (import.meta.main) Deno.exit(await main(Deno.args));
