/** The session of a run: a new file, --session, --resume or --continue, and the history it holds. */
import { dirname, resolve } from "node:path";
import type { Message } from "../model/types.ts";
import { resumeSession } from "../session/repair.ts";
import {
  createSessionWriter,
  findLatestSession,
  SESSION_FORMAT_VERSION,
  sessionDirectory,
  sessionFileName,
  type SessionHeader,
  type SessionWriter,
  stateHome,
} from "../session/store.ts";
import { VERSION } from "../version.ts";
import { readTextOrReason, writeMessage } from "./io.ts";
import { resolveResume } from "./sessions.ts";
import type { RunSetup } from "./setup.ts";

/**
 * Checks that `--resume ID|PATH` names a session, before anything else is read: its value may be
 * a prompt given in the session's place, and print mode would otherwise wait for one on stdin.
 * Its path, when found, is what openSession then opens (`resumed`).
 */
export async function checkResume(
  setup: RunSetup,
): Promise<{ ok: true; path?: string | null } | { ok: false; error: string }> {
  const { resume } = setup.flags;
  if (typeof resume !== "string" || setup.flags.noSession) return { ok: true };
  const found = await resolveResume(resume, {
    fs: setup.fs,
    env: setup.env,
    workspace: setup.workspace,
    startCwd: setup.startCwd,
    warn: () => {},
  });
  return found.ok ? { ok: true, path: found.path } : found;
}

/** Opens (or creates) the session of this run; null when sessions are off. */
export async function openSession(
  setup: RunSetup,
  warn: (message: string) => void,
  options: { resumed?: string | null } = {},
): Promise<
  | { ok: true; writer: SessionWriter | null; history: Message[] }
  | { ok: false; error: string }
> {
  const { flags, fs, workspace } = setup;
  if (flags.noSession) return { ok: true, writer: null, history: [] };
  const header = (): SessionHeader => ({
    type: "session",
    version: SESSION_FORMAT_VERSION,
    moatVersion: VERSION,
    createdAt: setup.now().toISOString(),
    cwd: workspace,
    model: setup.recording?.header.model ?? setup.settings.model,
    grants: setup.grants,
    ...(setup.env.HOME === undefined || setup.env.HOME === "" ? {} : { home: setup.env.HOME }),
    ...(setup.recording === undefined ? {} : { replayOf: setup.recording.path }),
  });
  const onError = (message: string) => warn(message);
  let path: string | null = null;
  if (flags.session !== undefined) {
    // Relative to where moat was started, like any path argument of a command.
    path = resolve(setup.startCwd, flags.session);
  } else if (options.resumed !== undefined) {
    // Already found by checkResume (before stdin was read).
    path = options.resumed;
  } else if (flags.resume !== undefined) {
    const found = await resolveResume(flags.resume, {
      fs,
      env: setup.env,
      workspace,
      startCwd: setup.startCwd,
      warn,
      // Only interactive mode gets here with a bare --resume (print mode needs a value).
      picker: {
        write: (text) => writeMessage(setup.terminal, text, "stdout"),
        // An answer to a question asked now (not a prompt to remember).
        readLine: () => setup.lineSource().next({ fresh: true }),
      },
    });
    if (!found.ok) return found;
    path = found.path;
  } else if (flags.continue) {
    const state = stateHome(setup.env);
    if (state !== undefined) {
      path = await findLatestSession(fs, await sessionDirectory(state, workspace));
    }
    if (path === null) warn("No earlier session for this workspace; starting a new one");
  }
  let existing: string | null = null;
  if (path !== null) {
    if (await fs.isDirectory(path)) {
      return {
        ok: false,
        error: `The session path "${path}" is a directory: pass a file path to --session`,
      };
    }
    const read = await readTextOrReason(fs, path);
    if ("reason" in read) {
      return { ok: false, error: `Cannot read the session file "${path}": ${read.reason}` };
    }
    // An empty file (from touch or mktemp) starts a new session in it.
    existing = read.text?.trim() === "" ? null : read.text;
  }
  if (
    path !== null && existing !== null && setup.recording !== undefined
  ) {
    return {
      ok: false,
      error:
        `The session file "${path}" already holds a conversation, but a replay starts from the recording's own: pass a new file to --session, or --no-session`,
    };
  }
  if (path !== null && existing !== null) {
    const loaded = await resumeSession(fs, path, existing);
    if (!loaded.ok) return loaded;
    for (const w of loaded.session.warnings) warn(w);
    return {
      ok: true,
      history: loaded.session.messages,
      writer: createSessionWriter(fs, path, { needsNewline: loaded.session.needsNewline, onError }),
    };
  }
  if (path === null) {
    const state = stateHome(setup.env);
    if (state === undefined) {
      warn("Neither XDG_STATE_HOME nor HOME is set: this session is not saved");
      return { ok: true, writer: null, history: [] };
    }
    const dir = await sessionDirectory(state, workspace);
    const suffix = Math.floor(Math.random() * 0xffff).toString(16).padStart(4, "0");
    path = `${dir}/${sessionFileName(setup.now(), suffix)}`;
  }
  try {
    await fs.mkdirp(dirname(path));
  } catch (e) {
    return {
      ok: false,
      error: `Cannot create the session directory "${dirname(path)}": ${
        e instanceof Error ? e.message : String(e)
      }`,
    };
  }
  return {
    ok: true,
    history: [],
    writer: createSessionWriter(fs, path, { header: header(), onError }),
  };
}
