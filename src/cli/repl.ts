/**
 * Interactive mode: a prompt line, streamed answers, Ctrl-C aborts the running turn (and exits at
 * the prompt), Ctrl-D exits, lines typed while a run is busy are queued and delivered when the
 * model stops, approval questions take one key (a typed line when piped), and slash commands.
 */
import type { CliSignal, Terminal } from "./io.ts";
import { escapeControls } from "../term/terminal_text.ts";
import { helpWithPrompts, type PromptCommand } from "./repl_prompts.ts";

export type { PromptCommand } from "./repl_prompts.ts";

export {
  createLineSource,
  createReplPrompter,
  type LineControl,
  type LineSource,
  type ReplPrompterOptions,
} from "./repl_lines.ts";
import type { LineSource } from "./repl_lines.ts";

/** What the REPL asks its host (run.ts) to do. */
export interface ReplHost {
  /** Runs one prompt to completion or abort; renders output; must not reject. */
  runPrompt(
    text: string,
    signal: AbortSignal,
    getQueued: () => string[],
  ): Promise<void>;
  /** /model NAME: switches the model; returns the line to show. */
  setModel(name: string): string;
  /** The current model name. */
  model(): string;
  /** /clear: starts a new session; returns the line to show. */
  clear(): Promise<string>;
  /** /compact [FOCUS]: compacts the conversation now; returns the line to show (or ""). */
  compact(focus: string, signal: AbortSignal): Promise<string>;
  /** /grants: the effective grants, human-readable. */
  grants(): string;
  /** /rewind [ARG]: lists the turns or rewinds the files (src/cli/rewind_repl.ts). */
  rewind?(arg: string): Promise<string>;
  /** /jobs: the background jobs of the session and their states. */
  jobs?(): Promise<string>;
  /** Shows a line among a run's output, after the line being streamed (queued messages). */
  note?(text: string): void;
  /** More slash commands (MCP prompts): each expands to the text of a request. */
  promptCommands?(): PromptCommand[];
}

/** Options of runRepl. */
export interface ReplOptions {
  terminal: Terminal;
  source: LineSource;
  host: ReplHost;
  /** First lines shown (version, model, workspace). */
  banner: string;
  color: boolean;
  /**
   * Lines arriving within this many ms of a prompt line are part of it (a multi-line paste is
   * one request, not one request per line); default PASTE_WINDOW_MS.
   */
  pasteWindowMs?: number;
}

/** A Ctrl-C at the prompt this soon after one that aborted a run is part of that press. */
export const DOUBLE_PRESS_MS = 1000;

const SLASH_COMMANDS = [
  "/help",
  "/exit",
  "/quit",
  "/clear",
  "/compact",
  "/model",
  "/grants",
  "/rewind",
  "/jobs",
];

/** Whether `line` is a slash command (never sent to the model as a queued message). */
function isCommand(line: string, host: ReplHost): boolean {
  const first = line.trim().split(/\s+/)[0] ?? "";
  return SLASH_COMMANDS.includes(first) ||
    (host.promptCommands?.().some((p) => p.name === first) ?? false);
}

/** How long after a prompt line further lines still count as the same (pasted) request. */
export const PASTE_WINDOW_MS = 50;

/**
 * Takes the lines that follow `first` within `windowMs` of each other (a paste); a signal
 * meanwhile wins.
 */
function collectPaste(
  source: LineSource,
  first: string,
  windowMs: number,
  signalled: Promise<CliSignal>,
): Promise<string | CliSignal> {
  return new Promise((resolve) => {
    const lines = [first];
    let timer: ReturnType<typeof setTimeout> | undefined;
    const wait = () => {
      timer = setTimeout(() => {
        const more = source.drain();
        if (more.length === 0) {
          timer = undefined;
          resolve(lines.join("\n"));
          return;
        }
        lines.push(...more);
        wait();
      }, windowMs);
    };
    signalled.then((signal) => {
      if (timer === undefined) return;
      clearTimeout(timer);
      timer = undefined;
      resolve(signal);
    });
    wait();
  });
}

/** The slash commands' help. */
export const REPL_HELP = `Commands:
  /help          show this help
  /exit          leave (also Ctrl-D, or Ctrl-C at the prompt)
  /clear         start a new session (forget the conversation)
  /compact [FOCUS]
                 summarise the conversation now to free context (FOCUS: what to keep)
  /model NAME    switch the model (without NAME: show it)
  /grants        show what the tools may touch
  /rewind [N]    list the turns; restore the files to before turn N ('chat': the talk too)
  /jobs          list the background jobs (killed when moat exits)
Ctrl-C or Esc while the agent works aborts the turn (running tools are killed).
Lines typed while the agent works are queued and sent when it stops.
Editing: arrows, Home/End, Ctrl-A/E/W/U/K/Y; up/down recall earlier requests in this workspace.
Several lines: paste them, or end a line with \\ or press Alt-Enter for a newline; Enter sends.`;

/**
 * Runs the interactive loop; resolves to the exit code (0 on /exit, Ctrl-D or Ctrl-C at the
 * prompt; 143 on SIGTERM).
 */
export async function runRepl(options: ReplOptions): Promise<number> {
  const { terminal, source, host } = options;
  const c = (code: string, text: string) => options.color ? `\x1b[${code}m${text}\x1b[0m` : text;
  let current: AbortController | undefined;
  let wakeIdle: ((signal: CliSignal) => void) | undefined;
  let terminated = false;
  // When Ctrl-C last aborted a run: a second press meant for the same run must not exit moat.
  let abortedAt = -Infinity;
  const onSignal = (signal: CliSignal) => () => {
    if (signal === "SIGTERM") terminated = true;
    if (current !== undefined) {
      abortedAt = Date.now();
      source.cancelWaiters();
      current.abort();
    } else {
      wakeIdle?.(signal);
    }
  };
  const unsubscribe = [
    terminal.onSignal("SIGINT", onSignal("SIGINT")),
    terminal.onSignal("SIGTERM", onSignal("SIGTERM")),
    // A line typed while a run is busy waits for the model to stop: say so.
    source.onBuffered((line) => {
      if (current !== undefined) host.note?.(`queued: ${line}`);
    }),
  ];
  try {
    terminal.writeStdout(options.banner);
    for (;;) {
      if (terminated) return 143;
      // Lines typed after the last run's final reply are waiting in the buffer: next() returns them.
      terminal.writeStdout(c("1;36", "› "));
      const idle = new Promise<CliSignal>((resolve) => wakeIdle = resolve);
      const typedAhead = source.buffered > 0;
      const next = await Promise.race([source.next(), idle]);
      if (next === "SIGINT" && Date.now() - abortedAt < DOUBLE_PRESS_MS) {
        wakeIdle = undefined;
        abortedAt = -Infinity;
        // The unanswered next() must not swallow the line typed after this.
        source.cancelWaiters();
        terminal.writeStdout("\n(the turn was already aborted; Ctrl-C again or Ctrl-D exits)\n");
        continue;
      }
      if (next === "SIGINT" || next === "SIGTERM") {
        wakeIdle = undefined;
        terminal.writeStdout("\n");
        return next === "SIGTERM" ? 143 : 0;
      }
      if (next === null) {
        wakeIdle = undefined;
        terminal.writeStdout("\n");
        return 0;
      }
      // A line typed ahead was not on the prompt's line yet.
      if (typedAhead) terminal.writeStdout(`${escapeControls(next)}\n`);
      // Lines typed ahead (while a run was busy) stay separate; a command is never a paste.
      const line = typedAhead || isCommand(next, host)
        ? next
        : await collectPaste(source, next, options.pasteWindowMs ?? PASTE_WINDOW_MS, idle);
      wakeIdle = undefined;
      if (line === "SIGTERM") return 143;
      // Ctrl-C right after Enter drops that request, like Ctrl-C during its run.
      if (line === "SIGINT") {
        terminal.writeStdout(c("33", "(aborted — ask again or /exit)\n"));
        continue;
      }
      const text = line.trim();
      if (text === "") continue;
      let request = text;
      // A slash command is one line on its own; a pasted text that starts with "/" is a request.
      if (text.startsWith("/") && !text.includes("\n")) {
        const [command, ...rest] = text.split(/\s+/);
        const arg = rest.join(" ");
        switch (command) {
          case "/exit":
          case "/quit":
            return 0;
          case "/help":
            terminal.writeStdout(helpWithPrompts(REPL_HELP, host.promptCommands?.() ?? []) + "\n");
            continue;
          case "/clear":
            terminal.writeStdout((await host.clear()) + "\n");
            continue;
          case "/compact": {
            // Ctrl-C stops the summary request like a run; lines typed meanwhile wait.
            current = new AbortController();
            // Lines typed meanwhile are kept, not drawn over the compaction's spinner.
            source.setBusy(true);
            const said = await host.compact(arg, current.signal);
            source.setBusy(false);
            current = undefined;
            if (said !== "") terminal.writeStdout(said + "\n");
            if (terminated) return 143;
            continue;
          }
          case "/model":
            terminal.writeStdout(
              (arg === "" ? `Model: ${host.model()}` : host.setModel(arg)) + "\n",
            );
            continue;
          case "/grants":
            terminal.writeStdout(`Grants: ${host.grants()}\n`);
            continue;
          case "/rewind":
            terminal.writeStdout(`${await host.rewind?.(arg) ?? "Rewind is not available."}\n`);
            continue;
          case "/jobs":
            terminal.writeStdout(`${(await host.jobs?.()) ?? "No background jobs."}\n`);
            continue;
          default: {
            const prompt = host.promptCommands?.().find((p) => p.name === command);
            if (prompt === undefined) {
              terminal.writeStdout(`Unknown command ${command}; /help lists the commands.\n`);
              continue;
            }
            // Getting the prompt is a request to its server: Ctrl-C stops it.
            current = new AbortController();
            const expanded = await prompt.expand(
              text.slice(prompt.name.length).trim(),
              current.signal,
            );
            current = undefined;
            if (terminated) return 143;
            if (!expanded.ok) {
              terminal.writeStdout(`${escapeControls(expanded.error)}\n`);
              continue;
            }
            request = expanded.text;
          }
        }
      }
      current = new AbortController();
      source.setBusy(true);
      // Queued lines go to the model as they are shown; a command waits for the prompt.
      await host.runPrompt(request, current.signal, () => {
        const queued = source.drain((queuedLine) => !isCommand(queuedLine, host));
        for (const queuedLine of queued) host.note?.(`› ${queuedLine}`);
        return queued;
      });
      source.setBusy(false);
      const aborted = current.signal.aborted;
      current = undefined;
      if (terminated) return 143;
      if (aborted) terminal.writeStdout(c("33", "(aborted — ask again or /exit)\n"));
    }
  } finally {
    for (const off of unsubscribe) off();
  }
}
