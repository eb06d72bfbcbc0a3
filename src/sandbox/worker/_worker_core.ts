/**
 * The Worker side of the tool host: builds the tools from serialisable options, runs calls,
 * forwards progress, aborts on request and answers permission queries with Deno's own engine
 * (the Worker's `deno.permissions` are the grants).
 */
import type { AnyTool, ProcessRegistry } from "../../tools/mod.ts";
import {
  boundedUpdate,
  type HostToMain,
  type MainToHost,
  type PermissionStateName,
  type WireToolOptions,
} from "../host/protocol.ts";

/** The subset of a Worker's global scope the core uses (a test may pass a fake). */
export interface WorkerPort {
  onmessage: ((e: MessageEvent) => void) | null;
  postMessage(message: unknown): void;
  /** The scope's `error` / `unhandledrejection` events (a Worker's `self` has them). */
  addEventListener?(type: "error" | "unhandledrejection", listener: (e: Event) => void): void;
}

/** Builds the tools inside the Worker. */
export type WorkerToolFactory = (
  options: WireToolOptions & { processRegistry: ProcessRegistry },
) => AnyTool[];

/** What a Worker module serves: its tools, and the registry of the process groups they start. */
export interface ToolWorkerSetup {
  createTools: WorkerToolFactory;
  /** Every process group the tools start, killed on shutdown (src/sys/process.ts in a Worker). */
  registry: ProcessRegistry;
}

/** Serves tool calls on `port` until shutdown. */
export function serveToolWorker(port: WorkerPort, setup: ToolWorkerSetup): void {
  const { createTools, registry } = setup;
  let tools: Map<string, AnyTool> | undefined;
  const running = new Map<number, AbortController>();
  const post = (msg: HostToMain) => port.postMessage(msg);

  const handle = async (msg: MainToHost): Promise<void> => {
    switch (msg.type) {
      case "init": {
        try {
          tools = new Map(
            createTools({ ...msg.config.toolOptions, processRegistry: registry }).map((t) => [
              t.name,
              t,
            ]),
          );
          post({ type: "ready" });
        } catch (e) {
          post({ type: "fatal", message: `cannot build the tools: ${messageOf(e)}` });
        }
        return;
      }
      case "call": {
        const tool = tools?.get(msg.name);
        if (tool === undefined) {
          post({ type: "error", id: msg.id, message: `tool "${msg.name}" is not available` });
          return;
        }
        const controller = new AbortController();
        running.set(msg.id, controller);
        try {
          const output = await tool.execute(msg.args, controller.signal, {
            toolCallId: msg.toolCallId,
            onUpdate: (update) => {
              if (running.has(msg.id)) {
                post({ type: "progress", id: msg.id, update: boundedUpdate(update) });
              }
            },
          });
          running.delete(msg.id);
          post({ type: "result", id: msg.id, output });
        } catch (e) {
          running.delete(msg.id);
          post({ type: "error", id: msg.id, message: messageOf(e) });
        }
        return;
      }
      case "abort":
        running.get(msg.id)?.abort();
        return;
      case "query": {
        const states = await Promise.all(msg.descriptors.map(queryState));
        post({ type: "query_result", id: msg.id, states });
        return;
      }
      case "shutdown": {
        for (const controller of running.values()) controller.abort();
        await registry.killAll();
        post({ type: "shutdown_done" });
        return;
      }
      default: {
        const never: never = msg;
        post({ type: "fatal", message: `unknown message ${JSON.stringify(never)}` });
      }
    }
  };

  port.onmessage = (e: MessageEvent) => {
    void handle(e.data as MainToHost);
  };

  // A tool that throws outside its promise (a timer, a stray rejection) would crash the Worker and
  // Deno would print "Uncaught (in worker)" with a stack to the user's terminal. Handle it here
  // instead: cancel the default report, stop what the tools started, and tell the host, which
  // turns it into error results for the pending calls and starts a new Worker.
  let crashed = false;
  const onCrash = (e: Event, reason: unknown) => {
    e.preventDefault();
    if (crashed) return;
    crashed = true;
    for (const controller of running.values()) controller.abort();
    void registry.killAll().catch(() => {}).then(() =>
      post({ type: "fatal", message: `the tool worker crashed: ${messageOf(reason)}` })
    );
  };
  port.addEventListener?.(
    "error",
    (e) => onCrash(e, (e as ErrorEvent).error ?? (e as ErrorEvent).message),
  );
  port.addEventListener?.(
    "unhandledrejection",
    (e) => onCrash(e, (e as PromiseRejectionEvent).reason),
  );
}

async function queryState(descriptor: Deno.PermissionDescriptor): Promise<PermissionStateName> {
  try {
    return (await Deno.permissions.query(descriptor)).state;
  } catch {
    // A descriptor Deno rejects (e.g. an invalid host) is simply not granted.
    return "denied";
  }
}

function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
