/** The commands and examples the docs show are the ones that really run. */
import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { splitWords } from "../../scripts/compile.ts";
import { parseCommand } from "../../src/cli/sessions.ts";
import { VERSION } from "../../src/version.ts";
import { fault, repeat, reply, startFakeOpenAI } from "../support/fake_openai.ts";
import { createTempWorkspace } from "../support/workspace.ts";
import { cliEnv, jsonLines, PROJECT_ROOT, runMoat, sessionFiles } from "./_cli.ts";

Deno.test("the README runs moat with `deno task -q start`, which prints only moat's own output", async () => {
  const readme = await Deno.readTextFile(join(PROJECT_ROOT, "README.md"));
  const launches = readme.match(/npx -y deno@2\.9\.6 task\b.*\bstart --.*$/gm) ?? [];
  assert.ok(launches.length >= 2, "the README shows how to run moat");
  for (const line of launches) {
    assert.match(line, /npx -y deno@2\.9\.6 task -q (?:--config \S+ )?start -- /, line);
  }

  await using home = await createTempWorkspace();
  const run = async (args: string[]) => {
    const out = await new Deno.Command(Deno.execPath(), {
      args,
      cwd: PROJECT_ROOT,
      env: cliEnv(home.dir),
      clearEnv: true,
      stdout: "piped",
      stderr: "piped",
    }).output();
    const decoder = new TextDecoder();
    return {
      code: out.code,
      stdout: decoder.decode(out.stdout),
      stderr: decoder.decode(out.stderr),
    };
  };
  const quiet = await run(["task", "-q", "start", "--", "--version"]);
  assert.equal(quiet.code, 0, quiet.stderr);
  assert.equal(quiet.stdout, `moat ${VERSION}\n`);
  assert.equal(quiet.stderr, "");
  // What -q leaves out: Deno's own line naming the task, on every run.
  const loud = await run(["task", "start", "--", "--version"]);
  assert.match(loud.stderr, /Task start .*deno run/);
});

Deno.test("docs/security.md quotes the bash command the tour really runs", async () => {
  const tour = await Deno.readTextFile(join(PROJECT_ROOT, "examples", "tour.jsonl"));
  const commands: string[] = [];
  for (const line of tour.trimEnd().split("\n")) {
    const value = JSON.parse(line);
    for (const block of value.message?.blocks ?? []) {
      if (block.type === "toolCall" && block.name === "bash") {
        commands.push(block.arguments.command);
      }
    }
  }
  assert.equal(commands.length, 1);
  const security = await Deno.readTextFile(join(PROJECT_ROOT, "docs", "security.md"));
  const sentence = /The checked-in `examples\/tour\.jsonl` reads, lists, greps and\s+runs `([^`]+)`/
    .exec(security);
  assert.ok(sentence !== null, "docs/security.md describes the tour");
  assert.equal(sentence[1], commands[0]);
});

// ---------------------------------------------------------------------------------------------
// docs/events.md documents every field moat emits. The fields come from real runs of the CLI
// (--output jsonl and --output json against the fake server, covering every event type), never
// from a list kept by hand.

/** Values whose keys are data, not fields: a tool call's arguments, the schema's answer. */
const FREE_FORM = new Set(["args", "structured"]);

/** Every key path of `value` (`a.b.c`; array elements share their array's path). */
function keyPaths(value: unknown, prefix = ""): string[] {
  if (Array.isArray(value)) return value.flatMap((v) => keyPaths(v, prefix));
  if (value === null || typeof value !== "object") return [];
  return Object.entries(value).flatMap(([key, v]) => {
    const path = prefix === "" ? key : `${prefix}.${key}`;
    return FREE_FORM.has(key) ? [path] : [path, ...keyPaths(v, path)];
  });
}

/** docs/events.md split by heading: each event type (or "result", for --output json) → its text. */
function eventSections(doc: string): Map<string, string> {
  const sections = new Map<string, string>();
  const parts = doc.split(/^(?=#{2,3} )/m);
  // The fields every line has (`version`, `type`, `time`) are in the introduction.
  sections.set("*", parts[0] ?? "");
  for (const part of parts) {
    const heading = part.split("\n")[0] ?? "";
    const names = heading.startsWith("## `--output json`")
      ? ["result"]
      : heading.startsWith("### ")
      ? [...heading.matchAll(/`([a-z_]+)`/g)].map((m) => m[1] as string)
      : [];
    for (const name of names) sections.set(name, (sections.get(name) ?? "") + part);
  }
  return sections;
}

/** The identifiers a text names in backticks (`a`, `{source, reason}`, `[{id, name}]`). */
function namedIn(text: string): Set<string> {
  const names = new Set<string>();
  for (const m of text.matchAll(/`([^`]+)`/g)) {
    for (const word of (m[1] as string).matchAll(/[A-Za-z_][A-Za-z0-9_]*/g)) names.add(word[0]);
  }
  return names;
}

/**
 * The fields of `records` that `doc` does not document, as "event: field" lines. A field is
 * documented when its event's section names it; a nested one may also be named in the section
 * of the event its parent is named after (`run_end.error.kind` in `error`), and the fields of
 * --output json's object in `run_end`'s section, whose fields it carries.
 */
function undocumented(doc: string, records: Array<Record<string, unknown>>): string[] {
  const sections = eventSections(doc);
  const common = namedIn(sections.get("*") ?? "");
  const missing = new Set<string>();
  for (const record of records) {
    const type = String(record.type);
    const own = sections.get(type);
    if (own === undefined) {
      missing.add(`${type}: the event has no section in docs/events.md`);
      continue;
    }
    const names = namedIn(own);
    // Each path is judged by its last segment (its parents are paths of their own).
    for (const path of keyPaths(record)) {
      const segments = path.split(".");
      const field = segments.at(-1) as string;
      const parent = segments.at(-2);
      const ok = names.has(field) ||
        (parent === undefined && common.has(field)) ||
        (parent !== undefined &&
          [sections.get(parent), type === "result" ? sections.get("run_end") : undefined]
            .some((text) => text !== undefined && namedIn(text).has(field)));
      if (!ok) missing.add(`${type}: \`${path}\``);
    }
  }
  return [...missing].sort();
}

/** Every event type jsonl.ts can write (the `type` of each record it builds). */
async function emittedTypes(): Promise<string[]> {
  const source = await Deno.readTextFile(join(PROJECT_ROOT, "src", "cli", "jsonl.ts"));
  return [...new Set([...source.matchAll(/\btype: "([a-z_]+)"/g)].map((m) => m[1] as string))];
}

Deno.test("undocumented() names the event and the key path of each field docs/events.md lacks", () => {
  const doc = "intro `version` `type`\n### `a_event`\n`x` and `{y, z}`\n### `error`\n`kind`\n";
  assert.deepEqual(
    undocumented(doc, [
      {
        version: 1,
        type: "a_event",
        x: 1,
        y: { z: 2, w: 3 },
        error: { kind: "k" },
        args: { q: 1 },
      },
      { type: "b_event" },
    ]),
    [
      "a_event: `args`",
      "a_event: `error`",
      "a_event: `y.w`",
      "b_event: the event has no section in docs/events.md",
    ],
  );
});

Deno.test({
  name: "docs/events.md documents every field of every event and of --output json that moat emits",
  async fn() {
    await using server = await startFakeOpenAI();
    await using ws = await createTempWorkspace({
      "a.txt": "alpha\n",
      "denied.txt": "never\n",
      "big.txt": "lorem ipsum dolor sit amet\n".repeat(500),
      "schema.json": JSON.stringify({
        type: "object",
        properties: { verdict: { enum: ["pass", "fail"] } },
        required: ["verdict"],
      }),
    });
    await using project = await createTempWorkspace({
      ".moat/config.json": JSON.stringify({ baseUrl: server.baseURL, maxTurns: 5 }),
    });
    await using home = await createTempWorkspace({
      "secret.txt": "outside\n",
      "config/moat/config.json": JSON.stringify({
        prices: { inputPerMTok: 2, outputPerMTok: 8, cachedInputPerMTok: 0.5 },
      }),
    });
    const env = cliEnv(home.dir, { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: "k" });
    const records: Array<Record<string, unknown>> = [];
    const run = async (args: string[], options: { cwd?: string; json?: boolean } = {}) => {
      const result = await runMoat(["--output", options.json ? "json" : "jsonl", ...args], {
        cwd: options.cwd ?? ws.dir,
        env,
      });
      assert.ok(result.stdout !== "", `no output from ${args.join(" ")}: ${result.stderr}`);
      records.push(...jsonLines(result.stdout));
      return result;
    };
    const calls = [
      { id: "r1", name: "read", arguments: { path: "a.txt" } },
      { id: "r2", name: "read", arguments: { path: join(home.dir, "secret.txt") } },
      { id: "r3", name: "read", arguments: { path: "denied.txt" } },
      { id: "b1", name: "bash", arguments: { command: "echo hi; sleep 0.5" } },
      { id: "w1", name: "write", arguments: { path: "new.txt", content: "new\n" } },
    ];

    // Tools granted, denied by the grants and by a deny list, a retry, deltas, prices.
    server.script(
      fault.status(429, { retryAfter: 0 }),
      reply.toolCalls(calls),
      // A reasoning model: its reasoning is an event of its own.
      reply.deltas([{ reasoning_content: "All done." }, { content: "Done." }]),
    );
    await run(["--include-deltas", "--deny-read=denied.txt", "do things"]);
    // A limit: the model's report.
    for (const json of [false, true]) {
      server.script(reply.toolCalls([calls[0]!]), reply.text("Report."));
      await run(["--max-turns", "1", "--no-session", "go"], { json });
    }
    // A failure.
    for (const json of [false, true]) {
      server.script(fault.unauthorized());
      await run(["--no-session", "go"], { json });
    }
    // An empty answer: a warning.
    server.script(reply.text(""));
    await run(["--no-session", "say nothing"]);
    // A structured answer.
    server.script(
      reply.toolCalls([{ id: "f1", name: "final_answer", arguments: { verdict: "pass" } }]),
    );
    await run(["--output-schema", "schema.json", "--no-session", "review"], { json: true });
    // A trusted project's config.
    server.script(reply.text("Hi."));
    await run(["--trust-project", "--no-session", "hi"], { cwd: project.dir });
    // A replay checked against a workspace that changed since.
    const [recording] = await sessionFiles(join(home.dir, "state"));
    assert.ok(recording !== undefined);
    await Deno.writeTextFile(ws.path("a.txt"), "changed\n");
    await Deno.remove(ws.path("new.txt"));
    await run(["--replay", recording, "--replay-check", "--no-session"]);
    await run(["--replay", recording, "--replay-check", "--no-session"], { json: true });

    // Background jobs: one ends by itself, one the model stops, one the end of the run stops.
    server.script(
      reply.toolCalls([
        { id: "j1", name: "bash", arguments: { command: "echo one", background: true } },
        { id: "j2", name: "bash", arguments: { command: "sleep 600", background: true } },
        { id: "j3", name: "bash", arguments: { command: "echo up; sleep 600", background: true } },
      ]),
      reply.toolCalls([
        { id: "jw", name: "job", arguments: { action: "wait", id: "1", timeout: 60 } },
        { id: "js", name: "job", arguments: { action: "stop", id: "2" } },
      ]),
      reply.text("Jobs done."),
    );
    await run(["--allow-run", "--no-session", "run jobs"]);
    // Compaction, and a model that repeats itself; summary requests (no tools) get a summary.
    let reads = 0;
    server.script(repeat((request) => {
      if ((request.body?.tools ?? []).length === 0) return reply.text("## Done\nRead big.txt.");
      if (++reads > 6) return reply.text("Read it.");
      return reply.toolCalls([{ id: `big${reads}`, name: "read", arguments: { path: "big.txt" } }]);
    }));
    await run(["--context-window", "20000", "--no-session", "read big.txt"]);
    // The runs cover every event type moat writes.
    const seen = new Set(records.map((r) => String(r.type)));
    assert.deepEqual((await emittedTypes()).filter((t) => !seen.has(t)), []);
    const doc = await Deno.readTextFile(join(PROJECT_ROOT, "docs", "events.md"));
    const missing = undocumented(doc, records);
    if (missing.length > 0) {
      assert.fail(`docs/events.md does not document (event: field):\n${missing.join("\n")}`);
    }
  },
});

// ---------------------------------------------------------------------------------------------
// The README's examples run as written in a project of your own, with the installed `moat`.

/** The `moat …` command lines of the README's `sh` blocks, without their comments. */
function readmeExamples(readme: string): string[] {
  return [...readme.matchAll(/```sh\n([\s\S]*?)```/g)]
    .flatMap((m) => (m[1] as string).split("\n"))
    .map((line) => line.trim().replace(/\s+#.*$/, ""))
    .filter((line) => /^(?:[A-Z_]+=\S+\s+)*moat(?:\s|$)/.test(line));
}

Deno.test({
  name: "every moat example in the README runs as written in a project that is not moat's checkout",
  async fn() {
    const readme = await Deno.readTextFile(join(PROJECT_ROOT, "README.md"));
    const examples = readmeExamples(readme);
    assert.ok(examples.length >= 10, examples.join("\n"));
    // Each parses as moat's own command line.
    for (const line of examples) {
      const words = splitWords(line).filter((_w, i, all) =>
        !all.slice(0, i + 1).every((x) => /^[A-Z_]+=/.test(x))
      );
      assert.equal(words[0], "moat", line);
      const parsed = parseCommand(words.slice(1));
      assert.ok(parsed.ok, `${line}: ${parsed.ok ? "" : parsed.error}`);
    }

    await using home = await createTempWorkspace({ "notes/todo.md": "- ship\n" });
    await using app = await createTempWorkspace({
      "README.md": "# My app\n",
      "src/main.ts": "console.log(1);\n",
      "tests/main_test.ts": "",
      "docs/guide.md": "# Guide\n",
      ".env": "TOKEN=x\n",
    }, { prefix: "my-app-" });
    // The README's `~/moat` is this checkout; `run.jsonl`, a recording moat wrote.
    await Deno.symlink(PROJECT_ROOT, join(home.dir, "moat"));
    await Deno.copyFile(join(PROJECT_ROOT, "examples", "tour.jsonl"), app.path("run.jsonl"));
    await using server = await startFakeOpenAI();
    server.script(repeat(reply.text("ok")));
    const root = join(home.dir, "deno-install");
    const env = cliEnv(home.dir, {
      OPENAI_BASE_URL: server.baseURL,
      OPENAI_API_KEY: "k",
      DENO_INSTALL_ROOT: root,
      PATH: [join(root, "bin"), dirname(Deno.execPath()), Deno.env.get("PATH") ?? ""].join(":"),
    });
    const sh = async (command: string[], cwd: string) => {
      const out = await new Deno.Command(command[0] as string, {
        args: command.slice(1),
        cwd,
        env,
        clearEnv: true,
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
      }).output();
      return { code: out.code, stderr: new TextDecoder().decode(out.stderr) };
    };
    const installed = await sh([Deno.execPath(), "task", "-q", "install"], PROJECT_ROOT);
    assert.equal(installed.code, 0, installed.stderr);

    for (const line of examples) {
      // Another server of the example's own, or a session or a terminal of yours: parsed above.
      if (/https:\/\//.test(line) || /--resume\b/.test(line)) continue;
      const result = await sh(["sh", "-c", line], app.dir);
      if (line === "moat sessions") {
        assert.equal(result.code, 0, `${line}: ${result.stderr}`);
        continue;
      }
      assert.notEqual(result.code, 2, `${line}: ${result.stderr}`);
      assert.match(
        result.stderr.split("\n")[0] ?? "",
        new RegExp(`^moat: workspace ${app.dir} \\(`),
        `${line}: ${result.stderr}`,
      );
    }
  },
});

Deno.test("the README's dependency list names every package deno.json imports", async () => {
  const config = JSON.parse(await Deno.readTextFile(join(PROJECT_ROOT, "deno.json")));
  const packages = new Set(
    Object.values(config.imports as Record<string, string>)
      .map((specifier) => /^npm:((?:@[^/]+\/)?[^@/]+)/.exec(specifier)?.[1] ?? specifier)
      .filter((name) => !name.startsWith("@types/")),
  );
  const readme = await Deno.readTextFile(join(PROJECT_ROOT, "README.md"));
  const section = /^## Dependencies\n([\s\S]*?)^## /m.exec(readme)?.[1] ?? "";
  const named = new Set([...section.matchAll(/`([^`]+)`/g)].map((m) => m[1]));
  assert.deepEqual([...packages].filter((p) => !named.has(p)), []);
});
