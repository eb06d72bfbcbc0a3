import assert from "node:assert/strict";
import {
  type NormalizeContext,
  normalizeResultText,
  replacePaths,
} from "../../src/replay/normalize.ts";

const recordedCtx: NormalizeContext = { workspace: "/home/alice/proj", home: "/home/alice" };
const liveCtx: NormalizeContext = { workspace: "/work/main", home: "/root" };

Deno.test("normalizeResultText() replaces workspace and home paths, longest first", () => {
  const text = "read /home/alice/proj/src/a.ts, ~ is /home/alice, tmp /var/folders/xy/T/x";
  assert.equal(
    normalizeResultText(text, recordedCtx),
    "read <workspace>/src/a.ts, ~ is <home>, tmp /var/folders/xy/T/x",
  );
  assert.equal(normalizeResultText("cwd: /work/main\n", liveCtx), "cwd: <workspace>\n");
  assert.equal(normalizeResultText('"/work/main/"', liveCtx), '"<workspace>/"');
  assert.equal(normalizeResultText("in /work/main.", liveCtx), "in <workspace>.");
});

Deno.test("normalizeResultText() leaves longer sibling paths and paths nested elsewhere alone", () => {
  assert.equal(normalizeResultText("/work/main2/a", liveCtx), "/work/main2/a");
  assert.equal(
    normalizeResultText("/work/main-old /work/main.bak", liveCtx),
    "/work/main-old /work/main.bak",
  );
  assert.equal(normalizeResultText("/srv/work/main/a", liveCtx), "/srv/work/main/a");
  // A sibling of the workspace that is still inside home falls back to the home placeholder.
  assert.equal(normalizeResultText("/home/alice/proj2/x", recordedCtx), "<home>/proj2/x");
  // "/" as a path would replace every slash: it is ignored.
  assert.equal(normalizeResultText("/a/b", { workspace: "/" }), "/a/b");
});

Deno.test("normalizeResultText() replaces bash spill directories and file names", () => {
  const recorded =
    "[Full output: /var/folders/xy/T/moat-run-8f3k2a/bash-lx2k9a1b-0a1b2c3d.stdout.log]";
  const live = "[Full output: /tmp/moat-run-Zq81/bash-m03abcd-ffee0011.stdout.log]";
  const expected = "[Full output: <spill-dir>/bash-<id>.stdout.log]";
  assert.equal(normalizeResultText(recorded, recordedCtx), expected);
  assert.equal(normalizeResultText(live, liveCtx), expected);
  // The temp directory is not in the context: the whole prefix path still goes.
  assert.equal(
    normalizeResultText("see /opt/tmp/moat-run-abc/bash-1-deadbeef.stderr.log", {
      workspace: "/w1",
    }),
    "see <spill-dir>/bash-<id>.stderr.log",
  );
  // A directory merely containing "moat-run" in the middle of its name is not a spill dir.
  assert.equal(normalizeResultText("/tmp/x-moat-run-1", { workspace: "/w1" }), "/tmp/x-moat-run-1");
});

Deno.test("normalizeResultText() replaces durations and ISO timestamps only in command output", () => {
  const ctx = { workspace: "/w1" };
  const cases: Array<[string, string]> = [
    ["took 12ms", "took <duration>"],
    ["took 250 ms.", "took <duration>."],
    ["1.5s and 3.20 s", "<duration> and <duration>"],
    ["800µs 800us 5ns", "<duration> <duration> <duration>"],
    ["real\t0m0.003s", "real\t<duration>"],
    ["1m2s (12ms)", "<duration> (<duration>)"],
    ["after 5 seconds, 2 secs, 7 milliseconds", "after <duration>, <duration>, <duration>"],
    ["at 2026-11-29T15:57:05.123Z ok", "at <time> ok"],
  ];
  for (const [input, expected] of cases) {
    assert.equal(normalizeResultText(input, ctx, { commandOutput: true }), expected);
    // In a file's text a changed timeout or date is a real change.
    assert.equal(normalizeResultText(input, ctx), input);
  }
  const untouched = [
    "3 files",
    "line 12",
    "v1.2.3",
    "exit code 1",
    "12 items in 3 dirs",
    "2026-11-29",
    "5 sheep",
    "x5s",
    "file test-5s.txt and 5s.txt",
    "0x1f 1e3 42",
    "call_12ms_a",
  ];
  for (const text of untouched) {
    assert.equal(normalizeResultText(text, ctx, { commandOutput: true }), text);
  }
});

Deno.test("replacePaths() replaces whole paths only, longest first, and never the root", () => {
  const text = "/work/main/a /work/main2/b /work/main /work/mainx /home/u/.ssh /work/main/x/y.ts";
  assert.equal(
    replacePaths(text, [["/work/main/", "/ci/repo"], ["/home/u", "/home/ci"], ["/", "/nope"]]),
    "/ci/repo/a /work/main2/b /ci/repo /work/mainx /home/ci/.ssh /ci/repo/x/y.ts",
  );
  assert.equal(replacePaths("/a/b/c", [["/a", "/A"], ["/a/b", "/B"]]), "/B/c");
  assert.equal(replacePaths("unchanged", []), "unchanged");
});

Deno.test("normalizeResultText() replaces job log names always, and process ids in command output", () => {
  const recorded =
    'is in /tmp/moat-run-AAA/job-1-1796289417198.log\nJob "1" (`serve`, pid 21) is running.';
  const live =
    'is in /tmp/moat-run-BBB/job-1-1796289420448.log\nJob "1" (`serve`, pid 2512) is running.';
  const expected = 'is in <spill-dir>/job-1-<time>.log\nJob "1" (`serve`, pid <pid>) is running.';
  assert.equal(normalizeResultText(recorded, recordedCtx, { commandOutput: true }), expected);
  assert.equal(normalizeResultText(live, liveCtx, { commandOutput: true }), expected);
  // Another job's log, a pid outside command output and a longer word stay as they are.
  assert.equal(
    normalizeResultText("job-2-17.log pid 21 rapid 3", liveCtx),
    "job-2-<time>.log pid 21 rapid 3",
  );
  assert.equal(
    normalizeResultText("myjob-1-17.log rapid 3 pid 4x", liveCtx, { commandOutput: true }),
    "myjob-1-17.log rapid 3 pid 4x",
  );
});
