/**
 * `moat acp`: moat as an Agent Client Protocol agent on stdio (newline-delimited JSON-RPC), built
 * on the official SDK. Each session is a moat run in the session's cwd, with the grants of the
 * command line; stdout carries only protocol messages. Ends when the client closes stdin.
 */
import * as acp from "@agentclientprotocol/sdk";
import type { CliFlags } from "../cli/args.ts";
import type { CliSignal, Terminal } from "../cli/io.ts";
import type { SetupContext } from "../cli/setup.ts";
import { VERSION } from "../version.ts";
import { type AcpSession, openAcpSession } from "./session.ts";
import { ACP_COMMANDS } from "./turn.ts";
import type { AcpHost } from "./host.ts";
import { EXIT } from "../cli/exit.ts";
import { historyUpdates } from "./history.ts";
import { sessionInfos } from "./list.ts";
import { protocolTerminal } from "./_terminal.ts";
import type { EditorFiles } from "./editor_files.ts";
import { acceptsImages } from "./turn.ts";
import { resolveSettings } from "../cli/config.ts";

/** The standard streams the protocol runs on. */
export interface AcpStdio {
  input: ReadableStream<Uint8Array>;
  output: WritableStream<Uint8Array>;
}

/** What `moat acp` starts from: the flags (the user's grants), the setup context, the streams. */
export interface AcpOptions {
  flags: CliFlags;
  context: Omit<SetupContext, "cwd" | "terminal">;
  terminal: Terminal;
  stdio: AcpStdio;
  /** Where moat was started: the workspace of a `session/list` without a cwd. */
  cwd: string;
}

/** Serves ACP until the client goes away; returns the exit code. */
export async function runAcp(options: AcpOptions): Promise<number> {
  const terminal = protocolTerminal(options.terminal);
  const sessions = new Map<string, AcpSession>();
  const ref: { connection?: acp.AgentConnection } = {};
  let queue: Promise<void> = Promise.resolve();
  // What the editor said it offers, at initialize.
  let offered: acp.ClientCapabilities = {};
  const host: AcpHost = {
    flags: options.flags,
    context: options.context,
    terminal,
    update(params) {
      const client = ref.connection?.client;
      if (client === undefined) return;
      queue = queue.then(() => client.notify(acp.methods.client.session.update, params)).catch(
        () => {},
      );
    },
    drained: () => queue,
    editorFiles(sessionId) {
      const client = ref.connection?.client;
      if (client === undefined) return {};
      const files: EditorFiles = {};
      if (offered.fs?.readTextFile === true) {
        files.readTextFile = async (path) =>
          (await client.request(acp.methods.client.fs.readTextFile, { sessionId, path })).content;
      }
      if (offered.fs?.writeTextFile === true) {
        files.writeTextFile = async (path, content) => {
          await client.request(acp.methods.client.fs.writeTextFile, { sessionId, path, content });
        };
      }
      return files;
    },
    requestPermission(params, signal) {
      const client = ref.connection?.client;
      if (client === undefined) return Promise.resolve({ outcome: { outcome: "cancelled" } });
      // The tool_call update goes first, so the editor knows the call it is asked about.
      return queue.then(() =>
        client.request(
          acp.methods.client.session.requestPermission,
          params,
          // A cancelled turn stops waiting: its question is answered deny.
          signal === undefined ? {} : { cancellationSignal: signal, stopWaitingOnCancel: true },
        )
      );
    },
    log: (message) => options.terminal.writeStderr(message),
  };
  // Sent once the session's response is out: a client knows the session id only from it.
  const offerCommands = (sessionId: string) =>
    setTimeout(() =>
      host.update({
        sessionId,
        update: { sessionUpdate: "available_commands_update", availableCommands: ACP_COMMANDS },
      }), 0);
  const sessionOf = (id: string) => {
    const session = sessions.get(id);
    if (session === undefined) throw acp.RequestError.sessionNotFound(id);
    return session;
  };
  const app = acp.agent({ name: "moat" })
    // moat speaks version 1 only: the requested version when it is 1, else the one it has.
    .onRequest(acp.methods.agent.initialize, async ({ params }) => {
      offered = params.clientCapabilities ?? {};
      return {
        protocolVersion: acp.PROTOCOL_VERSION,
        agentCapabilities: {
          loadSession: true,
          sessionCapabilities: { list: {} },
          promptCapabilities: {
            image: await launchTakesImages(options),
            audio: false,
            embeddedContext: true,
          },
          mcpCapabilities: { http: true, sse: false },
        },
        agentInfo: { name: "moat", title: "moat", version: VERSION },
        authMethods: [],
      };
    })
    .onRequest(acp.methods.agent.session.new, async ({ params }) => {
      const session = await openAcpSession(host, params);
      sessions.set(session.id, session);
      offerCommands(session.id);
      return { sessionId: session.id, modes: session.modes() };
    })
    .onRequest(acp.methods.agent.session.load, async ({ params }) => {
      const existing = sessions.get(params.sessionId);
      if (existing !== undefined) {
        sessions.delete(params.sessionId);
        await existing.close();
      }
      const session = await openAcpSession(host, params, params.sessionId);
      sessions.set(session.id, session);
      for (const update of historyUpdates(session.history, session.setup.workspace)) {
        host.update({ sessionId: session.id, update });
      }
      await host.drained();
      offerCommands(session.id);
      return { modes: session.modes() };
    })
    .onRequest(acp.methods.agent.session.list, async ({ params }) => ({
      sessions: await sessionInfos(options.context.fs, {
        env: options.context.env,
        cwd: params.cwd ?? options.cwd,
      }),
    }))
    .onRequest(acp.methods.agent.session.prompt, async ({ params }) => {
      const stopReason = await sessionOf(params.sessionId).prompt(params.prompt);
      return { stopReason };
    })
    .onRequest(acp.methods.agent.session.setMode, async ({ params }) => {
      await sessionOf(params.sessionId).setMode(params.modeId);
      return {};
    })
    .onNotification(acp.methods.agent.session.cancel, ({ params }) => {
      sessions.get(params.sessionId)?.cancel();
    });
  const connection = ref.connection = app.connect(
    acp.ndJsonStream(options.stdio.output, options.stdio.input),
  );
  // The editor stopping moat: end the connection, so every session's processes are killed.
  let signalled: CliSignal | undefined;
  const unsubscribe = (["SIGINT", "SIGTERM"] as const).map((signal) =>
    options.terminal.onSignal(signal, () => {
      signalled ??= signal;
      connection.close();
    })
  );
  await connection.closed;
  await Promise.all([...sessions.values()].map((s) => s.close()));
  for (const u of unsubscribe) u();
  return signalled === undefined ? EXIT.ok : signalled === "SIGINT" ? EXIT.sigint : EXIT.sigterm;
}

/**
 * Whether the model of the launch (flags, environment, the user config and the start directory's
 * project config, its sensitive settings left out) takes images: what `initialize` declares.
 */
async function launchTakesImages(options: AcpOptions): Promise<boolean> {
  const resolved = await resolveSettings(options.flags, {
    env: options.context.env,
    workspace: options.cwd,
    fs: options.context.fs,
    askTrust: () => Promise.resolve("ignore"),
  });
  return resolved.ok && acceptsImages(resolved);
}
