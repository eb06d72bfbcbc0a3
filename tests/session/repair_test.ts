import assert from "node:assert/strict";
import { findTornTail, resumeSession, tornSideFile } from "../../src/session/repair.ts";
import { parseRecording } from "../../src/replay/recording.ts";
import { createSessionWriter, loadSession, type SessionFs } from "../../src/session/store.ts";
import { createDenoCliFs } from "../../src/sys/session_fs.ts";
import { sessionText } from "../support/sessions.ts";
import { createTempWorkspace } from "../support/workspace.ts";

const usage = { inputTokens: 1, outputTokens: 1, cachedTokens: 0, totalTokens: 2 };
const complete = sessionText([
  { role: "user", content: "hi" },
  { role: "assistant", blocks: [{ type: "text", text: "Hello." }], stopReason: "stop", usage },
]);
// A torn line that ends inside a two-byte character ("é" is C3 A9): the cut keeps every byte.
const tornBytes = new Uint8Array([
  ...new TextEncoder().encode(
    '{"type":"message","time":"t","message":{"role":"user","content":"caf',
  ),
  0xc3,
]);

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

Deno.test("findTornTail() finds bytes after the last newline that are not JSON, and nothing else", () => {
  const head = new TextEncoder().encode(complete);
  const found = findTornTail(concat(head, tornBytes));
  assert.deepEqual(found, { keep: head.length, tail: tornBytes });
  assert.equal(findTornTail(head), null);
  // A complete line that only lacks its newline is not torn.
  assert.equal(findTornTail(new TextEncoder().encode(complete.trimEnd())), null);
  assert.equal(findTornTail(new TextEncoder().encode(complete + "  ")), null);
});

Deno.test("resumeSession() cuts a torn last line off into a .torn file, so later loads and replays see no damage", async () => {
  await using ws = await createTempWorkspace();
  const fs = createDenoCliFs();
  const path = ws.path("s.jsonl");
  await Deno.writeFile(path, concat(new TextEncoder().encode(complete), tornBytes));

  const resumed = await resumeSession(fs, path, await Deno.readTextFile(path));
  assert.ok(resumed.ok);
  assert.equal(resumed.session.messages.length, 2);
  assert.equal(resumed.session.needsNewline, false);
  assert.equal(resumed.session.warnings.length, 1);
  const warning = resumed.session.warnings[0] ?? "";
  assert.match(warning, /cut off a torn last line \(line 4, 69 bytes\)/);
  assert.ok(warning.includes(`kept in "${tornSideFile(path)}"`), warning);
  assert.doesNotMatch(warning, /skipped/);
  // The session ends at its last complete line; the torn bytes are kept exactly.
  assert.equal(await Deno.readTextFile(path), complete);
  assert.deepEqual(
    await Deno.readFile(tornSideFile(path)),
    concat(tornBytes, new Uint8Array([10])),
  );

  // New messages follow a complete line: the next resume warns about nothing, a replay parses.
  const writer = createSessionWriter(fs, path, { needsNewline: resumed.session.needsNewline });
  writer.append({ role: "user", content: "again" });
  writer.append({
    role: "assistant",
    blocks: [{ type: "text", text: "Hi again." }],
    stopReason: "stop",
    usage,
  });
  await writer.flush();
  const again = await resumeSession(fs, path, await Deno.readTextFile(path));
  assert.ok(again.ok);
  assert.deepEqual(again.session.warnings, []);
  assert.equal(again.session.messages.length, 4);
  const replay = parseRecording(path, await Deno.readTextFile(path));
  assert.ok(replay.ok, replay.ok ? "" : replay.error);
  assert.equal(replay.recording.replyCount, 2);
});

Deno.test("resumeSession() appends to an existing .torn file and leaves sound sessions alone", async () => {
  await using ws = await createTempWorkspace();
  const fs = createDenoCliFs();
  const path = ws.path("s.jsonl");
  await Deno.writeTextFile(tornSideFile(path), "earlier\n");
  await Deno.writeTextFile(path, complete + '{"type":"mes');
  const resumed = await resumeSession(fs, path, await Deno.readTextFile(path));
  assert.ok(resumed.ok);
  assert.equal(await Deno.readTextFile(tornSideFile(path)), 'earlier\n{"type":"mes\n');

  await using other = await createTempWorkspace();
  const sound = other.path("sound.jsonl");
  // A complete last line without its newline: kept, and the writer adds the newline.
  await Deno.writeTextFile(sound, complete.trimEnd());
  const kept = await resumeSession(fs, sound, await Deno.readTextFile(sound));
  assert.ok(kept.ok);
  assert.equal(kept.session.needsNewline, true);
  assert.deepEqual(kept.session.warnings, []);
  assert.equal(await Deno.readTextFile(sound), complete.trimEnd());
  assert.equal(await fs.readBytes(tornSideFile(sound)), null);
});

Deno.test("resumeSession() skips the torn line as before when the file cannot be cut, and says so", async () => {
  await using ws = await createTempWorkspace();
  const real = createDenoCliFs();
  const fs: SessionFs = {
    ...real,
    truncateFile: () => Promise.reject(new Error("read-only file system")),
  };
  const path = ws.path("s.jsonl");
  await Deno.writeTextFile(path, complete + '{"type":"mes');
  const resumed = await resumeSession(fs, path, await Deno.readTextFile(path));
  assert.ok(resumed.ok);
  assert.equal(resumed.session.needsNewline, true);
  assert.match(resumed.session.warnings.join("\n"), /skipped a torn last line/);
  assert.match(
    resumed.session.warnings.join("\n"),
    /Could not cut the torn last line off session ".*s\.jsonl": read-only file system: new messages go after it/,
  );
  // Nothing was lost: the file still holds the line.
  assert.equal(await Deno.readTextFile(path), complete + '{"type":"mes');
  const loaded = await loadSession(real, path);
  assert.ok(loaded.ok);
});
