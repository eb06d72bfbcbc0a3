import assert from "node:assert/strict";
import { join } from "node:path";
import type { Message } from "../../src/model/types.ts";
import {
  createSessionWriter,
  findLatestSession,
  isRecord,
  loadSession,
  messageProblem,
  parseSession,
  repairHistory,
  SESSION_FORMAT_VERSION,
  sessionDirectory,
  sessionFileName,
  type SessionHeader,
  stateHome,
} from "../../src/session/store.ts";
import { createDenoCliFs } from "../../src/sys/session_fs.ts";
import { createTempWorkspace } from "../support/workspace.ts";

const usage = { inputTokens: 1, outputTokens: 1, cachedTokens: 0, totalTokens: 2 };
const header: SessionHeader = {
  type: "session",
  version: SESSION_FORMAT_VERSION,
  moatVersion: "0.0.0",
  createdAt: "2025-01-01T00:00:00.000Z",
  cwd: "/w",
  model: "m",
  grants: { read: ["/w"] },
};
const conversation: Message[] = [
  { role: "user", content: "read a.txt" },
  {
    role: "assistant",
    blocks: [{ type: "toolCall", id: "c1", name: "read", arguments: { path: "a.txt" } }],
    stopReason: "toolUse",
    usage,
  },
  {
    role: "toolResult",
    results: [{ toolCallId: "c1", toolName: "read", content: "hello", isError: false }],
  },
  {
    role: "assistant",
    blocks: [{ type: "text", text: "It says hello." }],
    stopReason: "stop",
    usage,
  },
];

Deno.test("createSessionWriter() writes a header then one flushed line per message", async () => {
  await using ws = await createTempWorkspace();
  const fs = createDenoCliFs();
  const path = ws.path("s.jsonl");
  const writer = createSessionWriter(fs, path, { header });
  writer.append(conversation[0] as Message);
  await writer.flush();
  // On disk as soon as flushed: a kill now loses nothing already appended.
  assert.equal((await Deno.readTextFile(path)).split("\n").length, 3);
  for (const m of conversation.slice(1)) writer.append(m);
  await writer.flush();
  const lines = (await Deno.readTextFile(path)).trimEnd().split("\n").map((l) => JSON.parse(l));
  assert.equal(lines.length, 5);
  assert.equal(lines[0].type, "session");
  assert.equal(lines[0].version, SESSION_FORMAT_VERSION);
  assert.deepEqual(lines.slice(1).map((l) => l.message), conversation);
  const loaded = await loadSession(fs, path);
  assert.ok(loaded.ok);
  assert.deepEqual(loaded.session.messages, conversation);
  assert.deepEqual(loaded.session.warnings, []);
});

Deno.test("createSessionWriter().begin() writes the header once, before any message", async () => {
  await using ws = await createTempWorkspace();
  const fs = createDenoCliFs();
  const path = ws.path("s.jsonl");
  const writer = createSessionWriter(fs, path, { header });
  writer.begin();
  await writer.flush();
  const empty = await loadSession(fs, path);
  assert.ok(empty.ok);
  assert.deepEqual(empty.session.messages, []);
  writer.begin();
  writer.append(conversation[0] as Message);
  await writer.flush();
  const lines = (await Deno.readTextFile(path)).trimEnd().split("\n").map((l) => JSON.parse(l));
  assert.deepEqual(lines.map((l) => l.type), ["session", "message"]);
});

Deno.test("parseSession() skips a torn last line with a warning", () => {
  const full = [header, ...conversation.map((message) => ({ type: "message", time: "t", message }))]
    .map((l) => JSON.stringify(l)).join("\n") + "\n";
  const torn = full.slice(0, full.length - 20);
  const result = parseSession("/s.jsonl", torn);
  assert.ok(result.ok);
  assert.equal(result.session.messages.length, 3);
  assert.equal(result.session.needsNewline, true);
  assert.match(result.session.warnings[0] ?? "", /torn last line/);
});

Deno.test("appending after a torn line keeps the file loadable", async () => {
  await using ws = await createTempWorkspace();
  const fs = createDenoCliFs();
  const path = ws.path("s.jsonl");
  await Deno.writeTextFile(
    path,
    JSON.stringify(header) + "\n" +
      JSON.stringify({ type: "message", time: "t", message: conversation[0] }) + "\n" +
      '{"type":"message","time":"t","mess',
  );
  const first = await loadSession(fs, path);
  assert.ok(first.ok);
  const writer = createSessionWriter(fs, path, { needsNewline: first.session.needsNewline });
  writer.append({ role: "user", content: "again" });
  await writer.flush();
  const second = await loadSession(fs, path);
  assert.ok(second.ok);
  assert.deepEqual(second.session.messages.map((m) => m.role === "user" && m.content), [
    "read a.txt",
    "again",
  ]);
});

Deno.test("parseSession() rejects files without a header and newer formats", () => {
  const noHeader = parseSession("/x.jsonl", '{"type":"message"}\n');
  assert.ok(!noHeader.ok);
  assert.match(noHeader.error, /not a moat session file/);
  const newer = parseSession("/x.jsonl", JSON.stringify({ ...header, version: 99 }) + "\n");
  assert.ok(!newer.ok);
  assert.match(newer.error, /upgrade moat/);
});

Deno.test("repairHistory() answers every tool call exactly once", () => {
  const cut = conversation.slice(0, 2);
  const { messages, changes } = repairHistory(cut);
  assert.equal(changes, 1);
  const last = messages[2];
  assert.ok(last?.role === "toolResult");
  assert.equal(last.results[0]?.toolCallId, "c1");
  assert.equal(last.results[0]?.isError, true);
  assert.deepEqual(repairHistory(conversation), { messages: conversation, changes: 0 });
});

Deno.test("findLatestSession() picks the most recently written session of the workspace", async () => {
  await using ws = await createTempWorkspace();
  const fs = createDenoCliFs();
  const dir = await sessionDirectory(ws.path("state"), "/some/workspace");
  assert.equal(await findLatestSession(fs, dir), null);
  await Deno.mkdir(dir, { recursive: true });
  const older = join(dir, sessionFileName(new Date("2025-01-01T00:00:00Z")));
  const newer = join(dir, sessionFileName(new Date("2025-02-01T00:00:00Z")));
  await Deno.writeTextFile(newer, "x");
  await Deno.writeTextFile(older, "x");
  await Deno.utime(newer, new Date("2025-02-01"), new Date("2025-02-01"));
  await Deno.utime(older, new Date("2025-01-01"), new Date("2025-01-01"));
  assert.equal(await findLatestSession(fs, dir), newer);
  await Deno.utime(older, new Date("2025-03-01"), new Date("2025-03-01"));
  assert.equal(await findLatestSession(fs, dir), older);
});

Deno.test("sessionDirectory() is per workspace under XDG_STATE_HOME", async () => {
  assert.equal(stateHome({ XDG_STATE_HOME: "/st", HOME: "/h" }), "/st");
  assert.equal(stateHome({ HOME: "/h" }), "/h/.local/state");
  const a = await sessionDirectory("/st", "/w/a");
  const b = await sessionDirectory("/st", "/w/b");
  assert.match(a, /^\/st\/moat\/sessions\/[0-9a-f]{16}$/);
  assert.notEqual(a, b);
  assert.match(
    sessionFileName(new Date("2025-01-02T03:04:05.678Z")),
    /^2025-01-02T03-04-05-678Z\.jsonl$/,
  );
});

Deno.test("parseSession() skips hand-edited lines whose message parts are malformed, with a warning", () => {
  const line = (message: unknown) => JSON.stringify({ type: "message", time: "t", message });
  const malformed = [
    { role: "assistant", blocks: [null], stopReason: "stop", usage },
    { role: "assistant", blocks: [{ type: "toolCall", name: "read" }], usage },
    { role: "assistant", blocks: [{ type: "text", text: "x" }], usage: { inputTokens: "many" } },
    { role: "toolResult", results: [{ toolCallId: "c1" }] },
    { role: "user", content: [{ type: "text" }] },
  ];
  for (const bad of malformed) {
    const text = [JSON.stringify(header), ...conversation.map(line), line(bad)].join("\n") + "\n";
    const loaded = parseSession("/s.jsonl", text);
    assert.ok(loaded.ok);
    assert.deepEqual(loaded.session.messages, conversation, JSON.stringify(bad));
    assert.match(loaded.session.warnings.join("\n"), /skipped line 6 \(not a message\)/);
  }
  // A malformed call in the middle: its stored result is dropped, so the history stays valid.
  const middle = [
    JSON.stringify(header),
    line(conversation[0]),
    line(malformed[1]),
    line(conversation[2]),
    line(conversation[3]),
  ].join("\n") + "\n";
  const loaded = parseSession("/s.jsonl", middle);
  assert.ok(loaded.ok);
  assert.deepEqual(loaded.session.messages, [conversation[0], conversation[3]]);
});

Deno.test("isRecord() is true only for plain objects", () => {
  assert.equal(isRecord({}), true);
  assert.equal(isRecord({ a: 1 }), true);
  for (const value of [null, undefined, [], [1], "x", 1, true]) {
    assert.equal(isRecord(value), false, JSON.stringify(value));
  }
});

Deno.test("messageProblem() names the malformed block, with the block types the message allows", () => {
  assert.equal(
    messageProblem({ role: "user", content: [{ type: "toolCall", id: "c", name: "read" }] }),
    `the user message's content block 1's "type" is "toolCall", not "text" or "image"`,
  );
  assert.equal(
    messageProblem({
      role: "assistant",
      blocks: [{ type: "text", text: "a" }, { type: "image", data: "", mimeType: "image/png" }],
      stopReason: "stop",
      usage,
    }),
    `the assistant message's block 2's "type" is "image", not "text" or "toolCall"`,
  );
  assert.equal(
    messageProblem({ role: "assistant", blocks: [], stopReason: "done", usage }),
    `the assistant message's "stopReason" is "done", not one of "stop", "toolUse", "maxTokens", "error"`,
  );
  for (const stopReason of ["stop", "toolUse", "maxTokens", "error"]) {
    assert.equal(messageProblem({ role: "assistant", blocks: [], stopReason, usage }), null);
  }
});
