/** Measure 11's reading of a CPU profile: where start-up's module evaluation goes. */
import assert from "node:assert/strict";
import { evaluationByModule } from "../../scripts/_bench/m11_eval_profile.ts";

const ROOT = "/m";
const evalFrame = (url: string) => ({ functionName: "", url, lineNumber: 0 });

Deno.test("evaluationByModule() charges each module its own samples (nested evaluations apart), per npm package or file, most first", () => {
  const profile = {
    nodes: [
      { id: 1, callFrame: { functionName: "(root)", url: "", lineNumber: -1 }, children: [2, 5] },
      // main.ts evaluates, calls a function of its own, and imports the SDK (nested).
      { id: 2, callFrame: evalFrame(`file://${ROOT}/main.ts`), children: [3, 4] },
      { id: 3, callFrame: { functionName: "setup", url: `file://${ROOT}/main.ts`, lineNumber: 9 } },
      {
        id: 4,
        callFrame: evalFrame("file:///cache/npm/registry.npmjs.org/openai/6.1.0/index.mjs"),
      },
      {
        id: 5,
        callFrame: evalFrame("file:///cache/npm/registry.npmjs.org/openai/6.1.0/core.mjs"),
      },
    ],
    samples: [2, 3, 3, 4, 5, 5, 5, 1],
    timeDeltas: [1000, 1000, 1000, 2000, 1000, 1000, 1000, 5000],
  };
  assert.deepEqual(evaluationByModule(profile, ROOT), [["npm:openai", 5], ["main.ts", 3]]);
});
