/** Every measure of the bench issue, in order. */
import type { Measure } from "./measure.ts";
import { startup } from "./m1_startup.ts";
import { toolCall } from "./m2_tool_call.ts";
import { bigOutput } from "./m3_big_output.ts";
import { bigRead } from "./m4_big_read.ts";
import { grep } from "./m5_grep.ts";
import { parallel } from "./m6_parallel.ts";
import { timeout } from "./m7_timeout.ts";
import { compaction } from "./m8_compaction.ts";
import { firstResult } from "./m9_first_result.ts";
import { checkpoint } from "./m10_checkpoint.ts";
import { evalProfile } from "./m11_eval_profile.ts";
import { peakRss } from "./m12_rss.ts";
import { noToolExit } from "./m13_no_tool_exit.ts";

/** The measures `deno task bench` runs, in the order. */
export const MEASURES: Measure[] = [
  startup,
  toolCall,
  bigOutput,
  bigRead,
  grep,
  parallel,
  timeout,
  compaction,
  firstResult,
  checkpoint,
  evalProfile,
  peakRss,
  noToolExit,
];
