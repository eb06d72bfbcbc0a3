/**
 * One ACP session: a moat run setup for the session's cwd (config, trust, grants relative to it),
 * its engine (sandbox, system prompt with AGENTS.md, MCP servers), its session file and history,
 * and one agent turn per `session/prompt`, streamed as `session/update`s.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { basename } from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import type { AgentEvent } from "../agent/events.ts";
import type {
  AssistantMessage,
  ImageBlock,
  Message,
  ModelClient,
  UserMessage,
} from "../model/types.ts";
import type { SessionWriter } from "../session/store.ts";
import { findSessionById } from "../session/catalog.ts";
import { createRunStats, type Reporter } from "../report/mod.ts";
import type { CliFlags } from "../cli/args.ts";
import { type Engine, openEngine, runOnce } from "../cli/engine.ts";
import { modelClientOptions } from "../cli/model_options.ts";
import { compactNow } from "../cli/context.ts";
import { knownContextWindow } from "../model/context_window.ts";
import { openSession } from "../cli/open_session.ts";
import { prepareRun, type SetupContext } from "../cli/setup.ts";
import type { RunSetup } from "../cli/setup.ts";
import { workspaceSessionDir } from "../cli/sessions.ts";
import { withEditorServers } from "./mcp.ts";
import { editorTrust } from "./trust.ts";
import {
  type CheckedCalls,
  type EditorFiles,
  recordChecked,
  throughEditor,
} from "./editor_files.ts";
import { isModeId, type ModeId, modePolicy, modeState } from "./modes.ts";
import { createEditorPrompter, type PendingCall } from "./permission.ts";
import { acpStopReason, toolTitle, updatesOf } from "./updates.ts";
import type { protocolTerminal } from "./_terminal.ts";

/** What every session of one `moat acp` shares. */
export interface AcpHost {
  flags: CliFlags;
  context: Omit<SetupContext, "cwd" | "terminal">;
  terminal: ReturnType<typeof protocolTerminal>;
  /** Sends a `session/update` (in order). */
  update(params: acp.SessionNotification): void;
  /** Resolves once every update sent so far is written. */
  drained(): Promise<void>;
  /** The editor's files for a session (what the client's capabilities offer). */
  editorFiles(sessionId: string): EditorFiles;
  requestPermission(
    params: acp.RequestPermissionRequest,
    signal?: AbortSignal,
  ): Promise<acp.RequestPermissionResponse>;
  log(message: string): void;
}

/** An open session. */
export interface AcpSession {
  id: string;
  setup: RunSetup;
  history: Message[];
  prompt(blocks: readonly acp.ContentBlock[]): Promise<acp.StopReason>;
  /** The permission presets and the current one. */
  modes(): acp.SessionModeState;
  /** Switches the preset (an unknown id is an invalid-params error). */
  setMode(id: string): void;
  cancel(): void;
  close(): Promise<void>;
}

/** The run setup for the session's cwd (the editor's MCP servers added) and its session file. */
async function prepareSession(
  host: AcpHost,
  request: { cwd: string; mcpServers?: readonly acp.McpServer[] },
  options: { warn: (message: string) => void; load?: string },
): Promise<{ setup: RunSetup; session: { writer: SessionWriter | null; history: Message[] } }> {
  const { warn, load } = options;
  const cwd = request.cwd;
  // What this setup writes is the error the editor shows: earlier text is not part of it.
  host.terminal.lastText();
  // Loading, the session is known to the editor: the trust question is asked in it.
  const prepared = await prepareRun({ command: "run", flags: host.flags }, {
    ...host.context,
    cwd,
    terminal: host.terminal,
    ...(load === undefined
      ? {}
      : { askTrust: editorTrust(load, (params) => host.requestPermission(params)) }),
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
  let resumed: string | undefined;
  if (load !== undefined) {
    const dir = await workspaceSessionDir(setup.env, setup.workspace);
    const found = dir === undefined ? undefined : await findSessionById(setup.fs, dir, load);
    if (found === undefined || !found.ok) {
      throw acp.RequestError.resourceNotFound(load);
    }
    resumed = found.path;
  }
  const session = await openSession(setup, warn, resumed === undefined ? {} : { resumed });
  if (!session.ok) throw acp.RequestError.internalError(undefined, session.error);
  return { setup, session };
}

/** Opens a session in `cwd`: a new one, or (`load`) the moat session file with that id. */
export async function openAcpSession(
  host: AcpHost,
  request: { cwd: string; mcpServers?: readonly acp.McpServer[] },
  load?: string,
): Promise<AcpSession> {
  const notes: string[] = [];
  const warn = (message: string) => {
    host.log(`moat: warning: ${message}\n`);
    notes.push(`warning: ${message}`);
  };
  const { setup, session } = await prepareSession(host, request, {
    warn,
    ...(load === undefined ? {} : { load }),
  });
  const writer: SessionWriter | null = session.writer;
  const id = writer === null ? crypto.randomUUID() : basename(writer.path, ".jsonl");
  const calls = new Map<string, PendingCall>();
  const asking = new AsyncLocalStorage<PendingCall>();
  let running: AbortController | undefined;
  const observe = observer({
    host,
    id,
    setup,
    calls,
    window: () =>
      engine.contexts.get(setup.settings.model)?.window ?? setup.settings.contextWindow ??
        knownContextWindow(setup.settings.model),
  });
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
  const opened = await openEngine(setup, prompter, reporter);
  if (!opened.ok) throw acp.RequestError.internalError(undefined, opened.error);
  const engine: Engine = opened.engine;
  let mode: ModeId = "grants";
  wireCalls(engine, { host, id, setup, asking, mode: () => mode });
  for (
    const w of [
      ...setup.settings.warnings,
      ...engine.sandbox.warnings,
      ...engine.startReporting(),
      ...opened.contextWarnings,
    ]
  ) warn(w);
  const model: ModelClient = setup.deps.createModel(
    modelClientOptions(setup, setup.settings.model, warn),
  );
  const turn: TurnContext = {
    host,
    id,
    setup,
    engine,
    model,
    history: session.history,
    writer,
    reporter,
    observe,
    notes,
  };
  return {
    id,
    setup,
    history: session.history,
    async prompt(blocks) {
      if (running !== undefined) {
        throw acp.RequestError.invalidRequest(
          undefined,
          "A prompt is already running in this session: wait for it or cancel it",
        );
      }
      const controller = running = new AbortController();
      try {
        return await runTurn(turn, blocks, controller.signal);
      } finally {
        running = undefined;
      }
    },
    modes: () => modeState(mode),
    setMode(next) {
      if (!isModeId(next)) {
        throw acp.RequestError.invalidParams(
          undefined,
          `Unknown mode "${next}": moat offers grants, read-only`,
        );
      }
      mode = next;
    },
    cancel: () => running?.abort(),
    async close() {
      running?.abort();
      await writer?.flush();
      await engine.close();
    },
  };
}

/**
 * The session's policy (the mode's refusal, then the engine's with each question naming its
 * call) and its read, edit and write through the editor's files after that policy.
 */
function wireCalls(engine: Engine, options: {
  host: AcpHost;
  id: string;
  setup: RunSetup;
  asking: AsyncLocalStorage<PendingCall>;
  mode: () => ModeId;
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
    options.mode,
  );
  throughEditor(engine, {
    files: options.host.editorFiles(options.id),
    cwd: setup.workspace,
    checked,
    exists: (path) => setup.fs.exists(path),
  });
}

/** Sends each agent event's updates (and the context's use after each reply); notes calls. */
function observer(options: {
  host: AcpHost;
  id: string;
  setup: RunSetup;
  calls: Map<string, PendingCall>;
  window: () => number | undefined;
}): (event: AgentEvent) => void {
  const { host, id } = options;
  return (event) => {
    if (event.type === "tool_start") {
      options.calls.set(event.name, {
        toolCallId: event.toolCallId,
        title: toolTitle(event.name, event.args),
      });
    }
    for (const update of updatesOf(event, options.setup.workspace)) {
      host.update({ sessionId: id, update });
    }
    if (event.type === "message_end") {
      const window = options.window();
      const used = event.message.usage.inputTokens + event.message.usage.outputTokens;
      if (window !== undefined && used > 0) {
        host.update({
          sessionId: id,
          update: { sessionUpdate: "usage_update", used, size: window },
        });
      }
    }
  };
}

/** What one prompt turn works with. */
interface TurnContext {
  host: AcpHost;
  id: string;
  setup: RunSetup;
  engine: Engine;
  model: ModelClient;
  history: Message[];
  writer: SessionWriter | null;
  reporter: Reporter;
  observe(event: AgentEvent): void;
  /** Warnings not shown in the editor yet (shown at the start of the next turn). */
  notes: string[];
}

/** The slash commands moat offers in the editor. */
export const ACP_COMMANDS: acp.AvailableCommand[] = [{
  name: "compact",
  description: "Summarise the conversation so far, to free the context window",
  input: { hint: "what the summary should focus on (optional)" },
}];

/** One `session/prompt`: /compact, or an agent turn; resolves to its stop reason. */
async function runTurn(
  turn: TurnContext,
  blocks: readonly acp.ContentBlock[],
  signal: AbortSignal,
): Promise<acp.StopReason> {
  const { host, id, setup, writer } = turn;
  const say = (text: string) =>
    host.update({
      sessionId: id,
      update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text } },
    });
  const notes = turn.notes.splice(0);
  if (notes.length > 0) say(notes.map((n) => `moat: ${n}\n`).join("") + "\n");
  writer?.begin();
  const prompt = userMessage(blocks);
  const compact = typeof prompt.content === "string"
    ? /^\/compact(?:\s+([\s\S]*))?$/.exec(prompt.content.trim())
    : null;
  if (compact !== null) {
    const said = await compactNow(setup, turn.engine, {
      model: turn.model,
      modelName: setup.settings.model,
      history: turn.history,
      signal,
      reporter: turn.reporter,
      writer,
      focus: compact[1] ?? "",
    });
    say(said === "" ? "Compacted the conversation." : said);
    await writer?.flush();
    await host.drained();
    return signal.aborted ? "cancelled" : "end_turn";
  }
  let lastReply: AssistantMessage | undefined;
  const outcome = await runOnce(setup, turn.engine, {
    model: turn.model,
    history: turn.history,
    prompt,
    signal,
    reporter: turn.reporter,
    stats: createRunStats(),
    writer,
    maxTurns: setup.settings.maxTurns,
    observe(event) {
      if (event.type === "message_end") lastReply = event.message;
      turn.observe(event);
    },
  });
  await writer?.flush();
  await host.drained();
  if (outcome.error !== undefined && !signal.aborted) {
    throw acp.RequestError.internalError(undefined, outcome.error.message);
  }
  return acpStopReason(outcome, signal.aborted, lastReply === undefined ? {} : { lastReply });
}

/** The user message of a prompt: text, embedded resources as context, links by their URI. */
export function userMessage(blocks: readonly acp.ContentBlock[]): UserMessage {
  const parts: string[] = [];
  const images: ImageBlock[] = [];
  for (const block of blocks) {
    if (block.type === "text") parts.push(block.text);
    else if (block.type === "image") {
      images.push({ type: "image", data: block.data, mimeType: block.mimeType });
    } else if (block.type === "resource_link") parts.push(`@${block.uri}`);
    else if (block.type === "resource" && "text" in block.resource) {
      parts.push(`<context uri="${block.resource.uri}">\n${block.resource.text}\n</context>`);
    }
  }
  const text = parts.join("\n");
  return images.length === 0
    ? { role: "user", content: text }
    : { role: "user", content: [{ type: "text", text }, ...images] };
}
