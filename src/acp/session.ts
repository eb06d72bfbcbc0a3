/**
 * One ACP session: a moat run setup for the session's cwd (config, trust, grants relative to it),
 * its engine (sandbox, system prompt with AGENTS.md, MCP servers), its session file and history,
 * and one agent turn per `session/prompt`. The engine is reopened between prompts when the
 * grants change: a permission set chosen as the mode, or the project trusted at the first prompt.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { basename } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import type { Message, ModelClient } from "../model/types.ts";
import type { SessionWriter } from "../session/store.ts";
import { findSessionById } from "../session/catalog.ts";
import type { Reporter } from "../report/mod.ts";
import type { CliFlags } from "../cli/args.ts";
import { type Engine, openEngine } from "../cli/engine.ts";
import { modelClientOptions } from "../cli/model_options.ts";
import { knownContextWindow } from "../model/context_window.ts";
import { openSession } from "../cli/open_session.ts";
import { prepareRun } from "../cli/setup.ts";
import type { RunSetup } from "../cli/setup.ts";
import type { AskTrust, TrustAnswer, TrustRequest } from "../cli/trust.ts";
import { workspaceSessionDir } from "../cli/sessions.ts";
import { withEditorServers } from "./mcp.ts";
import { editorTrust, trustAnswerOf, trustRequest } from "./trust.ts";
import { type CheckedCalls, recordChecked, throughEditor } from "./editor_files.ts";
import { type Mode, modeId, modeOf, modePolicy, modeState } from "./modes.ts";
import { type OfferedSet, sessionSets } from "./sets.ts";
import { createEditorPrompter, type PendingCall } from "./permission.ts";
import { toolTitle } from "./updates.ts";
import { observer, runTurn, type TurnContext } from "./turn.ts";

import type { AcpHost } from "./host.ts";

/** An open session. */
export interface AcpSession {
  id: string;
  /** The setup of the engine now open. */
  readonly setup: RunSetup;
  history: Message[];
  prompt(blocks: readonly acp.ContentBlock[]): Promise<acp.StopReason>;
  /** The permission presets and the current one. */
  modes(): acp.SessionModeState;
  /**
   * Switches the preset (an unknown id is an invalid-params error); a permission set, or back
   * from one, opens a new engine, refused while a prompt runs.
   */
  setMode(id: string): Promise<void>;
  cancel(): void;
  close(): Promise<void>;
}

/** A session's request: where it runs and the editor's MCP servers. */
type SessionRequest = { cwd: string; mcpServers?: readonly acp.McpServer[] };

/** The run setup for the session's cwd with `flags` (the editor's MCP servers added). */
async function prepareSetup(
  host: AcpHost,
  request: SessionRequest,
  options: { flags: CliFlags; askTrust: AskTrust },
): Promise<RunSetup> {
  const cwd = request.cwd;
  // What this setup writes is the error the editor shows: earlier text is not part of it.
  host.terminal.lastText();
  const prepared = await prepareRun({ command: "run", flags: options.flags }, {
    ...host.context,
    cwd,
    terminal: host.terminal,
    askTrust: options.askTrust,
  });
  if ("exit" in prepared) {
    throw acp.RequestError.invalidParams(
      undefined,
      `moat cannot open a session in "${cwd}": ${host.terminal.lastText().trim()}`,
    );
  }
  const setup = prepared.setup;
  const mcp = withEditorServers(setup.settings.mcpServers, request.mcpServers ?? []);
  if (!mcp.ok) throw acp.RequestError.invalidParams(undefined, mcp.error);
  setup.settings.mcpServers = mcp.servers;
  return setup;
}

/** The session file: a new one, or (`load`) the one with that id in the workspace's sessions. */
async function sessionFile(
  setup: RunSetup,
  warn: (message: string) => void,
  load: string | undefined,
): Promise<{ writer: SessionWriter | null; history: Message[] }> {
  let resumed: string | undefined;
  if (load !== undefined) {
    const dir = await workspaceSessionDir(setup.env, setup.workspace);
    const found = dir === undefined ? undefined : await findSessionById(setup.fs, dir, load);
    if (found === undefined || !found.ok) throw acp.RequestError.resourceNotFound(load);
    resumed = found.path;
  }
  const session = await openSession(setup, warn, resumed === undefined ? {} : { resumed });
  if (!session.ok) throw acp.RequestError.internalError(undefined, session.error);
  return session;
}

/** The modes with an engine of their own (read-only is a look on top of one). */
type EngineMode = Exclude<Mode, { kind: "read-only" }>;

/** What one opening of the session's engine holds. */
interface SessionRun {
  setup: RunSetup;
  engine: Engine;
  model: ModelClient;
  /** The permission sets offered as modes. */
  sets: OfferedSet[];
}

/**
 * The project trust of a session: the answer once given (reused by every later setup), and the
 * questions a new session put off to its first prompt (the editor does not know it before).
 */
function sessionTrust(host: AcpHost, load: string | undefined) {
  const state: { answer?: TrustAnswer; pending: TrustRequest[] } = { pending: [] };
  // Loading, the session is known to the editor: the question is asked in it at once.
  const ask = load === undefined
    ? undefined
    : editorTrust(load, (params) => host.requestPermission(params));
  const askTrust: AskTrust = async (question) => {
    if (state.answer !== undefined) return state.answer;
    if (ask !== undefined) return state.answer = await ask(question);
    // Reopened before the first prompt (a mode switch): the same question, asked once.
    if (!state.pending.some((q) => q.configFile === question.configFile)) {
      state.pending.push(question);
    }
    return "ignore";
  };
  return { state, askTrust };
}

/** Opens a session in `cwd`: a new one, or (`load`) the moat session file with that id. */
export async function openAcpSession(
  host: AcpHost,
  request: SessionRequest,
  load?: string,
): Promise<AcpSession> {
  const notes: string[] = [];
  const warn = (message: string) => {
    host.log(`moat: warning: ${message}\n`);
    notes.push(`warning: ${message}`);
  };
  const trust = sessionTrust(host, load);
  const askTrust = trust.askTrust;
  const firstSetup = await prepareSetup(host, request, { flags: host.flags, askTrust });
  const { writer, history } = await sessionFile(firstSetup, warn, load);
  const id = writer === null ? crypto.randomUUID() : basename(writer.path, ".jsonl");
  const calls = new Map<string, PendingCall>();
  const asking = new AsyncLocalStorage<PendingCall>();
  let running: AbortController | undefined;
  let switching: Promise<void> | undefined;
  // The grants the engine was opened with, and the read-only look on top of them.
  let engineMode: EngineMode = { kind: "grants" };
  let readOnly = false;
  const reporter: Reporter = {
    start: () => {},
    event: () => {},
    warning: warn,
    end: () => {},
    dispose: () => {},
  };
  const prompter = createEditorPrompter({
    request: host.requestPermission,
    sessionId: id,
    callOf: (name) => asking.getStore() ?? calls.get(name),
    signal: () => running?.signal,
  });
  const start = async (setup: RunSetup): Promise<SessionRun> => {
    // The modes need only the setup: listed while the sandbox and MCP servers start.
    const [opened, listed] = await Promise.all([
      openEngine(setup, prompter, reporter),
      sessionSets(setup, { flags: host.flags, paths: host.context.paths }),
    ]);
    if (!opened.ok) throw acp.RequestError.internalError(undefined, opened.error);
    const engine = opened.engine;
    wireCalls(engine, { host, id, setup, asking, readOnly: () => readOnly });
    for (
      const w of [
        ...setup.settings.warnings,
        ...setup.grantNotes,
        ...engine.sandbox.warnings,
        ...engine.startReporting(),
        ...opened.contextWarnings,
        ...listed.notes,
      ]
    ) warn(w);
    const model = setup.deps.createModel(modelClientOptions(setup, setup.settings.model, warn));
    return { setup, engine, model, sets: listed.sets };
  };
  let current = await start(firstSetup);
  /** Opens the engine of `mode` (the current one: after a trust answer), then closes the old. */
  const reopen = async (mode: EngineMode) => {
    const set = mode.kind === "set" ? current.sets.find((s) => s.name === mode.name) : undefined;
    const flags = set?.flags ?? host.flags;
    const next = await start(await prepareSetup(host, request, { flags, askTrust }));
    const old = current;
    current = next;
    engineMode = mode;
    await old.engine.close();
  };
  const observe = observer({
    host,
    id,
    setup: firstSetup,
    calls,
    window: () =>
      current.engine.contexts.get(current.setup.settings.model)?.window ??
        current.setup.settings.contextWindow ?? knownContextWindow(current.setup.settings.model),
  });
  const turn = (): TurnContext => ({
    host,
    id,
    setup: current.setup,
    engine: current.engine,
    model: current.model,
    history,
    writer,
    reporter,
    observe,
    notes,
  });
  /** The put-off trust question, asked before the first prompt's request; no answer = ignore. */
  const settleTrust = async (signal: AbortSignal) => {
    const asked = trust.state.pending.splice(0);
    if (asked.length === 0) return;
    let answer: TrustAnswer = "ignore";
    try {
      answer = trustAnswerOf(await host.requestPermission(trustRequest(id, asked), signal));
    } catch {
      // The editor failed or went away: it did not say yes.
    }
    trust.state.answer = answer;
    if (answer === "ignore") {
      notes.push(
        `The project's sensitive settings (${
          [...new Set(asked.flatMap((q) => q.settings.map((s) => s.key)))].join(", ")
        }) were not trusted, so this session goes on without them`,
      );
      return;
    }
    // The warnings of the untrusted opening no longer hold: the new one says its own.
    notes.splice(0);
    await reopen(engineMode);
  };
  const mode = (): Mode => readOnly ? { kind: "read-only" } : engineMode;
  return {
    id,
    get setup() {
      return current.setup;
    },
    history,
    async prompt(blocks) {
      if (running !== undefined) {
        throw acp.RequestError.invalidRequest(
          undefined,
          "A prompt is already running in this session: wait for it or cancel it",
        );
      }
      const controller = running = new AbortController();
      try {
        await switching;
        await settleTrust(controller.signal);
        return await runTurn(turn(), blocks, controller.signal);
      } finally {
        running = undefined;
      }
    },
    modes: () => modeState(mode(), current.sets),
    async setMode(next) {
      const target = modeOf(next, current.sets);
      if (target === undefined) {
        const ids = modeState(mode(), current.sets).availableModes.map((m) => `"${m.id}"`);
        throw acp.RequestError.invalidParams(
          undefined,
          `Unknown mode "${next}": moat offers ${ids.join(", ")}`,
        );
      }
      if (target.kind === "read-only") readOnly = true;
      else if (modeId(target) === modeId(engineMode)) readOnly = false;
      else {
        if (running !== undefined || switching !== undefined) {
          throw acp.RequestError.invalidRequest(
            undefined,
            `Cannot switch to the mode "${next}" while a prompt runs in this session: its ` +
              "grants need a sandbox of their own, opened between prompts; switch once the " +
              "turn has ended, or cancel it first",
          );
        }
        const work = reopen(target);
        switching = work.then(() => {}, () => {});
        try {
          await work;
        } finally {
          switching = undefined;
        }
        readOnly = false;
      }
      host.update({
        sessionId: id,
        update: { sessionUpdate: "current_mode_update", currentModeId: modeId(mode()) },
      });
    },
    cancel: () => running?.abort(),
    async close() {
      running?.abort();
      await switching;
      await writer?.flush();
      await current.engine.close();
    },
  };
}

/**
 * The session's policy (the read-only mode's refusal, then the engine's with each question
 * naming its call) and its read, edit and write through the editor's files after that policy.
 */
function wireCalls(engine: Engine, options: {
  host: AcpHost;
  id: string;
  setup: RunSetup;
  asking: AsyncLocalStorage<PendingCall>;
  readOnly: () => boolean;
}): void {
  const { asking, setup } = options;
  const base = engine.onToolCall;
  const checked: CheckedCalls = new Map();
  // The approval code asks within the policy's call: the question names the call it is about.
  engine.onToolCall = modePolicy(
    recordChecked(
      (call) =>
        asking.run(
          { toolCallId: call.toolCallId, title: toolTitle(call.name, call.args) },
          () => base(call),
        ),
      checked,
    ),
    options.readOnly,
  );
  throughEditor(engine, {
    files: options.host.editorFiles(options.id),
    cwd: setup.workspace,
    checked,
    exists: (path) => setup.fs.exists(path),
  });
}
