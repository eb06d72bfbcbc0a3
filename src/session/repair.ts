/**
 * Resuming a session whose last line was torn (a run crashed or was killed while writing it): the
 * torn bytes are moved to a `.torn` side file and the session is cut back to its last complete
 * line, so new messages follow a readable line and later loads and replays see no damage.
 */
import { type LoadSessionResult, parseSession, type SessionFs } from "./store.ts";

/** Where the bytes cut off a session file are kept (appended, one chunk per repair). */
export function tornSideFile(path: string): string {
  return `${path}.torn`;
}

/**
 * The torn tail of a session file's bytes: what follows the last newline when it is not valid
 * JSON (a complete line that only lacks its newline is not torn). Null when there is none.
 */
export function findTornTail(bytes: Uint8Array): { keep: number; tail: Uint8Array } | null {
  const keep = bytes.lastIndexOf(0x0a) + 1;
  const tail = bytes.subarray(keep);
  const text = new TextDecoder().decode(tail);
  if (text.trim() === "") return null;
  try {
    JSON.parse(text);
    return null;
  } catch {
    return { keep, tail };
  }
}

/**
 * Loads a session to go on with it. A torn last line is cut off (its bytes appended to the
 * `.torn` side file first, so nothing is lost) and the warning says where they went; when that
 * fails, the line is skipped as before and new lines go after it.
 */
export async function resumeSession(
  fs: SessionFs,
  path: string,
  text: string,
): Promise<LoadSessionResult> {
  const loaded = parseSession(path, text);
  if (!loaded.ok || loaded.session.torn === undefined) return loaded;
  const session = loaded.session;
  const torn = session.torn as { line: number; warning: string };
  const others = session.warnings.filter((w) => w !== torn.warning);
  const side = tornSideFile(path);
  let note: string;
  try {
    // Read again as bytes: the text may hide an invalid byte sequence at the cut.
    const bytes = await fs.readBytes(path);
    const found = bytes === null ? null : findTornTail(bytes);
    if (found === null) return loaded;
    const chunk = new Uint8Array(found.tail.length + 1);
    chunk.set(found.tail);
    chunk[found.tail.length] = 0x0a;
    await fs.appendBytes(side, chunk);
    await fs.truncateFile(path, found.keep);
    note = `Session "${path}": cut off a torn last line (line ${torn.line}, ` +
      `${found.tail.length} bytes): a run stopped while writing it, so that message was lost; ` +
      `its bytes are kept in "${side}" (delete that file once you do not need it)`;
  } catch (e) {
    const reason = e instanceof Error ? e.message : String(e);
    return {
      ok: true,
      session: {
        ...session,
        warnings: [
          ...session.warnings,
          `Could not cut the torn last line off session "${path}": ${reason}: new messages go ` +
          `after it, and this warning comes back on every resume until the file can be written`,
        ],
      },
    };
  }
  const { torn: _torn, ...rest } = session;
  return { ok: true, session: { ...rest, warnings: [note, ...others], needsNewline: false } };
}
