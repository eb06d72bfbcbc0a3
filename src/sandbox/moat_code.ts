/**
 * moat's own code, found from the running process: what the next moat run executes outside any
 * sandbox, so that a write grant around it must not let the tools change it (src/policy/
 * protected.ts protects it as "moat_code"). In every mode the executable (the deno binary under
 * `deno run`; the compiled release is moat itself, its code embedded), with the outermost
 * `node_modules` above it when npm installed it; under `deno run` also the
 * directory of the main module (moat's checkout: src/, main.ts, deno.json, deno.lock, the tool
 * host's config, and whatever else Deno may read there, such as a package.json or node_modules)
 * and Deno's cache directory (npm packages, remote modules, transpiled and code caches), and the
 * directory of the `--config` Deno runs it with (with the command script of `deno install`).
 *
 * Like every protected path, a grant names moat's checkout to lift it, also when the checkout is
 * the workspace: `moat --allow-write=.` (or `=src`) in the checkout edits moat, a bare
 * `--allow-write` or `-A` there does not — the code runs at every later moat run, anywhere, not
 * only when the user runs the project they asked about.
 */
import { basename, dirname, join, sep } from "node:path";
import { fileURLToPath } from "node:url";
import type { MoatCodePath } from "../policy/mod.ts";
import type { RuntimeOps } from "./ops.ts";

/** moat's own code for `runtime` under moat's environment `env`; no look-up, no subprocess. */
export function moatCode(
  runtime: Pick<RuntimeOps, "execPath" | "mainModule" | "standalone" | "cacheDir" | "configFile">,
  env: Record<string, string>,
): MoatCodePath[] {
  const executable = runtime.execPath();
  const code: MoatCodePath[] = [{ path: executable, kind: "file" }];
  // Installed from npm (`npx deno`, `npm i deno`): the launcher (`.bin/deno`, the package's
  // bin.cjs) and the binary's hardlinks in the platform package start it too. The outermost
  // node_modules holds them all.
  const parts = executable.split(sep);
  const modules = parts.indexOf("node_modules");
  if (modules > 0) code.push({ path: parts.slice(0, modules + 1).join(sep), kind: "dir" });
  if (runtime.standalone()) return code;
  const main = runtime.mainModule();
  // A remote main module lives in Deno's cache, which is protected below.
  if (main.startsWith("file:")) code.push({ path: dirname(fileURLToPath(main)), kind: "dir" });
  // The config Deno runs moat with decides the modules it loads (its import map and lock):
  // `deno install --global` keeps it in ROOT/bin/.NAME/, next to the command script ROOT/bin/NAME.
  const config = runtime.configFile();
  if (config !== undefined) {
    const dir = dirname(config);
    code.push({ path: dir, kind: "dir" });
    const name = basename(dir);
    if (basename(dirname(dir)) === "bin" && name.startsWith(".") && name.length > 1) {
      code.push({ path: join(dirname(dir), name.slice(1)), kind: "file" });
    }
  }
  const cache = runtime.cacheDir(env);
  if (cache !== undefined) code.push({ path: cache, kind: "dir" });
  return code.filter((c, i) => code.findIndex((d) => d.path === c.path) === i);
}
