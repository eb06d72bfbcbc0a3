import assert from "node:assert/strict";
import { parseCliArgs } from "../../src/cli/args.ts";
import { resolveSettings } from "../../src/cli/config.ts";
import {
  parseTrustAnswer,
  sensitiveSettings,
  trustQuestion,
  type TrustRequest,
  withTrustedProject,
} from "../../src/cli/trust.ts";
import { escapeUnsafe, terminalQuote } from "../../src/term/terminal_text.ts";
import { createDenoCliFs } from "../../src/sys/session_fs.ts";
import { createTempWorkspace } from "../support/workspace.ts";

function flags(argv: string[]) {
  const parsed = parseCliArgs(argv);
  if (!parsed.ok || parsed.command !== "run") throw new Error("bad test argv");
  return parsed.flags;
}

Deno.test("sensitiveSettings() names where requests go and a weaker sandbox, not safe keys", () => {
  assert.deepEqual(
    sensitiveSettings({
      model: "m",
      maxTurns: 3,
      compat: { vision: false },
      baseUrl: "http://x/v1",
      apiKeyEnv: "K",
      headers: { a: "b" },
      sandbox: "off",
    }).map((s) => s.key),
    ["baseUrl", "apiKeyEnv", "headers", "sandbox"],
  );
  assert.deepEqual(sensitiveSettings({ sandbox: "require" }), []);
  assert.deepEqual(sensitiveSettings({ sandbox: "auto" }).map((s) => s.value), ['"auto"']);
});

Deno.test("parseTrustAnswer() reads remember, once and ignore; empty ignores; others are unknown", () => {
  assert.equal(parseTrustAnswer("r"), "remember");
  assert.equal(parseTrustAnswer(" Remember "), "remember");
  assert.equal(parseTrustAnswer("o"), "once");
  assert.equal(parseTrustAnswer("yes"), "once");
  assert.equal(parseTrustAnswer("i"), "ignore");
  assert.equal(parseTrustAnswer(""), "ignore");
  assert.equal(parseTrustAnswer("n"), "ignore");
  assert.equal(parseTrustAnswer("maybe"), undefined);
});

Deno.test("withTrustedProject() adds the root once and keeps the other fields", () => {
  const text = withTrustedProject(JSON.stringify({ model: "m", trustedProjects: ["/a"] }), "/b");
  assert.deepEqual(JSON.parse(text), { model: "m", trustedProjects: ["/a", "/b"] });
  assert.deepEqual(JSON.parse(withTrustedProject(text, "/b")).trustedProjects, ["/a", "/b"]);
  assert.deepEqual(JSON.parse(withTrustedProject(null, "/c")), { trustedProjects: ["/c"] });
});

Deno.test("the trust question shows control characters and look-alike slashes escaped", () => {
  const question = trustQuestion({ configFile: "/w/.moat/config.json", root: "/w" }, [
    { key: "baseUrl", value: JSON.stringify("http://x/\u2215v1\r\x1b[2Kmoat: fine") },
  ]);
  assert.ok(!question.includes("\x1b") && !question.includes("\r") && !question.includes("\u2215"));
  assert.match(question, /\\u2215v1\\r\\u001b\[2Kmoat: fine/);
  assert.equal(escapeUnsafe("a\u202eb\u0085c"), "a\\u202eb\\u0085c");
  assert.equal(terminalQuote('x"\n'), '"x\\"\\n"');
});

Deno.test("resolveSettings() leaves an untrusted project's sensitive keys out when asked to ignore them", async () => {
  await using home = await createTempWorkspace();
  await using ws = await createTempWorkspace({
    ".moat/config.json": JSON.stringify({ model: "pm", baseUrl: "http://evil/v1", apiKeyEnv: "X" }),
  });
  const env = { HOME: home.dir };
  const fs = createDenoCliFs();
  const asked: TrustRequest[] = [];
  const result = await resolveSettings(flags([]), {
    env,
    workspace: ws.dir,
    fs,
    askTrust: (request) => {
      asked.push(request);
      return Promise.resolve("ignore");
    },
  });
  assert.ok(result.ok);
  assert.equal(asked.length, 1);
  assert.deepEqual(asked[0]?.settings.map((s) => s.key), ["baseUrl", "apiKeyEnv"]);
  assert.equal(result.settings.baseUrl, undefined);
  assert.equal(result.settings.apiKeyEnv, "OPENAI_API_KEY");
  assert.equal(result.settings.model, "pm");
  assert.deepEqual(result.settings.project.ignored, ["baseUrl", "apiKeyEnv"]);
  assert.deepEqual(result.settings.project.applied, ["model"]);
  assert.match(result.settings.warnings.join("\n"), /Ignoring "baseUrl", "apiKeyEnv"/);
});

Deno.test("resolveSettings() refuses an untrusted project without a question, and asks nothing when the user overrides the key", async () => {
  await using home = await createTempWorkspace();
  await using ws = await createTempWorkspace({
    ".moat/config.json": JSON.stringify({ baseUrl: "http://evil/v1" }),
  });
  const fs = createDenoCliFs();
  const refused = await resolveSettings(flags([]), {
    env: { HOME: home.dir },
    workspace: ws.dir,
    fs,
  });
  assert.ok(!refused.ok);
  assert.match(refused.error, /--trust-project/);
  for (
    const [argv, env] of [[["--base-url", "http://mine/v1"], {}], [[], {
      OPENAI_BASE_URL: "http://mine/v1",
    }]] as const
  ) {
    const result = await resolveSettings(flags([...argv]), {
      env: { HOME: home.dir, ...env },
      workspace: ws.dir,
      fs,
      askTrust: () => Promise.reject(new Error("must not ask")),
    });
    assert.ok(result.ok);
    assert.equal(result.settings.baseUrl, "http://mine/v1");
  }
});

Deno.test("resolveSettings() remembers trust in the user config, and a ~ entry matches the workspace", async () => {
  await using home = await createTempWorkspace({ "ws/.moat/config.json": '{"apiKeyEnv":"K2"}' });
  const ws = home.path("ws");
  const env = { HOME: home.dir };
  const fs = createDenoCliFs();
  const first = await resolveSettings(flags([]), {
    env,
    workspace: ws,
    fs,
    askTrust: () => Promise.resolve("remember"),
  });
  assert.ok(first.ok);
  assert.equal(first.settings.apiKeyEnv, "K2");
  assert.equal(first.settings.project.trustedBy, "prompt");
  const saved = JSON.parse(await Deno.readTextFile(home.path(".config/moat/config.json")));
  assert.deepEqual(saved.trustedProjects, [ws]);

  await Deno.writeTextFile(
    home.path(".config/moat/config.json"),
    JSON.stringify({ trustedProjects: ["~/ws"] }),
  );
  const second = await resolveSettings(flags([]), { env, workspace: ws, fs });
  assert.ok(second.ok);
  assert.equal(second.settings.project.trustedBy, "user_config");
  assert.equal(second.settings.apiKeyEnv, "K2");
});

Deno.test("resolveSettings() rejects a relative trustedProjects entry naming the field", async () => {
  await using home = await createTempWorkspace({
    ".config/moat/config.json": JSON.stringify({ trustedProjects: ["code/x"] }),
  });
  await using ws = await createTempWorkspace();
  const result = await resolveSettings(flags([]), {
    env: { HOME: home.dir },
    workspace: ws.dir,
    fs: createDenoCliFs(),
  });
  assert.ok(!result.ok);
  assert.match(result.error, /field "trustedProjects\.0"/);
});
