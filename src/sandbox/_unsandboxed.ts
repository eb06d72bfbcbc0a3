/** Grants that cannot hold without the OS sandbox (bubblewrap) while bash may run. */
import type { Grants } from "../policy/mod.ts";

/** Why a run of `grants` must not start without bubblewrap; undefined when it may. */
export function unsandboxedProblem(
  grants: Pick<Grants, "denyNet" | "ignoreRead" | "run">,
): string | undefined {
  const { denyNet, ignoreRead, run } = grants;
  if (!(run === true || run.includes("bash"))) return undefined;
  if (denyNet.length > 0) {
    // Without bubblewrap bash's programs have the machine's network: nothing would hold it.
    return `--deny-net=${denyNet.join(",")} cannot hold without the OS sandbox (bubblewrap): the ` +
      "programs bash runs would reach every host; run where bubblewrap works, or drop " +
      "--deny-net (or bash's --allow-run)";
  }
  if (ignoreRead.length > 0) {
    // Without bubblewrap bash reads the file system as the user does: `ls` would list them.
    return `--ignore-read=${ignoreRead.join(",")} cannot hold without the OS sandbox ` +
      "(bubblewrap): bash would list and read the ignored paths; run where bubblewrap " +
      "works, or drop bash's --allow-run (the file tools hide them either way)";
  }
  return undefined;
}
