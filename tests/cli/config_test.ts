import assert from "node:assert/strict";
import { parseCliArgs } from "../../src/cli/args.ts";
import { parseConfigFile, resolveSettings, userConfigPath } from "../../src/cli/config.ts";
import { createDenoCliFs } from "../../src/sys/session_fs.ts";
import { createTempWorkspace } from "../support/workspace.ts";

function flags(argv: string[]) {
  const parsed = parseCliArgs(argv);
  if (!parsed.ok || parsed.command !== "run") throw new Error("bad test argv");
  return parsed.flags;
}

Deno.test("resolveSettings() applies flags > env > project > user config", async () => {
  await using home = await createTempWorkspace({
    "cfg/moat/config.json": JSON.stringify({
      model: "user-model",
      baseUrl: "http://user/v1",
      maxTurns: 5,
      bashTimeout: 9,
      apiKeyEnv: "USER_KEY",
    }),
  });
  await using ws = await createTempWorkspace({
    ".moat/config.json": JSON.stringify({ model: "project-model", maxTurns: 6 }),
  });
  const env = { XDG_CONFIG_HOME: home.path("cfg"), MOAT_MAX_TURNS: "8" };
  const fs = createDenoCliFs();
  const a = await resolveSettings(flags([]), { env, workspace: ws.dir, fs });
  assert.ok(a.ok);
  assert.equal(a.settings.model, "project-model");
  assert.equal(a.settings.baseUrl, "http://user/v1");
  assert.equal(a.settings.maxTurns, 8);
  assert.equal(a.settings.bashTimeout, 9);
  assert.equal(a.settings.apiKeyEnv, "USER_KEY");
  assert.deepEqual(a.settings.configFiles, [
    home.path("cfg/moat/config.json"),
    ws.path(".moat/config.json"),
  ]);

  const b = await resolveSettings(flags(["--model", "flag-model", "--max-turns", "2"]), {
    env: { ...env, MOAT_MODEL: "env-model", OPENAI_BASE_URL: "http://env/v1" },
    workspace: ws.dir,
    fs,
  });
  assert.ok(b.ok);
  assert.equal(b.settings.model, "flag-model");
  assert.equal(b.settings.maxTurns, 2);
  assert.equal(b.settings.baseUrl, "http://env/v1");
});

Deno.test("resolveSettings() names the file, field and problem of an invalid config", async () => {
  await using ws = await createTempWorkspace({
    ".moat/config.json": JSON.stringify({ maxTurns: "ten" }),
  });
  const result = await resolveSettings(flags([]), {
    env: { HOME: ws.path("nohome") },
    workspace: ws.dir,
    fs: createDenoCliFs(),
  });
  assert.ok(!result.ok);
  assert.match(result.error, new RegExp(ws.path(".moat/config.json").replace(/\//g, "\\/")));
  assert.match(result.error, /field "maxTurns"/);
  assert.match(result.error, /integer/);
});

Deno.test("parseConfigFile() rejects unknown fields, bad enums and broken JSON", () => {
  const unknown = parseConfigFile("/c.json", '{"modle":"x"}');
  assert.ok(!unknown.ok);
  assert.match(unknown.error, /field "modle": unknown field/);
  const sandbox = parseConfigFile("/c.json", '{"sandbox":"maybe"}');
  assert.ok(!sandbox.ok);
  assert.match(sandbox.error, /field "sandbox": expected one of auto, require, off/);
  const broken = parseConfigFile("/c.json", "{");
  assert.ok(!broken.ok);
  assert.match(broken.error, /"\/c\.json": not valid JSON/);
  assert.ok(parseConfigFile("/c.json", '{"model":"m","tools":["read"]}').ok);
});

Deno.test("resolveSettings() rejects a bad environment value naming the variable", async () => {
  await using ws = await createTempWorkspace();
  const result = await resolveSettings(flags([]), {
    env: { HOME: ws.dir, MOAT_SANDBOX: "sometimes" },
    workspace: ws.dir,
    fs: createDenoCliFs(),
  });
  assert.ok(!result.ok);
  assert.match(result.error, /MOAT_SANDBOX/);
});

Deno.test("userConfigPath() prefers XDG_CONFIG_HOME and falls back to HOME/.config", () => {
  assert.equal(userConfigPath({ XDG_CONFIG_HOME: "/x", HOME: "/h" }), "/x/moat/config.json");
  assert.equal(userConfigPath({ HOME: "/h" }), "/h/.config/moat/config.json");
  assert.equal(userConfigPath({}), undefined);
});

Deno.test("resolveSettings() merges server compatibility switches field by field", async () => {
  await using home = await createTempWorkspace({
    "cfg/moat/config.json": JSON.stringify({
      compat: { streamOptions: false, maxTokensField: "max_tokens" },
    }),
  });
  await using ws = await createTempWorkspace({
    ".moat/config.json": JSON.stringify({ compat: { vision: false, streamOptions: true } }),
  });
  const result = await resolveSettings(flags([]), {
    env: { XDG_CONFIG_HOME: home.path("cfg") },
    workspace: ws.dir,
    fs: createDenoCliFs(),
  });
  assert.ok(result.ok);
  assert.deepEqual(result.settings.compat, {
    streamOptions: true,
    maxTokensField: "max_tokens",
    vision: false,
  });
  const bad = parseConfigFile(
    "/x/config.json",
    JSON.stringify({ compat: { maxTokensField: "n" } }),
  );
  assert.equal(bad.ok, false);
});

Deno.test("resolveSettings() takes limits, context window and compaction from flags and config", async () => {
  await using home = await createTempWorkspace({
    "cfg/moat/config.json": JSON.stringify({
      maxWallTime: 600,
      maxToolCalls: 40,
      contextWindow: 32_000,
      pricing: { "m1": { inputPerMTok: 1, outputPerMTok: 2 } },
    }),
  });
  await using ws = await createTempWorkspace({
    ".moat/config.json": JSON.stringify({
      maxTokensTotal: 100_000,
      compaction: false,
      // Only the user may price models: a project could otherwise switch --max-cost off.
      pricing: { "m1": { inputPerMTok: 0, outputPerMTok: 0 } },
    }),
  });
  const env = { XDG_CONFIG_HOME: home.path("cfg") };
  const fs = createDenoCliFs();
  const a = await resolveSettings(flags(["--max-cost", "1.5", "--max-tool-calls", "7"]), {
    env,
    workspace: ws.dir,
    fs,
  });
  assert.ok(a.ok);
  assert.equal(a.settings.maxWallTime, 600);
  assert.equal(a.settings.maxToolCalls, 7);
  assert.equal(a.settings.maxTokensTotal, 100_000);
  assert.equal(a.settings.maxCost, 1.5);
  assert.equal(a.settings.contextWindow, 32_000);
  assert.equal(a.settings.compaction, false);
  assert.deepEqual(a.settings.pricing, { "m1": { inputPerMTok: 1, outputPerMTok: 2 } });
  assert.ok(
    a.settings.warnings.some((w) => /"pricing" in the project config .* no effect/.test(w)),
  );

  const b = await resolveSettings(flags(["--context-window", "8000"]), {
    env,
    workspace: home.dir,
    fs,
  });
  assert.ok(b.ok);
  assert.equal(b.settings.contextWindow, 8000);
  assert.equal(b.settings.compaction, true);
});

Deno.test("parseCliArgs() rejects bad limit, window and schema values with the option's name", () => {
  for (
    const [argv, message] of [
      [["--max-wall-time", "soon"], /'--max-wall-time' expects a positive number of seconds/],
      [["--max-tool-calls", "0"], /'--max-tool-calls' expects a positive integer/],
      [["--max-tokens-total", "1e6"], /'--max-tokens-total' expects a positive integer/],
      [["--max-cost", "free"], /'--max-cost' expects a positive amount/],
      [
        ["--context-window", "100"],
        /'--context-window' expects a number of tokens \(at least 256\)/,
      ],
      [["--output-schema", " "], /'--output-schema' must not be empty/],
    ] as const
  ) {
    const parsed = parseCliArgs([...argv, "hi"]);
    assert.ok(!parsed.ok, argv.join(" "));
    assert.match(parsed.error, message);
  }
});

Deno.test("resolveSettings() takes mcpToolSearch as a mode or a budget, and refuses others", async () => {
  for (const value of ["never", { budgetPercent: 5 }, { mode: "always" }]) {
    assert.ok(parseConfigFile("/c.json", JSON.stringify({ mcpToolSearch: value })).ok);
  }
  for (const value of ["sometimes", { budgetPercent: 0 }, { budgetPercent: 150 }, { x: 1 }]) {
    const bad = parseConfigFile("/c.json", JSON.stringify({ mcpToolSearch: value }));
    assert.ok(!bad.ok, JSON.stringify(value));
    assert.match(bad.error, /"mcpToolSearch"/);
  }
  await using home = await createTempWorkspace({
    "cfg/moat/config.json": JSON.stringify({ mcpToolSearch: { budgetPercent: 5 } }),
  });
  await using ws = await createTempWorkspace();
  const resolved = await resolveSettings(flags([]), {
    env: { XDG_CONFIG_HOME: home.path("cfg") },
    workspace: ws.dir,
    fs: createDenoCliFs(),
  });
  assert.ok(resolved.ok);
  assert.deepEqual(resolved.settings.mcpToolSearch, { budgetPercent: 5 });
});

Deno.test("resolveSettings() keeps the user's MCP permissions and drops a project's with a warning", async () => {
  await using home = await createTempWorkspace({
    "cfg/moat/config.json": JSON.stringify({
      mcpServers: { mine: { command: "mine", permissions: { read: ["/opt/mine"] } } },
    }),
  });
  await using ws = await createTempWorkspace({
    ".moat/config.json": JSON.stringify({
      mcpServers: { theirs: { command: "theirs", permissions: { write: ["~"] } } },
    }),
  });
  const resolved = await resolveSettings(flags(["--trust-project"]), {
    env: { XDG_CONFIG_HOME: home.path("cfg") },
    workspace: ws.dir,
    fs: createDenoCliFs(),
  });
  assert.ok(resolved.ok, resolved.ok ? "" : resolved.error);
  const byName = new Map(resolved.settings.mcpServers.map((s) => [s.server.name, s.server]));
  const mine = byName.get("mine");
  const theirs = byName.get("theirs");
  assert.deepEqual(mine?.type === "stdio" ? mine.permissions : undefined, { read: ["/opt/mine"] });
  assert.ok(theirs?.type === "stdio" && theirs.permissions === undefined);
  const warning = resolved.settings.warnings.find((w) => w.includes('"permissions"'));
  assert.equal(
    warning,
    `"permissions" of MCP server "theirs" in the project config "${
      ws.path(".moat/config.json")
    }" ` +
      "is ignored: a project cannot widen what its servers may touch; give them in the user " +
      "config or a file passed with --mcp-config",
  );
});
