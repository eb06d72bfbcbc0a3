/** `session/list`: the moat sessions of a workspace, newest first, as ACP session infos. */
import type * as acp from "@agentclientprotocol/sdk";
import { listSessions } from "../session/catalog.ts";
import type { CliFs } from "../cli/io.ts";
import { shortLine, workspaceSessionDir } from "../cli/sessions.ts";

/** Characters of a first prompt used as a session's title. */
const TITLE_CHARS = 80;

/** The sessions saved for `cwd` (none without a state directory or an unreadable cwd). */
export async function sessionInfos(
  fs: CliFs,
  options: { env: Record<string, string>; cwd: string },
): Promise<acp.SessionInfo[]> {
  const workspace = await fs.realPath(options.cwd);
  if (workspace === null) return [];
  const dir = await workspaceSessionDir(options.env, workspace);
  if (dir === undefined) return [];
  // listSessions gives them newest first.
  const summaries = await listSessions(fs, dir);
  return summaries.filter((s) => s.problem === undefined).map((s) => ({
    sessionId: s.id,
    cwd: workspace,
    updatedAt: new Date(s.modifiedMs).toISOString(),
    ...(s.firstPrompt === null ? {} : { title: shortLine(s.firstPrompt, TITLE_CHARS) }),
  }));
}
