/** MCP prompts as slash commands: argument parsing, and expansion through the real SDK. */
import assert from "node:assert/strict";
import { createMcpClients, type McpClients } from "../../src/mcp/mod.ts";
import { parsePromptArguments, promptText } from "../../src/mcp/prompts.ts";
import { FIXTURE_PNG } from "../support/mcp_fixture_server.ts";
import { fixtureServer, recordingProcessOps } from "./_helpers.ts";

const greet = {
  name: "greet",
  arguments: [
    { name: "name", description: "Who to greet", required: true },
    { name: "style" },
  ],
};
const usage = "/fx:greet <name> [style]";

Deno.test("parsePromptArguments() takes arguments in order, the last one the rest of the line", () => {
  assert.deepEqual(parsePromptArguments(greet, "Ada", usage), { ok: true, args: { name: "Ada" } });
  assert.deepEqual(parsePromptArguments(greet, "Ada very warmly", usage), {
    ok: true,
    args: { name: "Ada", style: "very warmly" },
  });
  assert.deepEqual(parsePromptArguments(greet, `"Ada Lovelace" 'with  spaces'`, usage), {
    ok: true,
    args: { name: "Ada Lovelace", style: "with  spaces" },
  });
});

Deno.test("parsePromptArguments() takes name=value for declared names, in any order", () => {
  assert.deepEqual(parsePromptArguments(greet, "style=briskly Ada", usage), {
    ok: true,
    args: { style: "briskly", name: "Ada" },
  });
  assert.deepEqual(parsePromptArguments(greet, `name="Ada L" x=1`, usage), {
    ok: true,
    args: { name: "Ada L", style: "x=1" },
  });
});

Deno.test("parsePromptArguments() lists missing required arguments and refuses extra ones", () => {
  assert.deepEqual(parsePromptArguments(greet, "style=briskly", usage), {
    ok: false,
    error: "Missing required argument of /fx:greet: name (Who to greet). " +
      "Usage: /fx:greet <name> [style] (or name=value)",
  });
  assert.deepEqual(parsePromptArguments({ name: "plain" }, "", "/fx:plain"), {
    ok: true,
    args: {},
  });
  assert.deepEqual(parsePromptArguments({ name: "plain" }, "extra", "/fx:plain"), {
    ok: false,
    error: "The prompt command /fx:plain takes no arguments.",
  });
  const both = { name: "two", arguments: [{ name: "a" }] };
  assert.deepEqual(parsePromptArguments(both, "a=1 more", "/fx:two [a]"), {
    ok: false,
    error: "Too many arguments: /fx:two takes a. Usage: /fx:two [a]",
  });
});

Deno.test("promptText() keeps text, marks assistant messages and describes images", () => {
  assert.equal(
    promptText({
      messages: [
        { role: "user", content: { type: "text", text: "Hello." } },
        { role: "assistant", content: { type: "text", text: "Hi." } },
        { role: "user", content: { type: "image", data: FIXTURE_PNG, mimeType: "image/png" } },
        {
          role: "user",
          content: {
            type: "resource",
            resource: { uri: "file:///a.bin", mimeType: "application/zip", blob: "AAAA" },
          },
        },
        { role: "user", content: { type: "text", text: "  " } },
      ],
    }),
    "Hello.\n\n[Assistant, as the prompt has it]\nHi.\n\n[Image: image/png]\n\n" +
      "[Resource <file:///a.bin> (application/zip, 3 bytes) not shown.]",
  );
});

async function start(): Promise<McpClients & AsyncDisposable> {
  const mcp = createMcpClients([fixtureServer("fx")], {
    processOps: recordingProcessOps(),
    path: Deno.env.get("PATH") ?? "/usr/bin:/bin",
  });
  await mcp.start();
  return Object.assign(mcp, { [Symbol.asyncDispose]: () => mcp.close() });
}

Deno.test("a server's prompts become slash commands that expand through the server", async () => {
  await using mcp = await start();
  const commands = mcp.promptCommands();
  assert.deepEqual(commands.map((c) => [c.name, c.usage, c.description]), [
    ["/fx:greet", "/fx:greet <name> [style]", "Greets someone."],
    ["/fx:review", "/fx:review [focus]", "Asks for a review."],
  ]);
  const signal = new AbortController().signal;
  const greetCommand = commands[0];
  assert.ok(greetCommand);
  assert.deepEqual(await greetCommand.expand("Ada briskly", signal), {
    ok: true,
    text: "Greet Ada briskly.\n\n[Assistant, as the prompt has it]\nSure.\n\n[Image: image/png]",
  });
  const missing = await greetCommand.expand("", signal);
  assert.equal(missing.ok, false);
  assert.match(!missing.ok ? missing.error : "", /^Missing required argument of \/fx:greet: name/);
  assert.deepEqual(await commands[1]?.expand("", signal), { ok: true, text: "Review: all" });
});

Deno.test("prompts/list_changed refreshes the prompt commands", async () => {
  const changed = Promise.withResolvers<string>();
  const mcp = createMcpClients([fixtureServer("fx")], {
    processOps: recordingProcessOps(),
    path: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    onToolsChanged: (server) => changed.resolve(server),
  });
  try {
    await mcp.start();
    assert.equal(mcp.promptCommands().some((c) => c.name === "/fx:late"), false);
    const add = mcp.tools().find((t) => t.name === "fx__add_prompt");
    assert.ok(add);
    const added = await add.execute({ name: "late" }, new AbortController().signal, {
      toolCallId: "c1",
      onUpdate: () => {},
    });
    assert.equal(added.output, "added prompt late");
    assert.equal(await changed.promise, "fx");
    assert.ok(mcp.promptCommands().some((c) => c.name === "/fx:late"));
  } finally {
    await mcp.close();
  }
});
