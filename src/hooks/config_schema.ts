/** The schema of the `hooks` key of moat's config files (Claude Code's and Codex's shape). */
import { type Static, Type } from "@sinclair/typebox";

/** The events a hook can follow, by Claude Code's and Codex's names. */
export const HOOK_EVENTS = [
  "SessionStart",
  "UserPromptSubmit",
  "PreToolUse",
  "PermissionRequest",
  "PostToolUse",
  "PreCompact",
  "Stop",
  "SessionEnd",
] as const;

/** One event name. */
export type HookEvent = typeof HOOK_EVENTS[number];

const HookCommandSchema = Type.Object({
  type: Type.Literal("command", { description: "The only kind of hook: a shell command." }),
  command: Type.String({
    minLength: 1,
    description: "Run with `bash -c`; reads the event as JSON on stdin.",
  }),
  timeout: Type.Optional(
    Type.Number({ exclusiveMinimum: 0, description: "Seconds before it is killed (default 60)." }),
  ),
  sandbox: Type.Optional(
    Type.Boolean({
      description: "User config only: false runs this hook outside the sandbox (default true).",
    }),
  ),
}, { additionalProperties: false, description: "One hook command." });

const HookGroupSchema = Type.Object({
  matcher: Type.Optional(
    Type.String({
      description: 'Tool events: a regular expression over the whole tool name ("bash|write"); ' +
        'empty or "*" matches every tool.',
    }),
  ),
  hooks: Type.Array(HookCommandSchema, { description: "Commands run when the matcher matches." }),
}, { additionalProperties: false, description: "Hooks with one matcher." });

const groups = (event: string) =>
  Type.Optional(Type.Array(HookGroupSchema, { description: `Hooks of the ${event} event.` }));

/** Schema of `hooks`: event name → matcher groups. */
export const HooksSchema = Type.Object({
  SessionStart: groups("SessionStart"),
  UserPromptSubmit: groups("UserPromptSubmit"),
  PreToolUse: groups("PreToolUse"),
  PermissionRequest: groups("PermissionRequest"),
  PostToolUse: groups("PostToolUse"),
  PreCompact: groups("PreCompact"),
  Stop: groups("Stop"),
  SessionEnd: groups("SessionEnd"),
}, {
  additionalProperties: false,
  description: "Commands run at events of a run; a project's run only in a trusted project.",
});

/** A valid `hooks` value. */
export type HooksConfig = Static<typeof HooksSchema>;
