/**
 * A helper Worker of grep, started by the tool Worker's parent with the tool Worker's permissions
 * (../host/helpers.ts): builds the tools' file operations from the guard in its first message,
 * then scans the batches of files a grep call sends on the port it was given.
 */
import { createDenoFsOps } from "../../sys/fs.ts";
// grep's scan loop itself, not tools/mod.ts: this Worker needs none of the other tools.
import { serveScanThread, type ThreadPort } from "../../tools/grep/threads.ts";
import type { HelperInit } from "../host/helpers.ts";
import { toolFsOps } from "./tool_fs.ts";

const scope = self as unknown as { onmessage: ((event: MessageEvent) => void) | null };
scope.onmessage = (event: MessageEvent) => {
  const init = event.data as HelperInit;
  scope.onmessage = null;
  serveScanThread(init.port as unknown as ThreadPort, toolFsOps(init.guard, createDenoFsOps));
};
