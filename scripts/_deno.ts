/** Running this Deno's own subcommands from the scripts (`deno info`, `deno bundle`). */

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
