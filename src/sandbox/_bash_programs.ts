/**
 * Programs a scoped `--allow-run` keeps from bash. bash cannot be asked beforehand which programs
 * a command will run, so the view masks the others and a call that hits one fails with "command
 * not found". Afterwards this names the program and the flag that would allow it — in the result
 * the model sees, as a permission decision (shown on stderr, counted for --fail-on-deny) — and on a
 * terminal asks like any other denial: allowed programs are there from the next bash call on.
 */
import { basename, dirname, join } from "node:path";
import {
  grantFlagHint,
  grantHint,
  type Grants,
  notGrantedReason,
  type PathOps,
  type PermissionDecision,
  type PermissionHook,
  type Prompter,
} from "../policy/mod.ts";
import type { AnyTool, ToolLocation, ToolOutput } from "../tools/mod.ts";

/** Most programs named for one call. */
const MAX_PROGRAMS = 5;

/** What the program check needs from the sandbox. */
export interface ProgramRefusalOptions {
  cwd: string;
  /** The run's grants as they are now. */
  grants: () => Grants;
  /** The directories the view masks (PATH's and the standard bin directories, real paths). */
  binDirs: () => readonly string[];
  paths: PathOps;
  /** Asks the user (a terminal); absent or `noPrompt`: the program is refused with the flag. */
  prompter?: Prompter;
  noPrompt?: boolean;
  /** The PermissionRequest hooks, asked before the user (and when nobody can be asked). */
  permissionHook?: PermissionHook;
  onDecision?: (decision: PermissionDecision) => void;
  /** Grants the program for the rest of the run (the next tool host has it). */
  allowAlways: (location: ToolLocation) => void;
  /** Grants the program for the next bash call only. */
  allowOnce: (location: ToolLocation) => void;
}

/**
 * The programs bash reported as not found in `output` that exist in a masked directory and are
 * not granted: those the grants kept from it. Pure apart from the look-ups.
 */
export function maskedPrograms(
  output: string,
  options: { grants: Grants; binDirs: readonly string[]; paths: PathOps },
): string[] {
  const { grants, binDirs, paths } = options;
  if (grants.run === true || !grants.explicit.run) return [];
  const granted = new Set(grants.run);
  const names = new Set<string>();
  const notFound =
    /bash: (?:line \d+: )?([^\s:]+): (?:command not found|No such file or directory)/g;
  for (const match of output.matchAll(notFound)) {
    const word = match[1] as string;
    const name = word.includes("/") ? basename(word) : word;
    if (word.includes("/") && !binDirs.includes(dirname(word))) continue;
    if (granted.has(name) || granted.has(word)) continue;
    const exists = binDirs.some((dir) => {
      const st = paths.stat(join(dir, name));
      return st?.kind === "file" && ((st.mode ?? 0o111) & 0o111) !== 0;
    });
    if (exists) names.add(name);
    if (names.size >= MAX_PROGRAMS) break;
  }
  return [...names];
}

/** Wraps the bash tool so that programs the grants kept from it are named, reported and asked about. */
export function trackPrograms(tools: AnyTool[], options: ProgramRefusalOptions): AnyTool[] {
  return tools.map((tool): AnyTool =>
    tool.name !== "bash" ? tool : {
      ...tool,
      async execute(args, signal, ctx) {
        const result = await tool.execute(args, signal, ctx);
        const programs = maskedPrograms(result.output, {
          grants: options.grants(),
          binDirs: options.binDirs(),
          paths: options.paths,
        });
        if (programs.length === 0 || signal.aborted) return result;
        const notes: string[] = [];
        for (const program of programs) {
          notes.push(await refuse(program, { toolCallId: ctx.toolCallId, args }, options));
        }
        const output = notGrantedLines(result.output, programs);
        return { ...result, output: `${output}\n${notes.join("\n")}` } as ToolOutput;
      },
    }
  );
}

/**
 * `output` with bash's "command not found" for each of `programs` (masked by the grants, not
 * missing) said as it is: "not granted (moat's --allow-run)".
 */
export function notGrantedLines(output: string, programs: readonly string[]): string {
  const escaped = programs.map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  if (escaped.length === 0) return output;
  const line = new RegExp(
    `(bash: (?:line \\d+: )?(?:[^\\s:]*/)?(?:${escaped.join("|")})): ` +
      "(?:command not found|No such file or directory)",
    "g",
  );
  return output.replace(line, "$1: not granted (moat's --allow-run does not include it)");
}

async function refuse(
  program: string,
  call: { toolCallId: string; args: unknown },
  options: ProgramRefusalOptions,
): Promise<string> {
  const toolCallId = call.toolCallId;
  const location: ToolLocation = { access: "run", program };
  const flag = grantFlagHint(options.grants(), location, { cwd: options.cwd });
  const reason = notGrantedReason(location, flag);
  const record = (how: Pick<PermissionDecision, "outcome" | "by" | "reason" | "hint">) => {
    try {
      options.onDecision?.({
        toolCallId,
        toolName: "bash",
        access: "run",
        target: program,
        during: true,
        ...how,
      });
    } catch { /* a sink must not change the decision */ }
  };
  const question = `moat: bash tried to run ${program}, which --allow-run does not include. ` +
    "Allow it? [y]es for the next bash call / [a]lways this run / [N]o (Enter)";
  const hooked = await options.permissionHook?.({ toolName: "bash", location, question, ...call });
  if (hooked?.decision === "deny") {
    record({ outcome: "denied", by: "hook", reason: hooked.reason });
    return `[moat: bash could not run "${program}": ${hooked.reason}]`;
  }
  if (hooked?.decision === "always") {
    options.allowAlways(location);
    record({ outcome: "approved_always", by: "hook" });
    return `[moat: bash could not run "${program}" (not granted); a PermissionRequest hook ` +
      "allowed it for the rest of this run: run the command again]";
  }
  if (options.prompter === undefined || options.noPrompt) {
    record({ outcome: "denied", by: "no_prompt", reason, hint: grantHint(location, flag) });
    return `[moat: bash could not run "${program}": ${reason}]`;
  }
  const answer = await options.prompter.ask({ toolName: "bash", location, question });
  switch (answer) {
    case "deny":
      record({
        outcome: "denied",
        by: "user",
        reason: `run access to "${program}" was declined by the user; do not retry it`,
      });
      return `[moat: bash could not run "${program}", and the user declined to allow it; do ` +
        "not retry it]";
    case "once":
      options.allowOnce(location);
      record({ outcome: "approved_once", by: "user" });
      return `[moat: bash could not run "${program}" (not granted); the user allowed it for ` +
        "the next bash call: run the command again]";
    case "always":
    case "directory":
      options.allowAlways(location);
      record({ outcome: "approved_always", by: "user" });
      return `[moat: bash could not run "${program}" (not granted); the user allowed it for ` +
        "the rest of this run: run the command again]";
    default: {
      const never: never = answer;
      throw new Error(`unknown approval ${JSON.stringify(never)}`);
    }
  }
}
