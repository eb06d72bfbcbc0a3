import assert from "node:assert/strict";
import { join } from "node:path";
import {
  formatSize,
  localStamp,
  parseCommand,
  pickSession,
  resolveResume,
  resumeBanner,
  sessionsListing,
  shortLine,
  workspaceSessionDir,
} from "../../src/cli/sessions.ts";
import type { Message } from "../../src/model/types.ts";
import { lastExchange, listSessions } from "../../src/session/catalog.ts";
import { createDenoCliFs } from "../../src/sys/session_fs.ts";
import { sessionText } from "../support/sessions.ts";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.ts";

const usage = { inputTokens: 1, outputTokens: 1, cachedTokens: 0, totalTokens: 2 };
const answer = (text: string): Message => ({
  role: "assistant",
  blocks: [{ type: "text", text }],
  stopReason: "stop",
  usage,
});
const WORKSPACE = "/work/project";

/** Writes session files into the workspace's session directory, each with its own mtime. */
async function seedSessions(
  home: TempWorkspace,
  sessions: Array<{ id: string; at: string; text: string }>,
): Promise<{ env: Record<string, string>; dir: string }> {
  const env = { HOME: home.dir, XDG_STATE_HOME: home.path("state") };
  const dir = await workspaceSessionDir(env, WORKSPACE) as string;
  await Deno.mkdir(dir, { recursive: true });
  for (const s of sessions) {
    const path = join(dir, `${s.id}.jsonl`);
    await Deno.writeTextFile(path, s.text);
    await Deno.utime(path, new Date(s.at), new Date(s.at));
  }
  return { env, dir };
}

const OLD = "2025-01-01T10-00-00-000Z-aaaa";
const NEW = "2025-02-01T10-00-00-000Z-bbbb";
const EMPTY = "2025-03-01T10-00-00-000Z-cccc";

async function threeSessions(home: TempWorkspace) {
  return await seedSessions(home, [
    {
      id: OLD,
      at: "2025-01-01T10:05:00Z",
      text: sessionText([{ role: "user", content: "old question" }, answer("Old answer.")]),
    },
    {
      id: NEW,
      at: "2025-02-01T10:05:00Z",
      text: sessionText([
        // A pasted prompt: several lines, a terminal escape, and more than fits on a line.
        { role: "user", content: `fix the\ntests \x1b[2J now ${"x".repeat(100)}` },
        answer("Fixed."),
        { role: "user", content: "and the docs" },
        answer("Done."),
      ]),
    },
    { id: EMPTY, at: "2025-03-01T10:05:00Z", text: sessionText([]) },
    { id: "notes", at: "2024-12-01T00:00:00Z", text: "just some notes\n" },
  ]);
}

Deno.test("sessionsListing() lists newest first with date, message count, size, id and the first prompt on one escaped line", async () => {
  await using home = await createTempWorkspace();
  const { env, dir } = await threeSessions(home);
  const text = await sessionsListing(createDenoCliFs(), { env, workspace: WORKSPACE });
  assert.ok(text.startsWith(`Sessions of ${WORKSPACE}, newest first (files in ${dir}):\n\n`));
  const size = (id: string) => formatSize(Deno.statSync(join(dir, `${id}.jsonl`)).size);
  const stamp = (iso: string) => localStamp(new Date(iso).getTime());
  const entries = text.split("\n\n")[1] ?? "";
  // Several lines joined into one, the escape made visible, cut at 72 characters.
  const prompt = "fix the tests \\u001b[2J now ";
  assert.deepEqual(entries.split("\n"), [
    `1. ${stamp("2025-03-01T10:05:00Z")} · 0 messages · ${size(EMPTY)} · ${EMPTY}`,
    "   (no messages yet)",
    `2. ${stamp("2025-02-01T10:05:00Z")} · 4 messages · ${size(NEW)} · ${NEW}`,
    `   ${prompt}${"x".repeat(72 - 1 - prompt.length)}…`,
    `3. ${stamp("2025-01-01T10:05:00Z")} · 2 messages · ${size(OLD)} · ${OLD}`,
    "   old question",
    `4. ${stamp("2024-12-01T00:00:00Z")} · ${size("notes")} · notes`,
    "   (not a moat session)",
  ]);
  assert.match(text, /Resume one with: moat --resume ID/);
});

Deno.test("sessionsListing() says where sessions go when there are none, or that none are saved", async () => {
  await using home = await createTempWorkspace();
  const env = { HOME: home.dir, XDG_STATE_HOME: home.path("state") };
  const none = await sessionsListing(createDenoCliFs(), { env, workspace: WORKSPACE });
  assert.match(
    none,
    /^No sessions of \/work\/project yet \(moat saves them in .*state\/moat\/sessions\/[0-9a-f]{16}\)\.\n$/,
  );
  assert.match(
    await sessionsListing(createDenoCliFs(), { env: {}, workspace: WORKSPACE }),
    /neither XDG_STATE_HOME nor HOME is set/,
  );
});

Deno.test("resolveResume() finds a session by id, unique id prefix, path or file name, and explains misses", async () => {
  await using home = await createTempWorkspace();
  const { env, dir } = await threeSessions(home);
  const warnings: string[] = [];
  const context = {
    fs: createDenoCliFs(),
    env,
    workspace: WORKSPACE,
    startCwd: home.dir,
    warn: (m: string) => warnings.push(m),
  };
  assert.deepEqual(await resolveResume(NEW, context), {
    ok: true,
    path: join(dir, `${NEW}.jsonl`),
  });
  assert.deepEqual(await resolveResume(`${OLD}.jsonl`, context), {
    ok: true,
    path: join(dir, `${OLD}.jsonl`),
  });
  assert.deepEqual(await resolveResume("2025-02", context), {
    ok: true,
    path: join(dir, `${NEW}.jsonl`),
  });
  const ambiguous = await resolveResume("2025-0", context);
  assert.ok(!ambiguous.ok);
  assert.match(
    ambiguous.error,
    /^Session id "2025-0" matches 3 sessions \(.*\): give more of the id$/,
  );
  await home.write({ "elsewhere/kept.jsonl": sessionText([]), "local.jsonl": sessionText([]) });
  assert.deepEqual(await resolveResume("elsewhere/kept.jsonl", context), {
    ok: true,
    path: home.path("elsewhere/kept.jsonl"),
  });
  assert.deepEqual(await resolveResume("local.jsonl", context), {
    ok: true,
    path: home.path("local.jsonl"),
  });
  const missing = await resolveResume("nope", context);
  assert.ok(!missing.ok);
  assert.match(missing.error, /^No session "nope": .*run 'moat sessions' to list/);
  const missingPath = await resolveResume("gone/s.jsonl", context);
  assert.ok(!missingPath.ok);
  assert.match(
    missingPath.error,
    /^The session file ".*gone\/s\.jsonl" does not exist: run 'moat sessions'/,
  );
  // Bare, without a terminal to ask on: an error; with no sessions: a new one, with a warning.
  const bare = await resolveResume(true, context);
  assert.ok(!bare.ok);
  await using empty = await createTempWorkspace();
  const picked = await resolveResume(true, {
    ...context,
    env: { HOME: empty.dir },
    picker: { write: () => {}, readLine: () => Promise.reject(new Error("must not ask")) },
  });
  assert.deepEqual(picked, { ok: true, path: null });
  assert.deepEqual(warnings, ["No sessions of this workspace yet; starting a new one"]);
});

Deno.test("pickSession() shows numbered sessions and takes a number; Enter, end of input or three wrong answers start a new one", async () => {
  await using home = await createTempWorkspace();
  const { dir } = await threeSessions(home);
  const summaries = await listSessions(createDenoCliFs(), dir);
  const pick = async (...answers: Array<string | null>) => {
    let shown = "";
    const path = await pickSession(summaries, {
      write: (t) => shown += t,
      readLine: () => Promise.resolve(answers.length === 0 ? null : answers.shift() ?? null),
    });
    return { path, shown };
  };
  const chosen = await pick(" 2 ");
  assert.equal(chosen.path, join(dir, `${NEW}.jsonl`));
  assert.match(chosen.shown, /^Sessions of this workspace, newest first:\n\n1\. /);
  assert.match(chosen.shown, /\n2\. .* · 2025-02-01T10-00-00-000Z-bbbb\n {3}fix the tests/);
  assert.match(
    chosen.shown,
    /Resume which session\? Type its number, or press Enter to start a new one: $/,
  );
  const retried = await pick("x", "9", "3");
  assert.equal(retried.path, join(dir, `${OLD}.jsonl`));
  assert.equal(
    retried.shown.match(/Please type a number from 1 to 4, or press Enter: /g)?.length,
    2,
  );
  assert.equal((await pick("")).path, null);
  assert.equal((await pick(null)).path, null);
  const gaveUp = await pick("a", "b", "c", "1");
  assert.equal(gaveUp.path, null);
  assert.match(gaveUp.shown, /Starting a new session\.\n$/);
});

Deno.test("resumeBanner() shows the session id and the last exchange, shortened and escaped", () => {
  const history: Message[] = [
    { role: "user", content: "first" },
    answer("First answer."),
    { role: "user", content: "list the steps\nplease" },
    {
      role: "assistant",
      blocks: [{ type: "toolCall", id: "c1", name: "ls", arguments: {} }],
      stopReason: "toolUse",
      usage,
    },
    {
      role: "toolResult",
      results: [{ toolCallId: "c1", toolName: "ls", content: "a", isError: false }],
    },
    answer(`Steps:\n\n1. one \x1b]52;c;x\x07\n2. ${"two ".repeat(40)}\n3. three\n4. four`),
  ];
  assert.equal(
    resumeBanner(history, "/s/2025-02-01T10-00-00-000Z-bbbb.jsonl"),
    "Continuing session 2025-02-01T10-00-00-000Z-bbbb (6 message(s)). Last exchange:\n" +
      "  you:  list the steps please\n" +
      "  moat: Steps:\n" +
      "        1. one \\u001b]52;c;x\\u0007\n" +
      `        2. ${"two ".repeat(24).trimEnd()}…\n` +
      "        …\n",
  );
  assert.equal(resumeBanner([], undefined), "");
  assert.match(
    resumeBanner([{ role: "user", content: "stopped" }], undefined),
    /you: {2}stopped\n {2}moat: \(no answer: the run stopped before the model gave one\)\n$/,
  );
  assert.deepEqual(lastExchange(history.slice(0, 4)), {
    prompt: "list the steps\nplease",
    answer: null,
  });
});

Deno.test("shortLine() joins lines, escapes control characters and cuts at the limit", () => {
  assert.equal(shortLine("  a\n\tb  ", 10), "a b");
  assert.equal(shortLine("abcdefghij", 5), "abcd…");
  assert.equal(shortLine("\u202eevil", 20), "\\u202eevil");
});

Deno.test("parseCommand() reads `moat sessions [--cwd DIR]` and rejects other flags and prompts", () => {
  const parsed = parseCommand(["--", "sessions", "--cwd", "sub"]);
  assert.ok(parsed.ok && parsed.command === "sessions");
  assert.equal(parsed.flags.cwd, "sub");
  assert.deepEqual(parseCommand(["sessions", "--help"]), { ok: true, command: "help" });
  const run = parseCommand(["-p", "--", "sessions"]);
  assert.ok(run.ok && run.command === "run");
  assert.equal(run.flags.prompt, "sessions");
  for (
    const [argv, pattern] of [
      [["sessions", "old"], /'moat sessions' takes no prompt, but got "old"/],
      [["sessions", "--no-session"], /takes only '--cwd DIR', not '--no-session': leave it out/],
      [["sessions", "-c", "--allow-read"], /not '--continue', permission flags: leave them out/],
      [["sessions", "--bogus"], /Unknown option "--bogus"/],
    ] as const
  ) {
    const result = parseCommand([...argv]);
    assert.ok(!result.ok, JSON.stringify(argv));
    assert.match(result.error, pattern);
  }
});
