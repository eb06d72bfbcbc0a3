/**
 * Helper Workers of the tool Worker (grep's scan threads). A Worker with scoped permissions cannot
 * load a module it may not read — moat's own code is outside the grants — so it asks its parent,
 * which starts each helper with exactly the tool Worker's permissions and hands it one end of a
 * MessageChannel the tool Worker holds the other end of. These messages pass only between the tool
 * Worker and its parent, never over the host's pipe.
 */
import { workerModuleUrl } from "../worker/worker_modules.ts";
import type { WireFsGuard } from "./protocol.ts";

/** What the tool Worker asks its parent for. */
export type HelperRequest =
  /** Start a helper on `port`; report its failure on `control`. */
  | { type: "helper_start"; id: number; port: MessagePort; control: MessagePort }
  | { type: "helper_stop"; id: number };

/** What a helper Worker gets first: its port to the tool Worker and how to build its fs. */
export interface HelperInit {
  type: "init";
  port: MessagePort;
  guard: WireFsGuard | undefined;
}

/** What the parent reports on a helper's control port. */
export interface HelperFailure {
  type: "failed";
  message: string;
}

/** True when a message from the tool Worker is a `HelperRequest` (handled by its parent). */
export function isHelperRequest(msg: unknown): msg is HelperRequest {
  const type = (msg as { type?: unknown } | null)?.type;
  return type === "helper_start" || type === "helper_stop";
}

/** The parent's side: the helpers one tool Worker started, and how to stop them all. */
export interface HelperHost {
  handle(request: HelperRequest): void;
  /** Terminates every helper (the tool Worker is gone); safe to call twice. */
  closeAll(): void;
}

/**
 * Serves the helper requests of a tool Worker started with `permissions` and `guard`: each
 * helper gets the same permissions object (never more) and builds its fs from the same guard.
 * `helperUrl`: the helper's module (default grep's Worker module, ../worker/grep_worker.ts).
 */
export function createHelperHost(
  permissions: Deno.PermissionOptionsObject,
  guard: WireFsGuard | undefined,
  helperUrl?: string,
): HelperHost {
  const running = new Map<number, { worker: Worker; control: MessagePort }>();
  const stop = (id: number) => {
    const helper = running.get(id);
    if (helper === undefined) return;
    running.delete(id);
    helper.worker.terminate();
    helper.control.close();
  };
  return {
    handle(request) {
      if (request.type === "helper_stop") return stop(request.id);
      const { id, port, control } = request;
      let worker: Worker;
      try {
        worker = new Worker(helperUrl ?? workerModuleUrl("grep"), {
          type: "module",
          deno: { permissions },
        });
      } catch (e) {
        const failure: HelperFailure = { type: "failed", message: String(e) };
        control.postMessage(failure);
        control.close();
        port.close();
        return;
      }
      running.set(id, { worker, control });
      worker.onerror = (e: ErrorEvent) => {
        e.preventDefault();
        const failure: HelperFailure = { type: "failed", message: e.message };
        running.get(id)?.control.postMessage(failure);
        stop(id);
      };
      const init: HelperInit = { type: "init", port, guard };
      worker.postMessage(init, [port]);
    },
    closeAll() {
      for (const id of [...running.keys()]) stop(id);
    },
  };
}
