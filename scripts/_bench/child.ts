/**
 * Entry of a bench child process: `child.ts <job> <json params>` runs one job from jobs.ts and
 * prints its JSON result on one marked line, with this process's own peak RSS (VmHWM) added.
 */
import { JOB_RESULT_MARK } from "./env.ts";
import { JOBS } from "./jobs.ts";
import { statusKb } from "./proc.ts";

if (import.meta.main) {
  const [name, params] = Deno.args;
  const job = name === undefined ? undefined : JOBS[name];
  if (job === undefined) {
    Deno.stderr.writeSync(new TextEncoder().encode(`unknown bench job "${name}"\n`));
    Deno.exit(2);
  }
  const result = await job(JSON.parse(params ?? "{}"));
  const line = JSON.stringify({ ...result, selfHwmKb: statusKb("self", "VmHWM") });
  Deno.stdout.writeSync(new TextEncoder().encode(`\n${JOB_RESULT_MARK}${line}\n`));
  // Jobs may leave a sandbox or workers behind on purpose-free paths; the result is in.
  Deno.exit(0);
}
