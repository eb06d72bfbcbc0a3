import assert from "node:assert/strict";
import { Type } from "@sinclair/typebox";
import {
  estimateFixedTokens,
  estimateMessagesTokens,
  estimateMessageTokens,
  estimateTextTokens,
  IMAGE_TOKENS,
} from "../../../src/agent/compaction/estimate.ts";
import type { Message, ModelRequest, ToolSpec } from "../../../src/model/types.ts";
import { toChatParams } from "../../../src/model/openai/wire.ts";
import { type FakeChatBody, fakePromptTokens } from "../../support/fake_openai.ts";
import { codeText, says, turn, user } from "./_fixtures.ts";

Deno.test("estimateTextTokens() counts ASCII at one token per 3 characters, rounded up", () => {
  assert.equal(estimateTextTokens(""), 0);
  assert.equal(estimateTextTokens("abc"), 1);
  assert.equal(estimateTextTokens("abcd"), 2);
  assert.equal(estimateTextTokens("a".repeat(300)), 100);
  assert.equal(estimateTextTokens(codeText(3000)), 1000);
});

Deno.test("estimateTextTokens() counts non-ASCII characters higher than ASCII, a surrogate pair once", () => {
  assert.equal(estimateTextTokens("é".repeat(100)), 150);
  assert.ok(estimateTextTokens("é".repeat(100)) > estimateTextTokens("e".repeat(100)));
  assert.equal(estimateTextTokens("日本語"), 5);
  // Ten emoji are ten characters (twenty UTF-16 code units).
  assert.equal(estimateTextTokens("😀".repeat(10)), 15);
  assert.equal(estimateTextTokens("ab😀"), Math.ceil(2 / 3 + 1.5));
});

Deno.test("estimateMessageTokens() counts every image as IMAGE_TOKENS whatever its size", () => {
  const small = { type: "image" as const, data: "AAAA", mimeType: "image/png" };
  const large = { type: "image" as const, data: "A".repeat(300_000), mimeType: "image/png" };
  const textOnly = estimateMessageTokens(user([{ type: "text", text: "look" }]));
  assert.equal(
    estimateMessageTokens(user([{ type: "text", text: "look" }, small])),
    textOnly + IMAGE_TOKENS,
  );
  assert.equal(
    estimateMessageTokens(user([{ type: "text", text: "look" }, large])),
    textOnly + IMAGE_TOKENS,
  );
  const [, plain] = turn({ id: "a", content: [{ type: "text", text: "shot" }] });
  const [, shots] = turn({ id: "a", content: [{ type: "text", text: "shot" }, small, large] });
  assert.equal(estimateMessageTokens(shots), estimateMessageTokens(plain) + 2 * IMAGE_TOKENS);
});

Deno.test("estimateMessagesTokens() is the sum of the messages, calls and results included", () => {
  const history: Message[] = [
    user("hello"),
    ...turn({ id: "a", content: "x".repeat(90) }, { id: "b", content: "y".repeat(30) }),
    says("done"),
  ];
  const sum = history.reduce((n, m) => n + estimateMessageTokens(m), 0);
  assert.equal(estimateMessagesTokens(history), sum);
  // Each result's text counts, plus a fixed overhead per result.
  const [, one] = turn({ id: "a", content: "x".repeat(90) });
  const [, two] = turn({ id: "a", content: "x".repeat(90) }, { id: "b", content: "y".repeat(30) });
  assert.ok(estimateMessageTokens(two) - estimateMessageTokens(one) > 10);
  assert.ok(estimateMessagesTokens(history) > estimateTextTokens("x".repeat(120)));
});

const TS_SOURCE = `import { readFile } from "node:fs/promises";

/** Loads the config and returns the "name" field, or a default. */
export async function loadName(path: string): Promise<string> {
  const text = await readFile(path, "utf8");
  const config = JSON.parse(text) as { name?: string; tags?: string[] };
  if (typeof config.name !== "string" || config.name === "") {
    throw new Error(\`Config "\${path}" has no "name"\`);
  }
  return config.name.trim();
}
`;

const PROSE = "The agent reads the files the user granted, proposes a change, and asks before it " +
  "writes anything outside the workspace. When the context window fills up, older tool results " +
  "are replaced with short notes, and the conversation is summarised if that is not enough.\n\n";

const PACKAGE_JSON = JSON.stringify(
  {
    name: "@moat/cli",
    version: "0.1.0",
    scripts: { test: "deno test --allow-all", lint: "deno lint", fmt: "deno fmt --check" },
    dependencies: { openai: "7.59.0", "@sinclair/typebox": "0.34.52", picomatch: "4.0.3" },
    files: ["src/**/*.ts", "README.md", "LICENSE"],
    engines: { deno: ">=2.0.0" },
  },
  null,
  2,
);

const API_REPLY = JSON.stringify({
  data: [
    { id: "gpt-4o", object: "model", created: 1715367049, owned_by: "system" },
    { id: "gpt-4o-mini", object: "model", created: 1721172741, owned_by: "system" },
    { id: "o3-mini", object: "model", created: 1737146383, owned_by: "system" },
  ],
  object: "list",
});

const TOOLS: ToolSpec[] = [
  {
    name: "read",
    description: "Reads a text file relative to the workspace, with an optional line offset.",
    parameters: Type.Object({
      path: Type.String({ description: "File to read" }),
      offset: Type.Optional(Type.Integer({ description: "First line (1-based)" })),
    }),
  },
  {
    name: "bash",
    description: "Runs a shell command in the workspace and returns its output.",
    parameters: Type.Object({ command: Type.String({ description: "The command" }) }),
  },
];

const SAMPLES: Array<[string, Message[]]> = [
  ["TypeScript code", [
    user("Explain src/config.ts"),
    ...turn({ id: "call_1", args: { path: "src/config.ts" }, content: TS_SOURCE.repeat(8) }),
  ]],
  ["English prose", [user(PROSE.repeat(10)), says(PROSE.repeat(6))]],
  ["pretty-printed JSON", [
    user("What does package.json say?"),
    ...turn({ id: "call_2", args: { path: "package.json" }, content: PACKAGE_JSON.repeat(5) }),
  ]],
  ["compact JSON", [
    user("List the models"),
    ...turn({
      id: "call_3",
      name: "bash",
      args: { command: "curl -s https://api.openai.com/v1/models" },
      content: API_REPLY.repeat(6),
    }),
  ]],
  ["non-ASCII prose", [user("Résumé du dépôt, s'il vous plaît — 日本語でも。".repeat(40))]],
  ["a write call with file content", [
    user("Write the file"),
    ...turn({
      id: "call_4",
      name: "write",
      args: { path: "src/config.ts", content: TS_SOURCE.repeat(4) },
      content: "Wrote 1720 bytes to src/config.ts.",
    }),
    says("Done: src/config.ts now loads the name."),
  ]],
];

for (const [kind, messages] of SAMPLES) {
  Deno.test(`the estimate of a request is at least the fake server's count for ${kind}`, () => {
    const request: ModelRequest = { system: "You are a coding agent.", messages, tools: TOOLS };
    const wire = toChatParams(request, { model: "fake-model" });
    const counted = fakePromptTokens(wire as unknown as FakeChatBody);
    const estimated = estimateFixedTokens(request.system, TOOLS) + estimateMessagesTokens(messages);
    assert.ok(estimated >= counted, `estimated ${estimated} < counted ${counted}`);
    // High, not absurd: within twice the count for ASCII (the fake counts any character as ¼).
    if (!/[^ -~\n]/.test(JSON.stringify(messages))) {
      assert.ok(estimated <= 2 * counted, `estimated ${estimated} > 2 × counted ${counted}`);
    }
  });
}

Deno.test("estimateFixedTokens() grows with the system prompt and every tool definition", () => {
  const none = estimateFixedTokens("", []);
  assert.ok(none > 0);
  assert.equal(estimateFixedTokens("x".repeat(300), []), none + 100);
  const one = estimateFixedTokens("", TOOLS.slice(0, 1));
  const two = estimateFixedTokens("", TOOLS);
  assert.ok(one > none + estimateTextTokens(JSON.stringify(TOOLS[0]?.parameters)));
  assert.ok(two > one);
});
