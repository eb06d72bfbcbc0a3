/** The arguments of `moat rewind` (src/cli/rewind_command.ts runs it). */
import { parseArgs } from "node:util";

/** The options of `moat rewind`. */
export interface RewindArgs {
  session?: string;
  to?: number;
  undo: boolean;
  force: boolean;
  list: boolean;
  cwd?: string;
}

/** Parses the arguments after `rewind`; never throws. */
export function parseRewindArgs(
  args: readonly string[],
): { ok: true; command: "rewind"; args: RewindArgs } | { ok: false; error: string } {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...args],
      options: {
        session: { type: "string" },
        to: { type: "string" },
        undo: { type: "boolean" },
        force: { type: "boolean" },
        list: { type: "boolean" },
        cwd: { type: "string" },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (e) {
    if (!(e instanceof TypeError)) throw e;
    return { ok: false, error: `'moat rewind': ${e.message.replace(/\.$/, "")}: see moat --help` };
  }
  const to = values.to === undefined ? undefined : Number(values.to);
  if (to !== undefined && !(Number.isInteger(to) && to >= 1)) {
    return {
      ok: false,
      error: `'moat rewind --to' takes a turn number, not "${values.to}": list them with --list`,
    };
  }
  if (to !== undefined && values.undo) {
    return { ok: false, error: "'moat rewind' takes '--to N' or '--undo', not both: pick one" };
  }
  if (to === undefined && !values.undo && !values.list) {
    return {
      ok: false,
      error: "'moat rewind' needs '--to N', '--undo' or '--list': list the turns with --list",
    };
  }
  const out: RewindArgs = {
    undo: values.undo ?? false,
    force: values.force ?? false,
    list: values.list ?? false,
  };
  if (to !== undefined) out.to = to;
  if (values.session !== undefined) out.session = values.session;
  if (values.cwd !== undefined) out.cwd = values.cwd;
  return { ok: true, command: "rewind", args: out };
}
