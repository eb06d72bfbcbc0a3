import assert from "node:assert/strict";
import type {
  AssistantMessage,
  Message,
  ToolResultMessage,
  UserMessage,
} from "../../src/model/types.ts";
import { parseRecording, type ParseRecordingResult } from "../../src/replay/recording.ts";
import { messageProblem, SESSION_FORMAT_VERSION } from "../../src/session/store.ts";
import { messageLine, sessionHeader, sessionText } from "../support/sessions.ts";

const PATH = "/rec/session.jsonl";
const usage = { inputTokens: 10, outputTokens: 5, cachedTokens: 0, totalTokens: 15 };
const header = sessionHeader({ grants: { read: ["/w"] } });

const user = (content: string): UserMessage => ({ role: "user", content });
const answer = (text: string): AssistantMessage => ({
  role: "assistant",
  blocks: [{ type: "text", text }],
  stopReason: "stop",
  usage,
});
const calling = (...calls: Array<[id: string, name: string, args: unknown]>): AssistantMessage => ({
  role: "assistant",
  blocks: [
    { type: "text", text: "Let me look." },
    ...calls.map(([id, name, args]) => ({
      type: "toolCall" as const,
      id,
      name,
      arguments: args,
    })),
  ],
  stopReason: "toolUse",
  usage,
});
const results = (
  ...answers: Array<[id: string, name: string, text: string]>
): ToolResultMessage => ({
  role: "toolResult",
  results: answers.map(([toolCallId, toolName, content]) => ({
    toolCallId,
    toolName,
    content,
    isError: false,
  })),
});
const line = messageLine;
const file = (...lines: string[]): string => lines.join("\n") + "\n";
const session = (...messages: Message[]): string => sessionText(messages, header);

function failure(result: ParseRecordingResult): { line: number | null; error: string } {
  assert.ok(!result.ok, "expected the recording to be rejected");
  return { line: result.line, error: result.error };
}

/** Asserts a rejection at `lineNumber` whose message names the file and line and matches `pattern`. */
function assertRejected(result: ParseRecordingResult, lineNumber: number, pattern: RegExp): void {
  const { line: at, error } = failure(result);
  assert.equal(at, lineNumber, error);
  assert.ok(
    error.startsWith(`Replay file "${PATH}", line ${lineNumber}: `),
    `error does not name the file and line: ${error}`,
  );
  assert.match(error, pattern);
}

/** Asserts the error for a file whose first line (`lineNumber`) is no session header at all. */
function assertNotASession(result: ParseRecordingResult, lineNumber: number, detail: RegExp): void {
  const { line: at, error } = failure(result);
  assert.equal(at, lineNumber, error);
  assert.ok(
    error.startsWith(
      `Replay file "${PATH}" is not a moat session file: its first line (line ${lineNumber}) is not a session header (`,
    ),
    error,
  );
  assert.match(error, detail);
  // What a session file is and where one comes from, not advice to edit this file.
  assert.match(error, /A session file is the JSONL record moat writes of a run/);
  assert.match(error, /'moat sessions'.*--session FILE/);
  assert.doesNotMatch(error, /delete|repair/);
}

Deno.test("parseRecording() says a file whose first line is no session header is not a session file", () => {
  assertNotASession(
    parseRecording(PATH, "# moat\n\nA coding agent.\n"),
    1,
    /\(the line is not valid JSON: /,
  );
  // Even a one-line file, where the line is also the last one (not a torn line to delete).
  assertNotASession(parseRecording(PATH, "hello"), 1, /not valid JSON/);
  assertNotASession(
    parseRecording(PATH, file('{"name":"x","version":"1.0.0"}')),
    1,
    /its "type" is missing, not "session"/,
  );
  assertNotASession(
    parseRecording(PATH, file('{"type":"run_start"}', '{"type":"run_end"}')),
    1,
    /its "type" is "run_start", not "session"/,
  );
});

Deno.test("parseRecording() groups a multi-exchange session into exchanges with their line numbers", () => {
  const ask = user("What does README.md say?");
  const readCall = calling(["c1", "read", { path: "README.md" }]);
  const readResult = results(["c1", "read", "# moat"]);
  const first = answer("It is about moat.");
  const queued1 = user("Now list src");
  const queued2 = user("and grep for TODO");
  const twoCalls = calling(["c2", "ls", { path: "src" }], ["c3", "grep", { pattern: "TODO" }]);
  const twoResults = results(["c2", "ls", "cli/\nagent/"], ["c3", "grep", "no matches"]);
  const second = answer("src has cli and agent; no TODOs.");
  const text = session(
    ask,
    readCall,
    readResult,
    first,
    queued1,
    queued2,
    twoCalls,
    twoResults,
    second,
  );

  const parsed = parseRecording(PATH, text);
  assert.ok(parsed.ok, parsed.ok ? "" : parsed.error);
  assert.deepEqual(parsed.recording, {
    path: PATH,
    header,
    replyCount: 4,
    exchanges: [
      {
        users: [{ message: ask, line: 2 }],
        replies: [
          { message: readCall, line: 3, results: { message: readResult, line: 4 } },
          { message: first, line: 5 },
        ],
        endLine: 5,
      },
      {
        users: [{ message: queued1, line: 6 }, { message: queued2, line: 7 }],
        replies: [
          { message: twoCalls, line: 8, results: { message: twoResults, line: 9 } },
          { message: second, line: 10 },
        ],
        endLine: 10,
      },
    ],
  });
  // A reply without results has no `results` key at all (exactOptionalPropertyTypes).
  assert.ok(!("results" in (parsed.recording.exchanges[0]?.replies[1] ?? {})));
});

Deno.test("parseRecording() keeps messages exactly as recorded, including invalid JSON tool arguments", () => {
  const broken: AssistantMessage = {
    role: "assistant",
    blocks: [{
      type: "toolCall",
      id: "c1",
      name: "write",
      arguments: '{"path": "a.txt", "content": "x',
      invalidJson: "Unterminated string in JSON at position 31",
    }],
    stopReason: "toolUse",
    rawStopReason: "tool_calls",
    usage,
    model: "gpt-test",
  };
  const refused: ToolResultMessage = {
    role: "toolResult",
    results: [{
      toolCallId: "c1",
      toolName: "write",
      content: [{ type: "text", text: "Invalid JSON" }, {
        type: "image",
        data: "AA==",
        mimeType: "image/png",
      }],
      isError: true,
      details: { kind: "invalid_json" },
    }],
  };
  const parsed = parseRecording(
    PATH,
    session(user("write a.txt"), broken, refused, answer("Sorry.")),
  );
  assert.ok(parsed.ok, parsed.ok ? "" : parsed.error);
  const reply = parsed.recording.exchanges[0]?.replies[0];
  assert.deepEqual(reply, { message: broken, line: 3, results: { message: refused, line: 4 } });
  const call = reply?.message.blocks[0];
  assert.ok(call?.type === "toolCall");
  assert.equal(call.arguments, '{"path": "a.txt", "content": "x');
  assert.equal(call.invalidJson, "Unterminated string in JSON at position 31");
});

Deno.test("parseRecording() accepts tool calls left without results at the end of the file", () => {
  const interrupted = calling(["c1", "bash", { command: "sleep 100" }]);
  const parsed = parseRecording(PATH, session(user("wait"), interrupted));
  assert.ok(parsed.ok, parsed.ok ? "" : parsed.error);
  assert.equal(parsed.recording.replyCount, 1);
  assert.deepEqual(parsed.recording.exchanges, [
    {
      users: [{ message: user("wait"), line: 2 }],
      replies: [{ message: interrupted, line: 3 }],
      endLine: 3,
    },
  ]);
});

Deno.test("parseRecording() accepts tool calls left without results before the next user message", () => {
  const interrupted = calling(["c1", "bash", { command: "sleep 100" }]);
  const parsed = parseRecording(
    PATH,
    session(user("wait"), interrupted, user("never mind, say hi"), answer("Hi.")),
  );
  assert.ok(parsed.ok, parsed.ok ? "" : parsed.error);
  assert.deepEqual(parsed.recording.exchanges, [
    {
      users: [{ message: user("wait"), line: 2 }],
      replies: [{ message: interrupted, line: 3 }],
      endLine: 3,
    },
    {
      users: [{ message: user("never mind, say hi"), line: 4 }],
      replies: [{ message: answer("Hi."), line: 5 }],
      endLine: 5,
    },
  ]);
});

Deno.test("parseRecording() ends an exchange with its results line and keeps a trailing user without replies", () => {
  const call = calling(["c1", "read", { path: "a" }]);
  const result = results(["c1", "read", "a"]);
  const parsed = parseRecording(PATH, session(user("read a"), call, result, user("thanks")));
  assert.ok(parsed.ok, parsed.ok ? "" : parsed.error);
  assert.equal(parsed.recording.exchanges[0]?.endLine, 4);
  assert.deepEqual(parsed.recording.exchanges[1], {
    users: [{ message: user("thanks"), line: 5 }],
    replies: [],
    endLine: 5,
  });
});

Deno.test("parseRecording() skips blank lines but counts them in line numbers, with or without a final newline", () => {
  const text = [
    "",
    JSON.stringify(header),
    "   ",
    line(user("hi")),
    "",
    "",
    line(answer("Hello.")),
  ].join("\n");
  for (const variant of [text, text + "\n", text + "\n\n"]) {
    const parsed = parseRecording(PATH, variant);
    assert.ok(parsed.ok, parsed.ok ? "" : parsed.error);
    assert.deepEqual(parsed.recording.exchanges, [
      {
        users: [{ message: user("hi"), line: 4 }],
        replies: [{ message: answer("Hello."), line: 7 }],
        endLine: 7,
      },
    ]);
  }
  // Line numbers in errors count blank lines too.
  assertRejected(
    parseRecording(PATH, text + "\n\n{oops\n" + line(answer("x"))),
    9,
    /not valid JSON/,
  );
});

Deno.test("parseRecording() rejects an empty or blank file without a line number", () => {
  for (const text of ["", "\n", "  \n\n\t\n"]) {
    const { line: at, error } = failure(parseRecording(PATH, text));
    assert.equal(at, null);
    assert.match(
      error,
      /^Replay file "\/rec\/session\.jsonl" is empty: .*session file written by moat/,
    );
  }
});

Deno.test("parseRecording() rejects an unreadable line in the middle, naming it", () => {
  const text = file(
    JSON.stringify(header),
    line(user("hi")),
    '{"type":"message",',
    line(answer("x")),
  );
  assertRejected(parseRecording(PATH, text), 3, /not valid JSON \(.+\): delete or repair line 3/);
});

Deno.test("parseRecording() rejects a torn last line and says it can be deleted", () => {
  const full = session(user("hi"), answer("Hello."));
  const torn = full + line(user("more")).slice(0, 25);
  const { error } = failure(parseRecording(PATH, torn));
  assertRejected(parseRecording(PATH, torn), 4, /torn last line: delete line 4/);
  assert.match(error, /crashed or was killed/);
  // Still the last content line when blank lines follow it.
  assertRejected(parseRecording(PATH, torn + "\n\n"), 4, /torn last line: delete line 4/);
});

Deno.test("parseRecording() rejects lines that are JSON but not objects", () => {
  for (
    const [value, kind] of [["[1,2]", "an array"], ["42", "a number"], ['"x"', "a string"], [
      "null",
      "null",
    ]]
  ) {
    assertRejected(
      parseRecording(PATH, file(JSON.stringify(header), line(user("hi")), value as string)),
      3,
      new RegExp(`the line is ${kind}, not a JSON object: record the session again with this moat`),
    );
    assertNotASession(parseRecording(PATH, file(value as string)), 1, /, not an object\)/);
  }
});

Deno.test("parseRecording() requires a session header with a version and cwd on the first non-blank line", () => {
  assertRejected(
    parseRecording(PATH, file(line(user("hi")), line(answer("x")))),
    1,
    /starts with a message, not a session header: give a session file written by moat/,
  );
  assertNotASession(
    parseRecording(PATH, file("", '{"hello":"world"}')),
    2,
    /its "type" is missing/,
  );
  const { version: _v, ...noVersion } = header;
  assertRejected(
    parseRecording(PATH, file(JSON.stringify(noVersion), line(user("hi")))),
    1,
    /the header's "version" is not a number/,
  );
  assertRejected(
    parseRecording(PATH, file(JSON.stringify({ ...header, version: "1" }), line(user("hi")))),
    1,
    /the header's "version" is not a number/,
  );
  const { cwd: _c, ...noCwd } = header;
  assertRejected(
    parseRecording(PATH, file(JSON.stringify(noCwd), line(user("hi")))),
    1,
    /the header's "cwd" is not an absolute path/,
  );
  for (const cwd of ["", "relative/dir"]) {
    assertRejected(
      parseRecording(PATH, file(JSON.stringify({ ...header, cwd }), line(user("hi")))),
      1,
      /the header's "cwd" is not an absolute path/,
    );
  }
  for (const cwd of ["C:\\Users\\a\\proj", "\\\\server\\share"]) {
    const text = file(JSON.stringify({ ...header, cwd }), line(user("hi")), line(answer("x")));
    assert.ok(parseRecording(PATH, text).ok, cwd);
  }
});

Deno.test("parseRecording() requires string model and createdAt, and a string home when present", () => {
  const headerLine = (fields: Record<string, unknown>) =>
    file(JSON.stringify({ ...header, ...fields }), line(user("hi")), line(answer("x")));
  const { model: _m, ...noModel } = header;
  const { createdAt: _t, ...noCreatedAt } = header;
  const cases: Array<[string, RegExp]> = [
    [file(JSON.stringify(noModel), line(user("hi"))), /the header's "model" is not a string/],
    [headerLine({ model: 7 }), /the header's "model" is not a string/],
    [
      file(JSON.stringify(noCreatedAt), line(user("hi"))),
      /the header's "createdAt" is not a string/,
    ],
    [headerLine({ createdAt: null }), /the header's "createdAt" is not a string/],
    [headerLine({ home: 1 }), /the header's "home" is not a string/],
    [headerLine({ home: null }), /the header's "home" is not a string/],
    [headerLine({ home: ["/root"] }), /the header's "home" is not a string/],
  ];
  for (const [text, pattern] of cases) {
    assertRejected(
      parseRecording(PATH, text),
      1,
      new RegExp(`${pattern.source}: give a session file written by moat`),
    );
  }
  const withHome = parseRecording(PATH, headerLine({ home: "/home/alice" }));
  assert.ok(withHome.ok, withHome.ok ? "" : withHome.error);
  assert.equal(withHome.recording.header.home, "/home/alice");
  const withoutHome = parseRecording(PATH, headerLine({}));
  assert.ok(withoutHome.ok, withoutHome.ok ? "" : withoutHome.error);
  assert.equal(withoutHome.recording.header.home, undefined);
});

Deno.test("parseRecording() accepts a file saved with a UTF-8 byte-order mark", () => {
  const parsed = parseRecording(PATH, "\uFEFF" + session(user("hi"), answer("hello")));
  assert.ok(parsed.ok, parsed.ok ? "" : parsed.error);
  assert.equal(parsed.recording.replyCount, 1);
});

Deno.test("parseRecording() rejects a reply with an unknown stop reason", () => {
  assertRejected(
    parseRecording(PATH, session(user("hi"), { ...answer("x"), stopReason: "banana" } as never)),
    3,
    /"stopReason" is "banana", not one of "stop", "toolUse", "maxTokens", "error"/,
  );
});

Deno.test("parseRecording() rejects a newer format version and tells the reader to upgrade moat", () => {
  const newer = SESSION_FORMAT_VERSION + 1;
  const text = file(
    JSON.stringify({ ...header, version: newer }),
    line(user("hi")),
    line(answer("x")),
  );
  assertRejected(
    parseRecording(PATH, text),
    1,
    new RegExp(
      `format version "${newer}", newer than this moat replays \\("${SESSION_FORMAT_VERSION}"\\): upgrade moat`,
    ),
  );
});

Deno.test("parseRecording() rejects an older or odd format version, saying which version it replays", () => {
  for (const version of [SESSION_FORMAT_VERSION - 1, -3, SESSION_FORMAT_VERSION - 0.5]) {
    const text = file(JSON.stringify({ ...header, version }), line(user("hi")), line(answer("x")));
    assertRejected(
      parseRecording(PATH, text),
      1,
      new RegExp(
        `format version "${version}", but this moat replays only version "${SESSION_FORMAT_VERSION}": record the session again with this moat`,
      ),
    );
  }
});

Deno.test("parseRecording() rejects a second session header", () => {
  const text = file(
    JSON.stringify(header),
    line(user("hi")),
    line(answer("Hello.")),
    JSON.stringify(header),
    line(user("again")),
  );
  assertRejected(parseRecording(PATH, text), 4, /a second session header.*: delete line 4/);
});

Deno.test("parseRecording() rejects lines of another type or with no type", () => {
  const base = [JSON.stringify(header), line(user("hi"))];
  assertRejected(
    parseRecording(PATH, file(...base, JSON.stringify({ type: "note", text: "x" }))),
    3,
    /the line has "type" "note", but every line after the header must be a "message" \(or "compaction"\) line: delete line 3/,
  );
  assertRejected(
    parseRecording(PATH, file(...base, JSON.stringify({ message: answer("x") }))),
    3,
    /the line has no "type"/,
  );
  assertRejected(
    parseRecording(PATH, file(...base, JSON.stringify({ type: 7, message: answer("x") }))),
    3,
    /the line has a non-string "type"/,
  );
});

Deno.test("parseRecording() rejects a malformed message with the store's description of the problem", () => {
  const cases: Array<[unknown, RegExp]> = [
    [{ role: "assistant", blocks: "x", usage }, /the assistant message's "blocks" is not an array/],
    [
      { role: "assistant", blocks: [{ type: "toolCall", id: "", name: "read" }], usage },
      /the assistant message's block 1's "id" is not a non-empty string/,
    ],
    [
      { role: "assistant", blocks: [], stopReason: "stop", usage: { ...usage, totalTokens: null } },
      /"usage\.totalTokens" is not a number/,
    ],
    [{ role: "user" }, /the user message's "content" is neither a string nor an array/],
    [
      { role: "system", content: "x" },
      /the message's "role" is "system", not "user", "assistant" or "toolResult"/,
    ],
    [undefined, /the message is not an object/],
  ];
  for (const [message, pattern] of cases) {
    const text = file(JSON.stringify(header), line(user("hi")), line(message));
    assertRejected(parseRecording(PATH, text), 3, pattern);
    assert.match(
      failure(parseRecording(PATH, text)).error,
      /: repair line 3, or record the session again/,
    );
  }
});

Deno.test("parseRecording() rejects a recording whose first message is not a user message", () => {
  assertRejected(
    parseRecording(PATH, session(answer("Hello."), user("hi"), answer("x"))),
    2,
    /the first message is a model reply, not a user message/,
  );
  assertRejected(
    parseRecording(PATH, session(results(["c1", "read", "x"]), user("hi"), answer("x"))),
    2,
    /the first message is tool results, not a user message/,
  );
});

Deno.test("parseRecording() rejects tool results that do not follow a reply with tool calls, naming both lines", () => {
  const stray = results(["c1", "read", "x"]);
  assertRejected(
    parseRecording(PATH, session(user("hi"), stray, answer("x"))),
    3,
    /tool results that answer no tool calls \(line 2 is a user message\)/,
  );
  assertRejected(
    parseRecording(PATH, session(user("hi"), answer("Hello."), stray)),
    4,
    /tool results that answer no tool calls \(the reply on line 3 made no tool calls\)/,
  );
  const call = calling(["c1", "read", { path: "a" }]);
  assertRejected(
    parseRecording(PATH, session(user("hi"), call, stray, stray, answer("x"))),
    5,
    /tool results that answer no tool calls \(line 4 holds tool results already\)/,
  );
});

Deno.test("parseRecording() rejects tool results that do not answer exactly the calls, in order", () => {
  const call = calling(["c1", "read", { path: "a" }], ["c2", "ls", { path: "." }]);
  const cases: Array<[ToolResultMessage, string]> = [
    [results(["c2", "ls", "."], ["c1", "read", "a"]), '"c2", "c1"'],
    [results(["c1", "read", "a"]), '"c1"'],
    [results(["c1", "read", "a"], ["c2", "ls", "."], ["c3", "ls", "."]), '"c1", "c2", "c3"'],
    [results(["c1", "read", "a"], ["cX", "ls", "."]), '"c1", "cX"'],
    [{ role: "toolResult", results: [] }, "none"],
  ];
  for (const [wrong, answered] of cases) {
    assertRejected(
      parseRecording(PATH, session(user("hi"), call, wrong, answer("x"))),
      4,
      new RegExp(
        `the tool results answer calls ${answered}, but the reply on line 3 called "c1", "c2" \\(same ids in the same order expected\\)`,
      ),
    );
  }
});

Deno.test("parseRecording() rejects a model reply directly after another reply", () => {
  assertRejected(
    parseRecording(PATH, session(user("hi"), answer("Hello."), answer("Hello again."))),
    4,
    /a second model reply right after the reply on line 3, with no user message between them: moat never writes that/,
  );
  assertRejected(
    parseRecording(PATH, session(user("hi"), calling(["c1", "read", { path: "a" }]), answer("x"))),
    4,
    /a model reply where the results of the tool calls made on line 3 belong: moat never writes that/,
  );
});

Deno.test("parseRecording() rejects a recording without model replies: nothing to replay", () => {
  for (
    const text of [file(JSON.stringify(header)), session(user("hi")), session(user("a"), user("b"))]
  ) {
    const { line: at, error } = failure(parseRecording(PATH, text));
    assert.equal(at, null);
    assert.match(
      error,
      /^Replay file "\/rec\/session\.jsonl" has no model replies, so there is nothing to replay: /,
    );
  }
});

Deno.test("messageProblem() is null for valid messages and names the first malformed part otherwise", () => {
  const valid: Message[] = [
    user("hi"),
    {
      role: "user",
      content: [{ type: "text", text: "a" }, {
        type: "image",
        data: "AA==",
        mimeType: "image/png",
      }],
    },
    calling(["c1", "read", { path: "a" }]),
    results(["c1", "read", "a"]),
  ];
  for (const message of valid) assert.equal(messageProblem(message), null, JSON.stringify(message));
  const cases: Array<[unknown, string]> = [
    [null, "the message is not an object"],
    [[], "the message is not an object"],
    [{ content: "x" }, `the message's "role" is missing, not "user", "assistant" or "toolResult"`],
    [
      { role: "user", content: [{ type: "text" }] },
      `the user message's content block 1's "text" is not a string`,
    ],
    [
      { role: "user", content: [{ type: "text", text: "a" }, { type: "image", data: "AA==" }] },
      `the user message's content block 2's "mimeType" is not a string`,
    ],
    [
      { role: "user", content: [{ type: "toolCall", id: "c", name: "n" }] },
      `the user message's content block 1's "type" is "toolCall", not "text" or "image"`,
    ],
    [
      { role: "assistant", blocks: [null], usage },
      `the assistant message's block 1 is not an object`,
    ],
    [
      { role: "assistant", blocks: [{ type: "image", data: "", mimeType: "image/png" }], usage },
      `the assistant message's block 1's "type" is "image", not "text" or "toolCall"`,
    ],
    [
      { role: "assistant", blocks: [{ type: "toolCall", id: "c1", name: 3 }], usage },
      `the assistant message's block 1's "name" is not a string`,
    ],
    [
      { role: "assistant", blocks: [] },
      `the assistant message's "stopReason" is missing, not one of "stop", "toolUse", "maxTokens", "error"`,
    ],
    [
      { role: "assistant", blocks: [], stopReason: "stop" },
      `the assistant message's "usage" is not an object`,
    ],
    [
      {
        role: "assistant",
        blocks: [],
        stopReason: "stop",
        usage: { ...usage, inputTokens: "many" },
      },
      `the assistant message's "usage.inputTokens" is not a number`,
    ],
    [{ role: "toolResult", results: {} }, `the toolResult message's "results" is not an array`],
    [
      { role: "toolResult", results: [{ toolCallId: "c1", toolName: "read", content: "x" }] },
      `the toolResult message's result 1's "isError" is not a boolean`,
    ],
    [
      { role: "toolResult", results: [{ toolCallId: "c1", content: "x", isError: false }] },
      `the toolResult message's result 1's "toolName" is not a string`,
    ],
    [
      {
        role: "toolResult",
        results: [{ toolCallId: "c1", toolName: "read", content: 5, isError: false }],
      },
      `the toolResult message's result 1's "content" is neither a string nor an array`,
    ],
  ];
  for (const [value, phrase] of cases) {
    assert.equal(messageProblem(value), phrase, JSON.stringify(value));
  }
});
