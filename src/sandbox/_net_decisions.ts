/**
 * How a proxy's connection decisions are worded and reported (bash's and each MCP server's):
 * the refusal names the flag that keeps the hosts granted already, a host in --deny-net is
 * refused by the list (no flag would allow it), and each decision reaches `onDecision` as a
 * permission decision made while the program ran.
 */
import {
  grantFlagHint,
  type Grants,
  notGrantedReason,
  type PermissionDecision,
} from "../policy/mod.ts";
import type { ToolHostClient } from "./host/client.ts";

/** Most targets remembered in one set before it starts over. */
const MAX_REMEMBERED = 1000;

/** The wording and reporting of one proxy's decisions. */
export interface NetDecisions {
  /** Why `target` is refused (the --deny-net list, or the grant to add). */
  refusal(target: string): string;
  /**
   * Whether the proxy lets `target` through: not in --deny-net (a refusal remembered as the
   * list's), and granted by the query Worker whose net permissions are the program's.
   */
  allowed(target: string, query: NetQuery): Promise<boolean>;
  /** The targets --deny-net refused (not for want of a grant). */
  readonly listed: ReadonlySet<string>;
  /** Reports the decision on `target` as one of the program `who`. */
  report(who: { toolCallId: string; toolName: string }, target: string, allowed: boolean): void;
}

/** What `allowed` asks: the query Worker of the program's net permissions. */
export type NetQuery = Pick<ToolHostClient, "query">;

/** The decisions of a proxy under `grants()` (current ones: approvals widen them). */
export function netDecisions(options: {
  cwd: string;
  grants(): Grants;
  onDecision?: ((decision: PermissionDecision) => void) | undefined;
  /** Whether "host:port" is in `--deny-net`. */
  denied?: ((target: string) => Promise<boolean>) | undefined;
}): NetDecisions {
  const listed = new Set<string>();
  // The flag to add keeps the hosts already granted (a flag replaces the list).
  const hint = (target: string) =>
    grantFlagHint(options.grants(), { access: "net", host: target }, { cwd: options.cwd });
  const refusal = (target: string) =>
    listed.has(target)
      ? `net access to "${target}" is denied by --deny-net`
      : notGrantedReason({ access: "net", host: target }, hint(target));
  return {
    refusal,
    listed,
    async allowed(target, query) {
      if (await options.denied?.(target)) {
        remember(listed, target);
        return false;
      }
      const answer = await query.query([{ name: "net", host: target }]);
      return answer.ok && answer.states[0] === "granted";
    },
    report(who, target, allowed) {
      const byList = listed.has(target);
      const base = {
        ...who,
        access: "net" as const,
        target,
        by: byList ? "deny_list" as const : "grants" as const,
        during: true,
      };
      try {
        options.onDecision?.(
          allowed ? { ...base, outcome: "granted" } : {
            ...base,
            outcome: "denied",
            reason: refusal(target),
            ...(byList ? {} : { hint: hint(target) }),
          },
        );
      } catch { /* a sink must not change the decision */ }
    },
  };
}

/** Adds `target` to `set`, which starts over once it holds MAX_REMEMBERED. */
export function remember(set: Set<string>, target: string): void {
  if (set.size >= MAX_REMEMBERED) set.clear();
  set.add(target);
}
