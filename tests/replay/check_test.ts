import assert from "node:assert/strict";
import { createReplayChecker } from "../../src/replay/check.ts";
import {
  formatReplayDifference,
  replayCheckText,
  type ReplayDifference,
} from "../../src/replay/check_text.ts";
import {
  type AssistantMessage,
  type ContentBlock,
  emptyUsage,
  type ToolResult,
  type ToolResultMessage,
} from "../../src/model/types.ts";
import type { NormalizeContext } from "../../src/replay/normalize.ts";
import type { RecordedReply } from "../../src/replay/recording.ts";

const recordedCtx: NormalizeContext = { workspace: "/home/alice/proj", home: "/home/alice" };
const liveCtx: NormalizeContext = { workspace: "/work/main", home: "/root" };

function reply(
  line: number,
  calls: Array<{ id: string; name: string; args: unknown }>,
  results?: { line: number; results: ToolResult[] },
): RecordedReply {
  const message: AssistantMessage = {
    role: "assistant",
    blocks: calls.map((c) => ({ type: "toolCall", id: c.id, name: c.name, arguments: c.args })),
    stopReason: calls.length > 0 ? "toolUse" : "stop",
    usage: emptyUsage(),
  };
  const r: RecordedReply = { message, line };
  if (results !== undefined) {
    r.results = { line: results.line, message: { role: "toolResult", results: results.results } };
  }
  return r;
}

function result(
  id: string,
  name: string,
  content: ContentBlock[] | string,
  isError = false,
): ToolResult {
  return { toolCallId: id, toolName: name, content, isError };
}

function results(...items: ToolResult[]): ToolResultMessage {
  return { role: "toolResult", results: items };
}

const checker = () => createReplayChecker({ recorded: recordedCtx, live: liveCtx });

Deno.test("checker: a changed duration or timestamp in a read file is a difference, in bash output not", () => {
  const c = checker();
  c.onReply(reply(2, [
    { id: "a", name: "read", args: { path: "config.txt" } },
    { id: "b", name: "bash", args: { command: "date -Iseconds; sleep 0.1" } },
  ], {
    line: 3,
    results: [
      result("a", "read", "timeout: 30s\nstamp 2024-01-01T10:00:00Z"),
      result("b", "bash", "2024-01-01T10:00:00+00:00 took 0.1s"),
    ],
  }));
  c.onToolResults(results(
    result("a", "read", "timeout: 45 s\nstamp 2031-05-05T11:11:11Z"),
    result("b", "bash", "2031-05-05T11:11:11+00:00 took 0.12s"),
  ));
  const s = c.summary();
  assert.equal(s.differing, 1);
  assert.equal(s.first?.toolName, "read");
});

Deno.test("checker: identical results with different workspaces, homes, spill dirs and durations are equal", () => {
  const c = checker();
  c.onReply(reply(2, [{ id: "a", name: "read", args: { path: "README.md" } }, {
    id: "b",
    name: "bash",
    args: { command: "make" },
  }], {
    line: 3,
    results: [
      result("a", "read", "/home/alice/proj/README.md:\n# Hello\n"),
      result(
        "b",
        "bash",
        "done in 1.2s\n[Full output: /var/folders/xy/T/moat-run-q1/bash-k1-00aa11bb.stdout.log]",
      ),
    ],
  }));
  c.onToolResults(results(
    result("a", "read", "/work/main/README.md:\n# Hello\n"),
    result(
      "b",
      "bash",
      "done in 980ms\n[Full output: /tmp/moat-run-zz9/bash-m2-ffee0011.stdout.log]",
    ),
  ));
  c.onReply(reply(4, []));
  assert.deepEqual(c.summary(), { compared: 2, differing: 0, unrecorded: 0 });
});

Deno.test("checker: a changed file line is reported as content with a diff showing the line", () => {
  const c = checker();
  const lines = Array.from({ length: 40 }, (_, i) => `line ${i + 1}`);
  const changed = lines.map((l) => l === "line 30" ? "line thirty" : l);
  c.onReply(reply(5, [{ id: "r1", name: "read", args: { path: "notes.txt" } }], {
    line: 6,
    results: [result("r1", "read", lines.join("\n"))],
  }));
  c.onToolResults(results(result("r1", "read", changed.join("\n"))));
  const s = c.summary();
  assert.equal(s.compared, 1);
  assert.equal(s.differing, 1);
  const d = s.first;
  assert.ok(d);
  assert.equal(d.aspect, "content");
  assert.equal(d.toolName, "read");
  assert.equal(d.replyLine, 5);
  assert.equal(d.resultLine, 6);
  assert.deepEqual(d.args, { path: "notes.txt" });
  assert.match(d.diff, /^--- recorded\n\+\+\+ live\n@@ -27,7 \+27,7 @@\n/);
  assert.match(d.diff, /^-line 30$/m);
  assert.match(d.diff, /^\+line thirty$/m);
  assert.ok(d.diff.split("\n").length <= 20);

  const text = formatReplayDifference(d);
  assert.ok(text.endsWith("\n"));
  assert.match(text, /Tool call "read" differs from the recording: the result's content differs/);
  assert.match(text, /call: read \{"path":"notes.txt"\} \(id "r1"\)/);
  assert.match(text, /recorded reply on line 5, recorded result on line 6/);
  assert.match(text, /^ {2}-line 30$/m);
  assert.match(text, /^ {2}\+line thirty$/m);
});

Deno.test("checker: an ok read that is now a permission denial is reported as isError", () => {
  const c = checker();
  c.onReply(reply(7, [{ id: "s", name: "read", args: { path: "~/.ssh/config" } }], {
    line: 8,
    results: [result("s", "read", "Host example\n")],
  }));
  c.onToolResults(results(
    result(
      "s",
      "read",
      'Permission denied: read access to "/root/.ssh/config" is not granted',
      true,
    ),
  ));
  const d = c.summary().first;
  assert.ok(d);
  assert.equal(d.aspect, "isError");
  assert.equal(d.recorded, "ok");
  assert.equal(d.live, "error");
  assert.match(d.diff, /^-\[ok\]$/m);
  assert.match(d.diff, /^\+\[error\]$/m);
  assert.match(d.diff, /^\+Permission denied: read access to "<home>\/\.ssh\/config"/m);
  const text = formatReplayDifference(d);
  assert.match(text, /the recorded result was ok, the live one is an error/);
  assert.match(text, /call: read \{"path":"~\/.ssh\/config"\}/);
});

Deno.test("checker: a live result missing for a recorded call and an extra live call are missing", () => {
  const c = checker();
  c.onReply(reply(2, [{ id: "a", name: "ls", args: {} }, { id: "b", name: "grep", args: {} }], {
    line: 3,
    results: [result("a", "ls", "src/\n"), result("b", "grep", "no matches")],
  }));
  c.onToolResults(results(result("a", "ls", "src/\n"), result("z", "find", "x.ts")));
  const s = c.summary();
  assert.equal(s.compared, 3);
  assert.equal(s.differing, 2);
  assert.equal(s.first?.aspect, "missing");
  assert.equal(s.first?.toolName, "grep");
  assert.equal(s.first?.toolCallId, "b");
  assert.match(
    formatReplayDifference(s.first!),
    /the live run has no result for this recorded call/,
  );

  const extra = checker();
  extra.onReply(reply(2, [{ id: "a", name: "ls", args: {} }], {
    line: 3,
    results: [result("a", "ls", "src/\n")],
  }));
  extra.onToolResults(results(result("a", "ls", "src/\n"), result("z", "find", "x.ts")));
  const d = extra.summary().first;
  assert.equal(d?.aspect, "missing");
  assert.equal(d?.toolName, "find");
  assert.match(formatReplayDifference(d!), /the live run has a result the recording does not have/);
});

Deno.test("checker: a reply whose recorded results never got live results is missing", () => {
  const c = checker();
  c.onReply(reply(2, [{ id: "a", name: "ls", args: {} }], {
    line: 3,
    results: [result("a", "ls", "src/\n")],
  }));
  // The run stopped before the tools answered.
  const pending = c.summary();
  assert.equal(pending.differing, 1);
  assert.equal(pending.first?.aspect, "missing");
  c.onReply(reply(4, []));
  const s = c.summary();
  assert.equal(s.compared, 1);
  assert.equal(s.differing, 1);
  assert.equal(s.first?.replyLine, 2);
  assert.equal(s.first?.resultLine, 3);
});

Deno.test("checker: results of replies recorded without results are counted as unrecorded", () => {
  const c = checker();
  c.onReply(reply(2, [{ id: "a", name: "bash", args: { command: "ls" } }, {
    id: "b",
    name: "ls",
    args: {},
  }]));
  c.onToolResults(results(result("a", "bash", "x"), result("b", "ls", "y", true)));
  c.onReply(reply(3, []));
  assert.deepEqual(c.summary(), { compared: 0, differing: 0, unrecorded: 2 });
});

Deno.test("checker: images are compared by type and data", () => {
  const png = (data: string): ContentBlock[] => [
    { type: "text", text: "Read image file [image/png]" },
    { type: "image", mimeType: "image/png", data },
  ];
  const same = checker();
  same.onReply(reply(2, [{ id: "i", name: "read", args: { path: "a.png" } }], {
    line: 3,
    results: [result("i", "read", png("AAAA"))],
  }));
  same.onToolResults(results(result("i", "read", png("AAAA"))));
  assert.equal(same.summary().differing, 0);

  const c = checker();
  c.onReply(reply(2, [{ id: "i", name: "read", args: { path: "a.png" } }], {
    line: 3,
    results: [result("i", "read", png("AAAA"))],
  }));
  c.onToolResults(results(result("i", "read", png("AAAAAAAA"))));
  const d = c.summary().first;
  assert.equal(d?.aspect, "content");
  assert.match(d!.diff, /^-\[image image\/png, 3 bytes\]$/m);
  assert.match(d!.diff, /^\+\[image image\/png, 6 bytes\]$/m);

  // Same size, different bytes: still a difference, and the report says why.
  const bytes = checker();
  bytes.onReply(reply(2, [{ id: "i", name: "read", args: { path: "a.png" } }], {
    line: 3,
    results: [result("i", "read", png("AAAA"))],
  }));
  bytes.onToolResults(results(result("i", "read", png("BBBB"))));
  const b = bytes.summary().first;
  assert.equal(b?.aspect, "content");
  assert.match(b!.diff, /image data differs/);
});

Deno.test("checker: keeps the first difference and only counts later ones", () => {
  const c = checker();
  c.onReply(reply(2, [{ id: "a", name: "read", args: { path: "a" } }], {
    line: 3,
    results: [result("a", "read", "one")],
  }));
  c.onToolResults(results(result("a", "read", "uno")));
  c.onReply(reply(4, [{ id: "b", name: "read", args: { path: "b" } }], {
    line: 5,
    results: [result("b", "read", "two")],
  }));
  c.onToolResults(results(result("b", "read", "dos", true)));
  c.onReply(reply(6, [{ id: "c", name: "read", args: { path: "c" } }], {
    line: 7,
    results: [result("c", "read", "three")],
  }));
  c.onToolResults(results(result("c", "read", "three")));
  const s = c.summary();
  assert.equal(s.compared, 3);
  assert.equal(s.differing, 2);
  assert.equal(s.first?.toolCallId, "a");
  assert.equal(s.first?.recorded, "one");
  assert.equal(s.first?.live, "uno");
});

Deno.test("checker: details are not compared, and text blocks are joined", () => {
  const c = checker();
  c.onReply(reply(2, [{ id: "a", name: "bash", args: {} }], {
    line: 3,
    results: [{
      ...result("a", "bash", [{ type: "text", text: "x" }, { type: "text", text: "y" }]),
      details: { exitCode: 0, stdoutBytes: 10 },
    }],
  }));
  c.onToolResults(results({
    ...result("a", "bash", [{ type: "text", text: "x" }, { type: "text", text: "y" }]),
    details: { exitCode: 0, stdoutBytes: 99 },
  }));
  assert.equal(c.summary().differing, 0);
});

Deno.test("formatReplayDifference() clips long args and long diff lines, and caps the diff", () => {
  const c = checker();
  const long = "x".repeat(500);
  const recordedLines = Array.from({ length: 60 }, (_, i) => `r${i} ${long}`);
  const liveLines = Array.from({ length: 60 }, (_, i) => `l${i} ${long}`);
  c.onReply(reply(2, [{ id: "a", name: "write", args: { path: "f", content: long } }], {
    line: 3,
    results: [result("a", "write", recordedLines.join("\n"))],
  }));
  c.onToolResults(results(result("a", "write", liveLines.join("\n"))));
  const d = c.summary().first;
  assert.ok(d);
  const diffLines = d.diff.split("\n");
  assert.ok(diffLines.length <= 20, `diff has ${diffLines.length} lines`);
  // Both sides of the change stay visible: each run of lines is cut, not just the end.
  assert.match(d.diff, /^- … \(\d+ more recorded lines\)$/m);
  assert.match(d.diff, /^\+ … \(\d+ more live lines\)$/m);
  assert.match(d.diff, /^\+l0 /m);
  for (const line of diffLines) assert.ok(line.length < 240, `line too long: ${line.length}`);
  assert.match(d.diff, /… \[\d+ more chars\]/);
  const text = formatReplayDifference(d);
  const callLine = text.split("\n").find((l) => l.startsWith("  call: "));
  assert.ok(callLine !== undefined && callLine.length < 180, callLine);
  assert.match(callLine, /…/);
  for (const line of text.split("\n").slice(1)) {
    if (line !== "") assert.ok(line.startsWith("  "), line);
  }
});

Deno.test("checker: both sides are normalised with both machines' workspace and home", () => {
  // A file written during the recording holds the recording's paths; the live run reads it as is.
  const recordedText = "cwd=/home/alice/proj\nkey=/home/alice/.ssh/id\nlive=/work/main/x /root/y";
  const liveText = "cwd=/home/alice/proj\nkey=/home/alice/.ssh/id\nlive=/work/main/x /root/y";
  const c = checker();
  c.onReply(reply(2, [{ id: "a", name: "read", args: { path: "paths.txt" } }], {
    line: 3,
    results: [result("a", "read", recordedText)],
  }));
  c.onToolResults(results(result("a", "read", liveText)));
  assert.deepEqual(c.summary(), { compared: 1, differing: 0, unrecorded: 0 });

  // The same placeholders on both sides: the recorded workspace equals the live one.
  const moved = checker();
  moved.onReply(reply(2, [{ id: "a", name: "read", args: { path: "paths.txt" } }], {
    line: 3,
    results: [result("a", "read", "at /home/alice/proj/a and /root/b")],
  }));
  moved.onToolResults(results(result("a", "read", "at /work/main/a and /home/alice/b")));
  assert.equal(moved.summary().differing, 0);

  // A real change still shows, with placeholders on both sides.
  const changed = checker();
  changed.onReply(reply(2, [{ id: "a", name: "read", args: { path: "paths.txt" } }], {
    line: 3,
    results: [result("a", "read", "cwd=/home/alice/proj/old")],
  }));
  changed.onToolResults(results(result("a", "read", "cwd=/home/alice/proj/new")));
  const d = changed.summary().first;
  assert.equal(d?.recorded, "cwd=<workspace>/old");
  assert.equal(d?.live, "cwd=<workspace>/new");
});

Deno.test("checker: onReply() with compare false counts the live results as unrecorded", () => {
  const c = checker();
  c.onReply(reply(2, [{ id: "a", name: "read", args: { path: "a" } }], {
    line: 3,
    results: [result("a", "read", "one")],
  }));
  c.onToolResults(results(result("a", "read", "one")));
  // The recorded exchange was interrupted here: its results are not the tool's real answer.
  c.onReply(
    reply(4, [{ id: "b", name: "bash", args: { command: "sleep 100" } }], {
      line: 5,
      results: [result("b", "bash", "(interrupted)", true)],
    }),
    { compare: false },
  );
  c.onToolResults(results(result("b", "bash", "done")));
  assert.deepEqual(c.summary(), { compared: 1, differing: 0, unrecorded: 1 });

  // Without a live answer it is not missing either.
  const unanswered = checker();
  unanswered.onReply(
    reply(2, [{ id: "b", name: "bash", args: {} }], {
      line: 3,
      results: [result("b", "bash", "(interrupted)", true)],
    }),
    { compare: false },
  );
  assert.deepEqual(unanswered.summary(), { compared: 0, differing: 0, unrecorded: 0 });
  unanswered.onReply(reply(4, []));
  assert.deepEqual(unanswered.summary(), { compared: 0, differing: 0, unrecorded: 0 });

  // The same results compared (the default) do differ.
  const compared = checker();
  compared.onReply(reply(4, [{ id: "b", name: "bash", args: {} }], {
    line: 5,
    results: [result("b", "bash", "(interrupted)", true)],
  }));
  compared.onToolResults(results(result("b", "bash", "done")));
  assert.equal(compared.summary().differing, 1);
});

Deno.test("checker: onUnplayed() counts each recorded result of the reply as missing", () => {
  const c = checker();
  c.onReply(reply(2, [{ id: "a", name: "ls", args: {} }], {
    line: 3,
    results: [result("a", "ls", "src/\n")],
  }));
  c.onToolResults(results(result("a", "ls", "src/\n")));
  c.onUnplayed(reply(4, [
    { id: "b", name: "read", args: { path: "/home/alice/proj/README.md" } },
    { id: "c", name: "grep", args: { pattern: "x" } },
  ], {
    line: 5,
    results: [result("b", "read", "# Hi from /home/alice/proj"), result("c", "grep", "x.ts")],
  }));
  // A final answer that was not played has no results to miss.
  c.onUnplayed(reply(6, []));
  const s = c.summary();
  assert.equal(s.compared, 3);
  assert.equal(s.differing, 2);
  const d = s.first;
  assert.ok(d);
  assert.equal(d.aspect, "missing");
  assert.equal(d.toolCallId, "b");
  assert.equal(d.replyLine, 4);
  assert.equal(d.resultLine, 5);
  assert.deepEqual(d.args, { path: "/home/alice/proj/README.md" });
  assert.equal(d.recorded, "# Hi from <workspace>");
  assert.equal(d.live, "(not played)");
  assert.match(d.diff, /^-# Hi from <workspace>$/m);
  assert.match(d.diff, /^\+\(not played\)$/m);
  assert.match(formatReplayDifference(d), /the live run ended before playing the recorded reply/);
});

Deno.test("checker: onUnplayed() keeps an earlier unanswered reply as the first difference", () => {
  const c = checker();
  c.onReply(reply(2, [{ id: "a", name: "ls", args: {} }], {
    line: 3,
    results: [result("a", "ls", "src/\n")],
  }));
  c.onUnplayed(reply(4, [{ id: "b", name: "ls", args: {} }], {
    line: 5,
    results: [result("b", "ls", "src/\n")],
  }));
  const s = c.summary();
  assert.equal(s.compared, 2);
  assert.equal(s.differing, 2);
  assert.equal(s.first?.toolCallId, "a");
  assert.equal(s.first?.live, "(no live result)");
});

const difference: ReplayDifference = {
  toolName: "read",
  toolCallId: "call_7",
  args: { path: "README.md" },
  replyLine: 3,
  resultLine: 4,
  aspect: "content",
  recorded: "hello",
  live: "goodbye",
  diff: "--- recorded\n+++ live\n@@ -1,1 +1,1 @@\n-hello\n+goodbye",
};

Deno.test("replayCheckText() says the check passed with the number of compared results", () => {
  assert.equal(
    replayCheckText({ compared: 4, differing: 0, unrecorded: 0 }),
    "moat: replay check passed: 4 tool result(s) match the recording\n",
  );
});

Deno.test("replayCheckText() notes how many results were not compared", () => {
  assert.equal(
    replayCheckText({ compared: 1, differing: 0, unrecorded: 2 }),
    "moat: replay check passed: 1 tool result(s) match the recording; " +
      "2 result(s) were not compared (the recording has no complete result for them)\n",
  );
  const failed = replayCheckText({ compared: 2, differing: 1, unrecorded: 3, first: difference });
  assert.match(
    failed,
    /^moat: replay check failed: 1 of 2 tool result\(s\) differ from the recording; 3 result\(s\) were not compared \(the recording has no complete result for them\); the first:\n/,
  );
});

Deno.test("replayCheckText() reports a failed check with the counts and the first difference", () => {
  const text = replayCheckText({ compared: 3, differing: 2, unrecorded: 0, first: difference });
  assert.equal(
    text,
    "moat: replay check failed: 2 of 3 tool result(s) differ from the recording; the first:\n" +
      formatReplayDifference(difference),
  );
  assert.match(text, /Tool call "read" differs from the recording/);
  assert.match(text, /recorded reply on line 3, recorded result on line 4/);
  assert.match(text, /\n {2}-hello\n {2}\+goodbye\n$/);
});
