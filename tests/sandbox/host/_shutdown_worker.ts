/**
 * A tool Worker module (a data: URL) that answers a shutdown by saying so (an error message the
 * host relays) before completing it, and a call with its result.
 */
export const SHUTDOWN_WORKER: string = "data:application/javascript," + encodeURIComponent(`
self.onmessage = (e) => {
  const msg = e.data;
  if (msg.type === "call") {
    self.postMessage({ type: "result", id: msg.id, output: { output: "done", isError: false } });
  } else if (msg.type === "shutdown") {
    self.postMessage({ type: "error", id: -1, message: "asked to shut down" });
    self.postMessage({ type: "shutdown_done" });
  }
};
self.postMessage({ type: "ready" });
`);
