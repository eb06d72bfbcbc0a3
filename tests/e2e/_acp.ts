/** The SDK's client side connected to a spawned `moat acp` (shared by the ACP end-to-end tests). */
import * as acp from "@agentclientprotocol/sdk";
import { spawnMoat } from "./_cli.ts";

/** An option id the test editor answers with. */
export type Answer = "once" | "always" | "directory" | "deny" | "remember" | "ignore";

/** A client connected to a spawned `moat acp`, recording updates and permission questions. */
async function connect(args: string[], cwd: string, env: Record<string, string>) {
  const child = await spawnMoat(["acp", ...args], { cwd, env, openStdin: true });
  const stdin = child.stdin.getWriter();
  const [forClient, forTest] = child.stdout.tee();
  const raw: string[] = [];
  const rawDone = (async () => {
    const decoder = new TextDecoderStream();
    for await (const chunk of forTest.pipeThrough(decoder)) raw.push(chunk);
  })();
  const updates: acp.SessionNotification[] = [];
  const hooks: { onQuestion?: (question: acp.RequestPermissionRequest) => void } = {};
  const questions: acp.RequestPermissionRequest[] = [];
  const answers: Answer[] = [];
  /** The editor's buffers (served when the test offers the fs capabilities) and its writes. */
  const buffers = new Map<string, string>();
  const written: Array<[string, string]> = [];
  const app = acp.client({ name: "test" })
    .onRequest(acp.methods.client.fs.readTextFile, ({ params }) => {
      const content = buffers.get(params.path);
      if (content === undefined) throw acp.RequestError.resourceNotFound(params.path);
      return { content };
    })
    .onRequest(acp.methods.client.fs.writeTextFile, ({ params }) => {
      written.push([params.path, params.content]);
      buffers.set(params.path, params.content);
      return {};
    })
    .onNotification(acp.methods.client.session.update, ({ params }) => {
      updates.push(params);
    })
    .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
      questions.push(params);
      hooks.onQuestion?.(params);
      const answer = answers.shift();
      return answer === undefined
        ? { outcome: { outcome: "cancelled" } }
        : { outcome: { outcome: "selected", optionId: answer } };
    });
  const output = new WritableStream<Uint8Array>({ write: (chunk) => stdin.write(chunk) });
  const connection = app.connect(acp.ndJsonStream(output, forClient));
  const stderr = child.stderr.pipeThrough(new TextDecoderStream());
  const errText: string[] = [];
  const errDone = (async () => {
    for await (const chunk of stderr) errText.push(chunk);
  })();
  let closing: Promise<Deno.CommandStatus> | undefined;
  return {
    child,
    agent: connection.agent,
    updates,
    questions,
    answers,
    /** Called with each permission question as it comes. */
    hooks,
    buffers,
    written,
    raw: () => raw.join(""),
    stderr: () => errText.join(""),
    writeRaw: (text: string) => stdin.write(new TextEncoder().encode(text)),
    /** Ends stdin and waits for moat to exit (once; later calls get the same status). */
    close() {
      closing ??= (async () => {
        await stdin.close().catch(() => {});
        const status = await child.status;
        connection.close();
        await Promise.all([rawDone, errDone]);
        return status;
      })();
      return closing;
    },
    /** A test that failed before close(): moat is killed, so nothing outlives the test. */
    async [Symbol.asyncDispose]() {
      if (closing === undefined) child.kill("SIGKILL");
      await this.close();
    },
  };
}

/** A test editor connected to a spawned `moat acp`. */
export type MoatClient = Awaited<ReturnType<typeof connect>>;

/**
 * A client connected to a spawned `moat acp` (args after `acp`), in `cwd` with `env`; a wrapper so
 * that the export has a declared return type (the lint rule) while `connect`'s stays inferred.
 */
export function connectMoat(
  args: string[],
  cwd: string,
  env: Record<string, string>,
): Promise<MoatClient> {
  return connect(args, cwd, env);
}

/** The updates of one tool call. */
export function toolUpdates(
  updates: readonly acp.SessionNotification[],
  id: string,
): Array<acp.ToolCallUpdate & { sessionUpdate: string }> {
  return updates.map((n) => n.update).filter((u) =>
    (u.sessionUpdate === "tool_call" || u.sessionUpdate === "tool_call_update") &&
    u.toolCallId === id
  ) as Array<acp.ToolCallUpdate & { sessionUpdate: string }>;
}
