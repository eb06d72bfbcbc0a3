/**
 * The one effect the checkpoint store needs: running `git`. The Deno implementation is
 * src/sys/git.ts.
 */

/** One `git` invocation: its arguments, extra environment, directory and standard input. */
export interface GitCommand {
  args: string[];
  /** Added to (and overriding) the inherited environment. */
  env: Record<string, string>;
  cwd: string;
  /** Written to standard input, which is closed after it (empty input when absent). */
  stdin?: string;
}

/** How a `git` invocation ended: a failure to start is `code` -1 with the reason in `stderr`. */
export interface GitResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `git`; never throws. */
export interface GitOps {
  /** Runs `git` with `command.args` and resolves once it has exited. */
  run(command: GitCommand): Promise<GitResult>;
}
