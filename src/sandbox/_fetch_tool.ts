/**
 * The fetch tool of a run. It runs in moat's main process (which has the network, as bash's
 * proxy does) and asks Deno's permission engine — the tool Worker's net permissions, then the deny
 * Worker's --deny-net — about every host it is sent to: the first by the policy before the call
 * (asked on a TTY like any access), each redirect hop during it, reported as a permission decision
 * of the call. Names are resolved here and the connection goes to the address fetch checked.
 */
import type { Clock } from "../agent/types.ts";
import { grantFlagHint, type Grants, type PermissionDecision } from "../policy/mod.ts";
import type { PermissionEngine } from "../policy/mod.ts";
import { type AnyTool, createFetchTool, type FetchNet, type FsOps } from "../tools/mod.ts";

/** What the fetch tool of a run is built from. */
export interface RunFetchOptions {
  cwd: string;
  engine: PermissionEngine;
  /** The run's grants as they are now (widened by "always" approvals). */
  grants(): Grants;
  onDecision?: ((decision: PermissionDecision) => void) | undefined;
  net: FetchNet;
  clock: Clock;
  /** The run's spill directory, where a long page is saved whole, and how to write there. */
  spillDir: string;
  fs: Pick<FsOps, "writeFile">;
}

/** The fetch tool under the run's grants. */
export function runFetchTool(options: RunFetchOptions): AnyTool {
  const flag = (target: string) =>
    grantFlagHint(options.grants(), { access: "net", host: target }, { cwd: options.cwd });
  const net = options.grants().net;
  return createFetchTool({
    net: options.net,
    clock: options.clock,
    spill: { dir: options.spillDir, fs: options.fs },
    ungranted: net !== true && net.length === 0,
    permissions: {
      async query(target) {
        const answer = await options.engine.query([{ access: "net", host: target }]);
        return answer.ok ? answer.states[0] ?? "prompt" : "prompt";
      },
      net: () => options.grants().net,
      flag,
      report(who, decision) {
        const base = {
          toolCallId: who.toolCallId,
          toolName: "fetch",
          access: "net" as const,
          target: decision.target,
          during: true,
        };
        const byList = decision.verdict === "denied";
        options.onDecision?.(
          decision.verdict === "granted" ? { ...base, outcome: "granted", by: "grants" } : {
            ...base,
            outcome: "denied",
            by: byList ? "deny_list" : "grants",
            ...(decision.reason === undefined ? {} : { reason: decision.reason }),
            ...(byList ? {} : { hint: flag(decision.target) }),
          },
        );
      },
    },
  });
}
