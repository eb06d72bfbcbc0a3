/** What every session of one `moat acp` shares: the launch, the connection to the editor. */
import type * as acp from "@agentclientprotocol/sdk";
import type { CliFlags } from "../cli/args.ts";
import type { SetupContext } from "../cli/setup.ts";
import type { EditorFiles } from "./editor_files.ts";
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
