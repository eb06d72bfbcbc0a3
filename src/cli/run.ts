/** Wires argv/env into a run of moat. Placeholder-free minimal version; the CLI issue extends it. */
import { parseArgs } from "node:util";
import { VERSION } from "../version.ts";

/** What runCli needs from the outside world. */
export interface CliEnvironment {
  env: Record<string, string>;
  cwd: string;
  stdout?: (text: string) => void;
  stderr?: (text: string) => void;
}

/** Runs the moat command; returns the process exit code. Must not throw. */
export function runCli(argv: string[], environment: CliEnvironment): Promise<number> {
  const out = environment.stdout ??
    ((t: string) => void Deno.stdout.writeSync(new TextEncoder().encode(t)));
  const err = environment.stderr ??
    ((t: string) => void Deno.stderr.writeSync(new TextEncoder().encode(t)));
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: { version: { type: "boolean" }, help: { type: "boolean", short: "h" } },
    });
  } catch (e) {
    err(`moat: ${e instanceof Error ? e.message : String(e)}\nRun 'moat --help' for usage.\n`);
    return Promise.resolve(2);
  }
  if (parsed.values.version) {
    out(`moat ${VERSION}\n`);
    return Promise.resolve(0);
  }
  out(`moat ${VERSION}\n`);
  return Promise.resolve(0);
}
