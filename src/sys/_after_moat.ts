/**
 * A bash script that runs once moat is gone: a process in a session of its own (a signal to moat's
 * process group leaves it be) whose standard input is a pipe from moat, so it sees the end of
 * that input when moat closes it — or when the kernel does, because moat died (SIGKILL included).
 */

/** The script's side of the pipe: ends it and waits for the script to finish. */
export interface AfterMoat {
  /** Writes `line` (and a newline) to the script's stdin; never throws. */
  send(line: string): void;
  /** Ends the pipe and waits for the script; never rejects. */
  close(): Promise<void>;
}

/**
 * Starts `script` (`bash -c script name …args`, with only PATH in its environment); the script
 * itself waits for the end of its stdin. Undefined when bash cannot be started.
 */
export function startAfterMoat(
  script: string,
  name: string,
  args: string[],
): AfterMoat | undefined {
  let child: Deno.ChildProcess;
  try {
    child = new Deno.Command("bash", {
      args: ["-c", script, name, ...args],
      clearEnv: true,
      env: { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin" },
      detached: true,
      stdin: "piped",
      stdout: "null",
      stderr: "null",
    }).spawn();
  } catch {
    return undefined;
  }
  const writer = child.stdin.getWriter();
  let closing: Promise<void> | undefined;
  // Writes in order; a failed one (the script is gone) is dropped.
  let writing: Promise<void> = Promise.resolve();
  const encoder = new TextEncoder();
  return {
    send(line) {
      writing = writing.then(() => writer.write(encoder.encode(`${line}\n`))).catch(() => {});
    },
    close() {
      closing ??= (async () => {
        await writing;
        await writer.close().catch(() => {});
        await child.status.catch(() => {});
      })();
      return closing;
    },
  };
}
