/**
 * grep's helper threads seen from the tool Worker: each is started by the Worker's parent (see
 * ../host/helpers.ts) with the Worker's own permissions, and reached through a MessageChannel.
 */
import type { ScanThread, ScanThreads, ThreadRequest } from "../../tools/mod.ts";
import type { HelperFailure, HelperRequest } from "../host/helpers.ts";

/** The tool Worker's global scope, as far as asking its parent goes. */
export interface ParentPort {
  postMessage(message: HelperRequest, transfer: Transferable[]): void;
}

/** Helper threads for a machine with `cores` cores: one less than the cores, 1 to 3. */
export function grepThreadCount(cores: number): number {
  return Math.max(1, Math.min(3, cores - 1));
}

/**
 * grep's helper threads, started through `parent`; `size` defaults to
 * `grepThreadCount(navigator.hardwareConcurrency)`.
 */
export function grepThreads(parent: ParentPort, options: { size?: number } = {}): ScanThreads {
  let nextId = 0;
  return {
    size: options.size ?? grepThreadCount(navigator.hardwareConcurrency),
    start(): ScanThread {
      const id = nextId++;
      const data = new MessageChannel();
      const control = new MessageChannel();
      let stopped = false;
      const thread: ScanThread = {
        onmessage: null,
        onerror: null,
        postMessage(message: ThreadRequest) {
          if (!stopped) data.port1.postMessage(message);
        },
        terminate() {
          if (stopped) return;
          stopped = true;
          data.port1.close();
          control.port1.close();
          parent.postMessage({ type: "helper_stop", id }, []);
        },
      };
      data.port1.onmessage = (event) => thread.onmessage?.(event);
      control.port1.onmessage = (event) => {
        const failure = event.data as HelperFailure;
        const error = new ErrorEvent("error", { message: failure.message, cancelable: true });
        thread.onerror?.(error);
      };
      parent.postMessage(
        { type: "helper_start", id, port: data.port2, control: control.port2 },
        [data.port2, control.port2],
      );
      return thread;
    },
  };
}
