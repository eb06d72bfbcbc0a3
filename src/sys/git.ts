/** The Deno implementation of GitOps: `git` from PATH, piped stdio, failures to start as data. */
import type { GitCommand, GitOps, GitResult } from "../rewind/git_ops.ts";

/** Creates Deno-backed `git` operations. */
export function createDenoGitOps(): GitOps {
  return { run: runGit };
}

async function runGit(command: GitCommand): Promise<GitResult> {
  let child: Deno.ChildProcess;
  try {
    child = new Deno.Command("git", {
      args: command.args,
      env: command.env,
      cwd: command.cwd,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
  } catch (e) {
    return { code: -1, stdout: "", stderr: `Could not start "git": ${(e as Error).message}` };
  }
  const writer = child.stdin.getWriter();
  try {
    if (command.stdin) await writer.write(new TextEncoder().encode(command.stdin));
    await writer.close();
  } catch {
    // git exited before reading its input; its exit code and stderr tell why.
  }
  const out = await child.output();
  const decoder = new TextDecoder();
  return { code: out.code, stdout: decoder.decode(out.stdout), stderr: decoder.decode(out.stderr) };
}
