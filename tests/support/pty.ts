/**
 * Screen-level terminal tests: runs a command in a real pseudo-terminal (through
 * tests/support/pty_relay.py, python3's stdlib `pty`, since Deno has no pty API) and renders
 * what it prints with a headless terminal emulator (`@xterm/headless`), so a test asserts on the
 * text a person would see. Input is typed with `write`, `resize` changes the window (the child
 * gets SIGWINCH), and every output chunk is kept with its time for an asciinema cast.
 *
 * Usage: `await using term = await spawnMoatPty(["--allow-run=sleep"], { cwd, env });`
 * `await term.waitForText("› ")`, `await term.write("hello\r")`, `await term.screen()`.
 */
import xterm from "@xterm/headless";
import { cliEnv, startArgv } from "../e2e/_cli.ts";

const RELAY = new URL("./pty_relay.py", import.meta.url).pathname;
const PYTHON = "python3";

/** One chunk of what the terminal received, `atMs` after the command started. */
export interface OutputChunk {
  atMs: number;
  data: Uint8Array;
}

/** Options of spawnPty. */
export interface PtyOptions {
  cwd: string;
  /** The whole environment of the command (TERM defaults to xterm-256color). */
  env: Record<string, string>;
  /** Window size; default 80×24. */
  cols?: number;
  rows?: number;
  /** Directories removed by close() (e.g. a HOME made for this run). */
  ownedDirs?: string[];
}

/** Options of the waits. */
export interface WaitOptions {
  /** Failure guard only (a loaded machine can be slow); default 30 s. */
  timeoutMs?: number;
}

/** A command running in a pseudo-terminal, seen through a terminal emulator. */
export interface Pty extends AsyncDisposable {
  /** The current window size. */
  readonly cols: number;
  readonly rows: number;
  /** Every output chunk so far, with its time. */
  readonly chunks: readonly OutputChunk[];
  /** All output so far, decoded (escape sequences included). */
  readonly raw: string;
  /** Types `keys` ("\r" is Enter, "\x03" Ctrl-C, "\x1b" Esc). */
  write(keys: string): Promise<void>;
  /** The visible screen: one string per row, trailing blanks trimmed. */
  screen(): Promise<string[]>;
  /** Scrollback and screen, oldest first, trailing blanks trimmed. */
  lines(): Promise<string[]>;
  /** Resolves with the screen once `check(screen)` holds; checked after every output chunk. */
  waitForScreen(
    what: string,
    check: (screen: string[]) => boolean,
    options?: WaitOptions,
  ): Promise<string[]>;
  /** Resolves with the screen once its text (rows joined by "\n") contains or matches `text`. */
  waitForText(text: string | RegExp, options?: WaitOptions): Promise<string[]>;
  /** Resizes the window; resolves once the pty has the new size (the child got SIGWINCH). */
  resize(cols: number, rows: number): Promise<void>;
  /** The command's exit code (128 + N when killed by signal N), once all its output is parsed. */
  exited(): Promise<number>;
  /** Kills the command's whole process group and removes the owned directories. */
  close(): Promise<void>;
}

/** Whether python3 (for the relay) is here. */
export async function hasPython(): Promise<boolean> {
  try {
    const out = await new Deno.Command(PYTHON, {
      args: ["-c", "import pty, termios, fcntl"],
      stdout: "null",
      stderr: "null",
    }).output();
    return out.success;
  } catch {
    return false;
  }
}

/** Starts `command` (argv) in a pseudo-terminal. */
export function spawnPty(command: readonly string[], options: PtyOptions): Pty {
  let cols = options.cols ?? 80;
  let rows = options.rows ?? 24;
  const started = performance.now();
  const child = new Deno.Command(PYTHON, {
    args: [RELAY, String(cols), String(rows), "--", ...command],
    cwd: options.cwd,
    env: { TERM: "xterm-256color", ...options.env },
    clearEnv: true,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const term = new xterm.Terminal({ cols, rows, scrollback: 10_000, allowProposedApi: true });
  const chunks: OutputChunk[] = [];
  const decoder = new TextDecoder();
  let raw = "";
  let listeners: Array<() => void> = [];
  const notify = () => {
    const current = listeners;
    listeners = [];
    for (const listener of current) listener();
  };
  let parsed: Promise<void> = Promise.resolve();
  const pumpOut = (async () => {
    for await (const data of child.stdout) {
      chunks.push({ atMs: performance.now() - started, data });
      raw += decoder.decode(data, { stream: true });
      parsed = new Promise((resolve) => term.write(data, resolve));
      await parsed;
      notify();
    }
    notify();
  })();
  // The relay's own lines: "pid N", then one "resized C R" per resize; anything else is kept.
  let relayErr = "";
  let childPid: number | undefined;
  const pumpErr = (async () => {
    const errDecoder = new TextDecoder();
    for await (const data of child.stderr) {
      relayErr += errDecoder.decode(data, { stream: true });
      childPid ??= Number(/^pid (\d+)$/m.exec(relayErr)?.[1] ?? NaN) || undefined;
      notify();
    }
    notify();
  })();
  const stdin = child.stdin.getWriter();
  const frame = (kind: string, payload: Uint8Array) => {
    const out = new Uint8Array(5 + payload.length);
    out[0] = kind.charCodeAt(0);
    new DataView(out.buffer).setUint32(1, payload.length);
    out.set(payload, 5);
    return stdin.write(out);
  };
  let exitCode: number | undefined;
  const status = child.status.then((s) => {
    exitCode = s.code;
    notify();
    return s.code;
  });
  const trimmed = (y: number) =>
    term.buffer.active.getLine(y)?.translateToString(true).replace(/\s+$/, "") ?? "";
  const screen = async () => {
    await parsed;
    const buffer = term.buffer.active;
    return Array.from({ length: term.rows }, (_, i) => trimmed(buffer.viewportY + i));
  };
  const changed = () => new Promise<void>((resolve) => listeners.push(resolve));
  const until = async (
    what: string,
    ready: () => boolean | Promise<boolean>,
    timeoutMs: number,
  ) => {
    const deadline = Date.now() + timeoutMs;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timedOut = new Promise<"timeout">((resolve) => {
      timer = setTimeout(() => resolve("timeout"), timeoutMs);
    });
    try {
      for (;;) {
        const next = changed();
        if (await ready()) return;
        if (exitCode !== undefined) {
          throw new Error(`The command exited (code ${exitCode}) before ${what}:\n${await show()}`);
        }
        if ((await Promise.race([next, timedOut])) === "timeout" || Date.now() > deadline) {
          throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}:\n${await show()}`);
        }
      }
    } finally {
      clearTimeout(timer);
    }
  };
  const show = async () =>
    `--- screen ---\n${(await screen()).join("\n")}\n--- relay ---\n${relayErr}`;
  let closing: Promise<void> | undefined;
  const pty: Pty = {
    get cols() {
      return cols;
    },
    get rows() {
      return rows;
    },
    chunks,
    get raw() {
      return raw;
    },
    async write(keys) {
      await frame("k", new TextEncoder().encode(keys));
    },
    screen,
    async lines() {
      await parsed;
      const buffer = term.buffer.active;
      return Array.from({ length: buffer.length }, (_, y) => trimmed(y)).join("\n")
        .replace(/\n+$/, "").split("\n");
    },
    async waitForScreen(what, check, opts = {}) {
      let last: string[] = [];
      await until(what, async () => check(last = await screen()), opts.timeoutMs ?? 30_000);
      return last;
    },
    waitForText(text, opts = {}) {
      const matches = (s: string[]) =>
        typeof text === "string" ? s.join("\n").includes(text) : text.test(s.join("\n"));
      return pty.waitForScreen(`the screen to show ${JSON.stringify(String(text))}`, matches, opts);
    },
    async resize(newCols, newRows) {
      const acks = relayErr.split("\n").filter((l) => l.startsWith("resized ")).length;
      await frame("r", new TextEncoder().encode(`${newCols} ${newRows}`));
      await until(
        `the pty to be resized to ${newCols}×${newRows}`,
        () => relayErr.split("\n").filter((l) => l.startsWith("resized ")).length > acks,
        30_000,
      );
      cols = newCols;
      rows = newRows;
      term.resize(newCols, newRows);
    },
    async exited() {
      const code = await status;
      // Everything the command printed is on the emulator's screen by then.
      await pumpOut;
      await parsed;
      return code;
    },
    close() {
      closing ??= (async () => {
        // Stdin EOF makes the relay kill the child's process group; SIGKILL is the backstop.
        await stdin.close().catch(() => {});
        let timer: ReturnType<typeof setTimeout> | undefined;
        const gone = await Promise.race([
          status.then(() => true),
          new Promise<boolean>((resolve) => timer = setTimeout(() => resolve(false), 10_000)),
        ]);
        clearTimeout(timer);
        if (!gone) {
          if (childPid !== undefined) tryKill(-childPid);
          tryKill(child.pid);
        }
        await status;
        await Promise.all([pumpOut, pumpErr]);
        await parsed;
        term.dispose();
        for (const dir of options.ownedDirs ?? []) {
          await Deno.remove(dir, { recursive: true }).catch(() => {});
        }
      })();
      return closing;
    },
    [Symbol.asyncDispose]() {
      return pty.close();
    },
  };
  return pty;
}

function tryKill(pid: number) {
  try {
    Deno.kill(pid, "SIGKILL");
  } catch {
    // Already gone.
  }
}

/** Options of spawnMoatPty. */
export interface MoatPtyOptions {
  /** The project directory moat runs in. */
  cwd: string;
  /** Added to (or replacing) cliEnv's variables; `null` removes one (e.g. `NO_COLOR: null`). */
  env?: Record<string, string | null>;
  cols?: number;
  rows?: number;
}

/**
 * Starts the moat CLI in a pseudo-terminal exactly as the e2e tests run it (`startArgv`), with
 * cliEnv's environment and a HOME of its own (`home`) that close() removes.
 */
export async function spawnMoatPty(
  args: readonly string[],
  options: MoatPtyOptions,
): Promise<Pty & { home: string }> {
  const home = await Deno.makeTempDir({ prefix: "moat-pty-home-" });
  const env = cliEnv(home);
  for (const [name, value] of Object.entries(options.env ?? {})) {
    if (value === null) delete env[name];
    else env[name] = value;
  }
  const pty = spawnPty([Deno.execPath(), ...(await startArgv(args))], {
    cwd: options.cwd,
    env,
    ...(options.cols !== undefined ? { cols: options.cols } : {}),
    ...(options.rows !== undefined ? { rows: options.rows } : {}),
    ownedDirs: [home],
  });
  return Object.assign(pty, { home });
}

/** Options of spawnMoatAtPrompt: spawnMoatPty's, and the fake server moat talks to. */
export interface FakeServerPtyOptions extends MoatPtyOptions {
  /** The fake OpenAI server's base URL (tests/support/fake_openai.ts); the key is "k". */
  baseURL: string;
  /** Colour allowed (NO_COLOR unset); default false, NO_COLOR=1. */
  color?: boolean;
}

/** spawnMoatPty talking to the fake server at `options.baseURL`, once its first prompt (`›`) shows. */
export async function spawnMoatAtPrompt(
  args: readonly string[],
  options: FakeServerPtyOptions,
): Promise<Pty & { home: string }> {
  const { baseURL, color, env, ...rest } = options;
  const pty = await spawnMoatPty(args, {
    ...rest,
    env: { OPENAI_BASE_URL: baseURL, OPENAI_API_KEY: "k", NO_COLOR: color ? null : "1", ...env },
  });
  try {
    await pty.waitForText(/^›$/m);
  } catch (error) {
    await pty[Symbol.asyncDispose]();
    throw error;
  }
  return pty;
}
