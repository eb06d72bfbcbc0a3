/**
 * The recorded terminal session of the tour in docs/ is what `deno task record-cast` makes now:
 * the same final screen (chunking and pauses may differ between runs; the task normalises paths,
 * durations and token counts), and the committed cast plays back to the committed screen.
 */
import assert from "node:assert/strict";
import { CAST_PATH, playCast, recordTourCast, SCREEN_PATH } from "../../scripts/record_cast.ts";
import { hasPython } from "../support/pty.ts";
import { PROJECT_ROOT } from "./_cli.ts";

const STALE = "docs/tour.cast is out of date: run `deno task record-cast` and commit docs/.";

Deno.test({
  name: "the tour's terminal cast in docs/ plays to its screenshot, and recording again ends on it",
  ignore: !(await hasPython()),
  async fn() {
    const committedCast = await Deno.readTextFile(CAST_PATH);
    const committedScreen = await Deno.readTextFile(SCREEN_PATH);
    assert.equal(await playCast(committedCast), committedScreen, STALE);
    const fresh = await recordTourCast();
    assert.equal(fresh.screen, committedScreen, STALE);
    assert.equal(fresh.cast.split("\n")[0], committedCast.split("\n")[0], STALE);
    const header = JSON.parse(committedCast.split("\n")[0] ?? "") as Record<string, unknown>;
    assert.equal(header.version, 2);
    // The checkout's and the throwaway HOME's paths never end up in docs/.
    assert.doesNotMatch(committedCast, /moat-pty-home-/);
    assert.ok(!committedCast.includes(PROJECT_ROOT), "the checkout's path is normalised");
  },
});
