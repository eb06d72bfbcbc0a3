/** Running this Deno's own subcommands from the scripts (`deno info`, `deno bundle`). */
import { relative } from "node:path";
import { fileURLToPath } from "node:url";

/** The standard output of `deno ARGS` run in `cwd`; throws with its standard error when it fails. */
export async function denoOutput(args: string[], cwd: string): Promise<string> {
  const out = await new Deno.Command(Deno.execPath(), {
    args,
    cwd,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder();
  if (!out.success) {
    throw new Error(`deno ${args.join(" ")} failed: ${text.decode(out.stderr).trim()}`);
  }
  return text.decode(out.stdout);
}

/**
 * The local modules (paths relative to `root`) of `entry`'s graph under `config`, as `deno info`
 * lists them: type-only and dynamic imports too (more than a bundle needs, never less).
 */
export async function localModules(root: string, config: string, entry: string): Promise<string[]> {
  const info = JSON.parse(
    await denoOutput(["info", "--json", "--config", config, entry], root),
  ) as { modules: Array<{ specifier: string }> };
  return info.modules.flatMap(({ specifier }) => {
    if (!specifier.startsWith("file:")) return [];
    const path = relative(root, fileURLToPath(specifier));
    return path.startsWith("..") ? [] : [path];
  });
}
