/**
 * A pseudo-terminal driver for interactive tests: runs a command under util-linux `script`, so
 * the command's stdin/stdout/stderr are a real TTY; input written here is "typed" (Ctrl-C included).
 */

/** A running command on a pseudo-terminal. */
export interface PtySession extends AsyncDisposable {
  /** Everything the terminal showed so far (stdout and stderr interleaved, echo included). */
  readonly output: string;
  /** Types text (use "\r" for Enter, "\x03" for Ctrl-C, "\x04" for Ctrl-D). */
  type(text: string): Promise<void>;
  /** Resolves once the output after `from` (an index into output) matches `pattern`. */
  waitFor(pattern: RegExp, options?: { from?: number; timeoutMs?: number }): Promise<string>;
  /** Resolves with the exit code of the command. */
  exited(): Promise<number>;
}

function shellQuote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** Whether util-linux `script` can be used here. */
export async function hasScript(): Promise<boolean> {
  try {
    const out = await new Deno.Command("script", {
      args: ["--version"],
      stdout: "null",
      stderr: "null",
    })
      .output();
    return out.success;
  } catch {
    return false;
  }
}

/** Starts `command` on a pseudo-terminal. */
export function startPty(
  command: string[],
  options: { cwd: string; env: Record<string, string> },
): PtySession {
  const child = new Deno.Command("script", {
    // `exec`: no shell stays in between to catch the terminal's signals or change the exit code.
    args: ["-qefc", `exec ${command.map(shellQuote).join(" ")}`, "/dev/null"],
    cwd: options.cwd,
    env: { TERM: "xterm", ...options.env },
    clearEnv: true,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let output = "";
  let changed: () => void = () => {};
  const decoder = new TextDecoder();
  const pump = async (stream: ReadableStream<Uint8Array>) => {
    for await (const chunk of stream) {
      output += decoder.decode(chunk, { stream: true });
      changed();
    }
  };
  const pumps = Promise.all([pump(child.stdout), pump(child.stderr)]);
  const writer = child.stdin.getWriter();
  let closed = false;
  const status = child.status;
  const session: PtySession = {
    get output() {
      return output;
    },
    async type(text) {
      await writer.write(new TextEncoder().encode(text));
    },
    async waitFor(pattern, opts = {}) {
      const from = opts.from ?? 0;
      const deadline = Date.now() + (opts.timeoutMs ?? 30_000);
      for (;;) {
        const tail = output.slice(from);
        if (pattern.test(tail)) return tail;
        const remaining = deadline - Date.now();
        if (remaining <= 0) {
          throw new Error(`timed out waiting for ${pattern}; terminal showed:\n${output}`);
        }
        let timer: ReturnType<typeof setTimeout> | undefined;
        await Promise.race([
          new Promise<void>((resolve) => changed = resolve),
          new Promise<void>((resolve) => timer = setTimeout(resolve, Math.min(remaining, 200))),
        ]);
        clearTimeout(timer);
      }
    },
    async exited() {
      const s = await status;
      return s.code;
    },
    async [Symbol.asyncDispose]() {
      if (!closed) {
        closed = true;
        await writer.close().catch(() => {});
      }
      try {
        child.kill("SIGKILL");
      } catch {
        // Already exited.
      }
      await status;
      await pumps;
    },
  };
  return session;
}
