/**
 * End-to-end: an MCP server's resources are listed and read through moat's resource tools (a read
 * needs the server's grant), and over the tool search budget its tools are found by search and
 * called by name in the same turn; its prompts are slash commands of interactive mode.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { offeredTools, reply, startFakeOpenAI, untilOffered } from "../support/fake_openai.ts";
import { createTempWorkspace } from "../support/workspace.ts";
import { cliEnv, fixtureServerEntry, runMoat, startArgv, toolResultOf } from "./_cli.ts";
import { hasScript, startPty } from "./_pty.ts";

const hasBwrap = new Deno.Command("bwrap", { args: ["--version"], stdout: "null", stderr: "null" })
  .output().then((o) => o.success, () => false);

async function setUp(config: Record<string, unknown>) {
  const server = await startFakeOpenAI();
  const ws = await createTempWorkspace();
  const home = await createTempWorkspace();
  await Deno.mkdir(join(home.dir, "config", "moat"), { recursive: true });
  await Deno.writeTextFile(
    join(home.dir, "config", "moat", "config.json"),
    JSON.stringify({
      mcpServers: {
        fx: fixtureServerEntry(["--resources"]),
      },
      ...config,
    }),
  );
  const env = cliEnv(home.dir, { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: "sk-secret" });
  const sandbox = (await hasBwrap) ? [] : ["--allow-unsandboxed-mcp"];
  return {
    server,
    run: (args: string[]) => runMoat([...sandbox, ...args], { cwd: ws.dir, env }),
    pty: async (args: string[]) =>
      startPty([Deno.execPath(), ...(await startArgv([...sandbox, ...args]))], {
        cwd: ws.dir,
        env,
      }),
    async [Symbol.asyncDispose]() {
      await server.close();
      for (const t of [ws, home]) await t[Symbol.asyncDispose]();
    },
  };
}

const call = (id: string, name: string, args: Record<string, unknown>) =>
  reply.toolCalls([{ id, name, arguments: args }]);

Deno.test("resources are listed without a grant and read only with --allow-mcp naming the server", async () => {
  await using t = await setUp({});
  t.server.script(
    untilOffered("read_mcp_resource"),
    call("c1", "list_mcp_resources", {}),
    call("c2", "read_mcp_resource", { server: "fx", uri: "fixture://notes.txt" }),
    reply.text("Denied."),
  );
  const denied = await t.run(["read the notes"]);
  assert.equal(denied.code, 0, denied.stderr);
  const tools = offeredTools(t.server.chatRequests.at(-3));
  assert.ok(tools.includes("list_mcp_resources") && tools.includes("read_mcp_resource"));
  assert.match(toolResultOf(t.server, "c1"), /<fixture:\/\/notes\.txt> notes\.txt/);
  assert.match(toolResultOf(t.server, "c2"), /--allow-mcp=read_mcp_resource, or --allow-mcp=fx/);

  t.server.script(
    untilOffered("read_mcp_resource"),
    call("c3", "read_mcp_resource", { server: "fx", uri: "fixture://notes/deno" }),
    reply.text("Read."),
  );
  const allowed = await t.run(["--allow-mcp=fx", "read the notes"]);
  assert.equal(allowed.code, 0, allowed.stderr);
  assert.equal(toolResultOf(t.server, "c3"), "[Resource <fixture://notes/deno>]\nnotes about deno");
});

Deno.test("with mcpToolSearch the MCP tools are found by search and called by name in the same turn", async () => {
  await using t = await setUp({ mcpToolSearch: "always" });
  t.server.script(
    untilOffered("search_mcp_tools"),
    call("c1", "search_mcp_tools", { query: "echo text" }),
    call("c2", "fx__echo", { text: "found" }),
    reply.text("Done."),
  );
  const result = await t.run(["--allow-mcp=fx", "echo found"]);
  assert.equal(result.code, 0, result.stderr);
  const searching = t.server.chatRequests.at(-3);
  const tools = offeredTools(searching);
  assert.ok(tools.includes("search_mcp_tools") && !tools.includes("fx__echo"), tools.join(","));
  const system = String(searching?.body?.messages[0]?.content);
  assert.ok(!system.includes("fx__echo"), system);
  assert.match(toolResultOf(t.server, "c1"), /"name":"fx__echo"/);
  assert.equal(toolResultOf(t.server, "c2"), "found");
});

Deno.test({
  name: "interactive mode: /help lists the MCP prompts, and a prompt command sends its messages",
  ignore: !(await hasScript()),
  async fn() {
    await using t = await setUp({});
    t.server.script(reply.text("Hello, Ada."));
    await using pty = await t.pty([]);
    await pty.waitFor(/› $/, { timeoutMs: 60_000 });
    // The server starts in parallel with the session: /help lists its prompts once it is ready.
    let mark = pty.output.length;
    for (let attempt = 0;; attempt++) {
      mark = pty.output.length;
      await pty.type("/help\r");
      await pty.waitFor(/Enter sends\.[\s\S]*› $/, { from: mark });
      if (/\/fx:greet <name> \[style\][\s\S]*Greets someone\./.test(pty.output.slice(mark))) break;
      assert.ok(attempt < 300, "the prompts of the server never appeared in /help");
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    mark = pty.output.length;
    await pty.type("/fx:greet\r");
    await pty.waitFor(/Missing required argument of \/fx:greet: name \(Who to greet\)[\s\S]*› $/, {
      from: mark,
    });
    mark = pty.output.length;
    await pty.type("/fx:greet Ada style=briskly\r");
    await pty.waitFor(/Hello, Ada\.[\s\S]*› $/, { from: mark });
    assert.equal(t.server.chatRequests.length, 1);
    const sent = t.server.chatRequests[0]?.body?.messages.at(-1);
    assert.equal(sent?.role, "user");
    assert.equal(
      sent?.content,
      "Greet Ada briskly.\n\n[Assistant, as the prompt has it]\nSure.\n\n[Image: image/png]",
    );
    await pty.type("\x04");
    assert.equal(await pty.exited(), 0);
  },
});
