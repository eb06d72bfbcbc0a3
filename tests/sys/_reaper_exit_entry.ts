/** Test entry: starts the group reaper, gives it group `Deno.args[0]`, and exits at once (as a killed moat would). */
import { startGroupReaper } from "../../src/sys/group_reaper.ts";

const reaper = startGroupReaper();
reaper?.add(Number(Deno.args[0]));
Deno.exit(reaper === undefined ? 1 : 0);
