/** The hooks of a run from the user's and the trusted project's config, ready to match. */
import type { HookCommandSpec } from "./runner.ts";
import { HOOK_EVENTS, type HookEvent, type HooksConfig } from "./config_schema.ts";

/** Default seconds before a hook is killed. */
export const DEFAULT_HOOK_TIMEOUT_SEC = 60;

/** The `hooks` of the user config and of the project's (only when the project is trusted). */
export interface HookLayers {
  user?: HooksConfig | undefined;
  project?: HooksConfig | undefined;
}

/** One configured hook command and when it runs. */
export interface ConfiguredHook {
  event: HookEvent;
  /** The matcher as written ("" when none). */
  matcher: string;
  /** Matches a tool name; undefined matches everything. */
  matches?: RegExp;
  spec: HookCommandSpec;
}

/** The tool events, whose matcher is a tool name pattern. */
const TOOL_EVENTS: ReadonlySet<HookEvent> = new Set([
  "PreToolUse",
  "PostToolUse",
  "PermissionRequest",
]);

/**
 * The hooks of both config files, the user's first. A project's `"sandbox": false` is ignored
 * with a warning (only the user may run a hook outside the sandbox).
 */
export function configuredHooks(
  layers: HookLayers,
): { ok: true; hooks: ConfiguredHook[]; warnings: string[] } | { ok: false; error: string } {
  const hooks: ConfiguredHook[] = [];
  const warnings: string[] = [];
  for (const source of ["user", "project"] as const) {
    const config = layers[source];
    if (config === undefined) continue;
    for (const event of HOOK_EVENTS) {
      for (const group of config[event] ?? []) {
        const matcher = group.matcher ?? "";
        let matches: RegExp | undefined;
        if (TOOL_EVENTS.has(event) && matcher !== "" && matcher !== "*") {
          try {
            // Whole names, any case: Claude Code's "Bash|Edit" matches moat's bash and edit.
            matches = new RegExp(`^(?:${matcher})$`, "i");
          } catch (e) {
            return {
              ok: false,
              error: `Invalid hook matcher ${JSON.stringify(matcher)} for ${event} in the ` +
                `${source} config: ${e instanceof Error ? e.message : String(e)}. Use a regular ` +
                'expression such as "bash|write"',
            };
          }
        }
        for (const hook of group.hooks) {
          if (source === "project" && hook.sandbox === false) {
            warnings.push(
              `"sandbox": false of the project hook ${JSON.stringify(hook.command)} has no ` +
                "effect: only the user config may run a hook outside the sandbox",
            );
          }
          const spec: HookCommandSpec = {
            command: hook.command,
            timeoutSec: hook.timeout ?? DEFAULT_HOOK_TIMEOUT_SEC,
            source,
            sandbox: source === "project" || hook.sandbox !== false,
          };
          hooks.push({ event, matcher, ...(matches === undefined ? {} : { matches }), spec });
        }
      }
    }
  }
  return { ok: true, hooks, warnings };
}
