/**
 * The moat command: argv/env in, exit code out. Parses argv, answers --help and --version, and
 * hands a run to print or interactive mode once src/cli/setup.ts has settled it (exit codes in
 * src/cli/exit.ts).
 */
import { isAbsolute } from "node:path";
import { fileURLToPath } from "node:url";
import type { Clock } from "../agent/mod.ts";
import type { PathOps } from "../policy/ops.ts";
import { VERSION } from "../version.ts";
import { helpText } from "./args.ts";
import { bareGrantValueError } from "./args_values.ts";
import { EXIT, usageError } from "./exit.ts";
import { type CliFs, type Terminal, writeMessage } from "./io.ts";
import { parseCommand } from "./sessions.ts";
import type { CliDeps } from "./setup.ts";

/** What runCli needs from the outside world; everything but env/cwd has a Deno default. */
export interface CliEnvironment {
  env: Record<string, string>;
  cwd: string;
  terminal?: Terminal;
  fs?: CliFs;
  clock?: Clock;
  now?: () => Date;
  paths?: PathOps;
  deps?: Partial<CliDeps>;
  /** The standard streams as byte streams (`moat acp` speaks its protocol on them). */
  stdio?: { input: ReadableStream<Uint8Array>; output: WritableStream<Uint8Array> };
  /**
   * moat's module root: the directory of main.ts, as a URL (main.ts passes it). Where the
   * checkout is and the Workers load from; default: found from this module (a bundled CLI's
   * chunks are elsewhere).
   */
  moduleRoot?: string;
}

/**
 * The variable the `start` task in deno.json sets to INIT_CWD, the directory `deno task` was run
 * from (the task itself runs in moat's checkout).
 */
export const TASK_CWD_VARIABLE = "MOAT_TASK_CWD";

/** moat's checkout (where `deno task` runs the start task): `moduleRoot`, else this one's. */
function projectRoot(moduleRoot: string | undefined): string {
  return fileURLToPath(moduleRoot ?? new URL("../..", import.meta.url));
}

/**
 * The directory moat was started from, and the environment without the task's variable (so no
 * program moat starts inherits it). Under `deno task start` that is the directory the user ran
 * the task from; only when the process runs in moat's checkout, as deno task runs it, so a
 * variable left in the environment cannot move a run started anywhere else (or with
 * `deno task --cwd DIR`).
 */
export async function startDirectory(
  environment: { env: Record<string, string>; cwd: string; moduleRoot?: string },
  fs: Pick<CliFs, "realPath">,
): Promise<{ env: Record<string, string>; cwd: string }> {
  const { [TASK_CWD_VARIABLE]: taskCwd, ...env } = environment.env;
  if (taskCwd === undefined || !isAbsolute(taskCwd)) return { env, cwd: environment.cwd };
  const [here, root] = await Promise.all([
    fs.realPath(environment.cwd),
    fs.realPath(projectRoot(environment.moduleRoot)),
  ]);
  return { env, cwd: here !== null && here === root ? taskCwd : environment.cwd };
}

/** Runs the moat command; returns the process exit code. Must not throw. */
export async function runCli(argv: string[], environment: CliEnvironment): Promise<number> {
  const terminal = environment.terminal ??
    (await import("../sys/terminal.ts")).createDenoTerminal();
  try {
    const fs = environment.fs ?? (await import("../sys/session_fs.ts")).createDenoCliFs();
    // Loaded only for a run: --help, --version and usage errors need no model or sandbox code.
    const loadDeps = async () =>
      ({
        ...await defaultDeps(environment.deps, fs, environment.moduleRoot),
        ...environment.deps,
      }) as CliDeps;
    const start = await startDirectory(environment, fs);
    return await runCommand(argv, { ...environment, ...start, fs }, terminal, loadDeps);
  } catch (e) {
    // A bug, not bad input: say so plainly, without a stack trace unless asked for.
    writeMessage(
      terminal,
      `moat: internal error: ${e instanceof Error ? e.message : String(e)}\n` +
        `This is a bug in moat; please report it${
          environment.env.MOAT_DEBUG ? "" : " (MOAT_DEBUG=1 shows the stack)"
        }.\n`,
    );
    if (environment.env.MOAT_DEBUG && e instanceof Error && e.stack) {
      terminal.writeStderr(e.stack + "\n");
    }
    return EXIT.modelError;
  } finally {
    // A line editor (interactive mode, the trust question) leaves the terminal as it found it.
    terminal.release?.();
  }
}

async function defaultDeps(
  given: Partial<CliDeps> | undefined,
  fs: CliFs,
  moduleRoot: string | undefined,
): Promise<CliDeps> {
  if (
    given?.createModel && given.openSandbox
  ) return given as CliDeps;
  return (await import("./deps.ts")).createDefaultDeps(
    fs,
    moduleRoot === undefined ? {} : { moduleRoot },
  );
}

async function runCommand(
  argv: string[],
  environment: CliEnvironment & { fs: CliFs },
  terminal: Terminal,
  loadDeps: () => Promise<CliDeps>,
): Promise<number> {
  const parsed = parseCommand(argv);
  if (!parsed.ok) return usageError(terminal, parsed.error);
  const paths = environment.paths ?? (await import("../sys/paths.ts")).createDenoScanOps();
  // `--allow-write src "task"`: Deno's lists follow "="; the bare flag would allow everything.
  const bareValue = parsed.command === "help" || parsed.command === "version"
    ? undefined
    : bareGrantValueError(argv[0] === "--" ? argv.slice(1) : argv, {
      paths,
      cwd: environment.cwd,
      ...(environment.env.PATH === undefined ? {} : { path: environment.env.PATH }),
      ...(environment.env.HOME === undefined ? {} : { home: environment.env.HOME }),
    });
  if (bareValue !== undefined) return usageError(terminal, bareValue);
  if (parsed.command === "help") {
    terminal.writeStdout(helpText(VERSION));
    return EXIT.ok;
  }
  if (parsed.command === "version") {
    terminal.writeStdout(`moat ${VERSION}\n`);
    return EXIT.ok;
  }
  // The model SDK and the sandbox load while the settings are read: they take the most time
  // before the first request.
  let deps: Promise<CliDeps> | undefined;
  if (
    parsed.command === "run" || parsed.command === "mcp" || parsed.command === "doctor" ||
    parsed.command === "acp"
  ) {
    deps = loadDeps();
    // Awaited by prepareRun when the run gets that far; a run that stops earlier ignores it.
    deps.catch(() => {});
  }
  if (parsed.command === "rewind") {
    const { rewindCommand } = await import("./rewind_command.ts");
    const rewind = (await loadDeps()).rewind;
    if (rewind === undefined) return usageError(terminal, "Rewind is not available here");
    const ops = (await import("../sys/paths.ts")).createDenoScanOps();
    return await rewindCommand(parsed.args, { ...environment, terminal, paths: ops, deps: rewind });
  }
  if (parsed.command === "acp") {
    const { runAcp } = await import("../acp/mod.ts");
    return await runAcp({
      flags: parsed.flags,
      terminal,
      cwd: environment.cwd,
      stdio: environment.stdio ?? (await import("../sys/stdio.ts")).denoStdio(),
      context: {
        env: environment.env,
        fs: environment.fs,
        clock: environment.clock ?? (await import("../sys/clock.ts")).systemClock,
        now: environment.now ?? (() => new Date()),
        paths,
        loadDeps: () => deps ??= loadDeps(),
      },
    });
  }
  const { prepareRun } = await import("./setup.ts");
  const prepared = await prepareRun(parsed, {
    env: environment.env,
    cwd: environment.cwd,
    terminal,
    fs: environment.fs,
    clock: environment.clock ?? (await import("../sys/clock.ts")).systemClock,
    now: environment.now ?? (() => new Date()),
    paths,
    loadDeps: () => deps ?? loadDeps(),
  });
  if ("exit" in prepared) return prepared.exit;
  const { flags, settings } = prepared.setup;
  if (flags.includeDeltas && (prepared.interactive || settings.output !== "jsonl")) {
    return usageError(
      terminal,
      prepared.interactive
        ? `Option '--include-deltas' only applies to '--output jsonl' in print mode: pass a ` +
          `prompt and '--output jsonl', or leave the option out`
        : `Option '--include-deltas' only applies to '--output jsonl': add '--output jsonl', or ` +
          `leave the option out`,
    );
  }
  if (prepared.mcpList) return await (await import("./mcp_list.ts")).mcpList(prepared.setup);
  if (prepared.doctor) return await (await import("./doctor.ts")).doctor(prepared.setup);
  // Each mode's graph is loaded only when it runs.
  return prepared.interactive
    ? await (await import("./modes/interactive.ts")).interactiveMode(prepared.setup)
    : await (await import("./modes/print.ts")).printMode(prepared.setup);
}
