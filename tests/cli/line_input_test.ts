import assert from "node:assert/strict";
import { join } from "node:path";
import { HISTORY_SIZE } from "../../src/term/line_editor.ts";
import {
  createHistoryFile,
  historyLine,
  historyPath,
  openLineSource,
  parseHistory,
} from "../../src/cli/line_input.ts";
import { sessionDirectory } from "../../src/session/store.ts";
import { createDenoCliFs } from "../../src/sys/session_fs.ts";
import { createTempWorkspace } from "../support/workspace.ts";
import { createFakeTerminal } from "./_fakes.ts";

Deno.test("parseHistory() reads one JSON string per line, newest first, skipping torn lines", () => {
  const text = historyLine("first") + historyLine("two\nlines") + '"torn\n' + "{}\n\n" +
    historyLine("last");
  assert.deepEqual(parseHistory(text), ["last", "two\nlines", "first"]);
});

Deno.test("historyPath() puts the history next to the workspace's sessions", async () => {
  const env = { XDG_STATE_HOME: "/state" };
  assert.equal(
    await historyPath(env, "/w"),
    join(await sessionDirectory("/state", "/w"), "history"),
  );
  assert.equal(await historyPath({}, "/w"), undefined);
});

Deno.test("createHistoryFile() appends entries to a private file and reads them back newest first", async () => {
  await using dir = await createTempWorkspace();
  const path = dir.path("state/sessions/abc/history");
  const warnings: string[] = [];
  const file = createHistoryFile(createDenoCliFs(), Promise.resolve(path), (m) => warnings.push(m));
  assert.deepEqual(await file.load(), []);
  file.append("fix the tests");
  file.append("and then\nthe docs");
  await file.flushed();
  assert.equal((await Deno.stat(path)).mode! & 0o777, 0o600);
  const again = createHistoryFile(
    createDenoCliFs(),
    Promise.resolve(path),
    (m) => warnings.push(m),
  );
  assert.deepEqual(await again.load(), ["and then\nthe docs", "fix the tests"]);
  assert.deepEqual(warnings, []);
});

Deno.test("createHistoryFile() keeps the newest entries when the file grew too long", async () => {
  await using dir = await createTempWorkspace();
  const path = dir.path("history");
  const entries = Array.from({ length: HISTORY_SIZE + 20 }, (_, i) => `entry ${i}`);
  await Deno.writeTextFile(path, entries.map(historyLine).join(""), { mode: 0o600 });
  const file = createHistoryFile(createDenoCliFs(), Promise.resolve(path), () => {});
  const loaded = await file.load();
  assert.equal(loaded.length, HISTORY_SIZE);
  assert.equal(loaded[0], `entry ${HISTORY_SIZE + 19}`);
  await file.flushed();
  assert.deepEqual(parseHistory(await Deno.readTextFile(path)), loaded);
  assert.equal((await Deno.stat(path)).mode! & 0o777, 0o600);
});

Deno.test("createHistoryFile() warns once when the history cannot be read or written, and goes on", async () => {
  await using dir = await createTempWorkspace();
  // A directory where the file should be: reading and appending both fail.
  const path = dir.path("history");
  await Deno.mkdir(path);
  const warnings: string[] = [];
  const file = createHistoryFile(createDenoCliFs(), Promise.resolve(path), (m) => warnings.push(m));
  assert.deepEqual(await file.load(), []);
  file.append("one");
  file.append("two");
  await file.flushed();
  assert.equal(warnings.length, 1);
  assert.match(warnings[0] ?? "", /^Cannot read the prompt history ".*history": /);
});

Deno.test("openLineSource() reads plain lines when stdin is not a terminal or the terminal is dumb", async () => {
  for (const [tty, env] of [[false, {}], [true, { TERM: "dumb" }]] as const) {
    const terminal = createFakeTerminal({ tty: { stdin: tty } });
    let opened = 0;
    const source = openLineSource(
      {
        ...terminal,
        openRaw: () => {
          opened++;
          return undefined;
        },
      },
      { env, workspace: "/w", fs: createDenoCliFs() },
    );
    terminal.typeLine("plain line");
    assert.equal(await source.next(), "plain line");
    assert.equal(opened, 0);
    terminal.endInput();
    assert.equal(await source.next(), null);
  }
});
