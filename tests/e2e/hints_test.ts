/**
 * End-to-end: every permission hint, applied as printed, makes the denied call succeed — with
 * and without bubblewrap. A write grant alone is enough to write (as in Deno), `~` expands in
 * grant values, and a file that does not exist yet may be granted. A hint names exactly the path
 * asked for, never a directory above it, and the same whether that path exists or not.
 */
import assert from "node:assert/strict";
import { type FakeToolCall, reply, startFakeOpenAI } from "../support/fake_openai.ts";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.ts";
import { BWRAP } from "../sandbox/_helpers.ts";
import { cliEnv, jsonLines, runMoat } from "./_cli.ts";

const SANDBOXES = BWRAP ? ["auto", "off"] : ["off"];

/** Runs moat once with `flags` and one scripted tool call; returns the exit code, result and hints. */
async function runCall(
  ws: TempWorkspace,
  home: TempWorkspace,
  flags: string[],
  call: FakeToolCall,
): Promise<{ code: number; result: string; hints: string[]; stderr: string }> {
  await using server = await startFakeOpenAI();
  server.script(reply.toolCalls([call]), reply.text("done"));
  const out = await runMoat([...flags, "-o", "jsonl", "go"], {
    cwd: ws.dir,
    env: cliEnv(home.dir, { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: "k" }),
  });
  const tool = server.chatRequests[1]?.body?.messages.find((m) => m.role === "tool");
  const hints = jsonLines(out.stdout)
    .filter((e) => e.type === "permission" && e.outcome === "denied")
    .flatMap((e) =>
      [...String(e.reason).matchAll(/\(add (--allow-[a-z]+=[^)]+)\)/g)].map((m) => m[1])
    )
    .filter((h): h is string => h !== undefined);
  return {
    code: out.code,
    result: String(tool?.content),
    hints: [...new Set(hints)],
    stderr: out.stderr,
  };
}

for (const sandbox of SANDBOXES) {
  const s = `--sandbox=${sandbox}`;

  Deno.test(`[${s}] each hint, added as printed, makes the denied call succeed`, async () => {
    await using ws = await createTempWorkspace({ "a.txt": "inside\n" });
    await using home = await createTempWorkspace();
    await using outside = await createTempWorkspace({ "notes.txt": "outside notes\n" });
    const cases: Array<{ call: FakeToolCall; check: (result: string) => Promise<void> }> = [
      {
        call: { id: "c1", name: "read", arguments: { path: outside.path("notes.txt") } },
        check: (result) => Promise.resolve(assert.match(result, /outside notes/)),
      },
      {
        call: {
          id: "c1",
          name: "write",
          arguments: { path: outside.path("new.txt"), content: "fresh\n" },
        },
        check: async () =>
          assert.equal(await Deno.readTextFile(outside.path("new.txt")), "fresh\n"),
      },
      {
        call: {
          id: "c1",
          name: "edit",
          arguments: {
            path: outside.path("notes.txt"),
            edits: [{ oldText: "outside", newText: "edited" }],
          },
        },
        check: async () =>
          assert.equal(await Deno.readTextFile(outside.path("notes.txt")), "edited notes\n"),
      },
    ];
    for (const { call, check } of cases) {
      const denied = await runCall(ws, home, [s], call);
      assert.equal(denied.code, 0, denied.stderr);
      assert.ok(denied.hints.length > 0, `${call.name}: ${denied.result}`);
      // Every hint keeps the workspace: a flag replaces the kind's default.
      for (const hint of denied.hints) assert.match(hint, /=\.,/, hint);
      const allowed = await runCall(ws, home, [s, ...denied.hints], call);
      assert.equal(allowed.code, 0, allowed.stderr);
      assert.deepEqual(allowed.hints, [], `${call.name} with ${denied.hints}: ${allowed.result}`);
      assert.doesNotMatch(allowed.result, /not granted|Error/, allowed.result);
      await check(allowed.result);
      // The workspace is still granted after following the hint.
      const inside = await runCall(ws, home, [s, ...denied.hints], {
        id: "c2",
        name: "read",
        arguments: { path: "a.txt" },
      });
      assert.match(inside.result, /inside/);
    }
  });

  Deno.test(`[${s}] a write grant alone lets write create and overwrite; edit names the missing read flag`, async () => {
    await using ws = await createTempWorkspace();
    await using home = await createTempWorkspace();
    await using outside = await createTempWorkspace({ "old.txt": "old\n" });
    const flags = [s, `--allow-write=.,${outside.dir}`];
    for (const path of [outside.path("created.txt"), outside.path("old.txt")]) {
      const r = await runCall(ws, home, flags, {
        id: "c1",
        name: "write",
        arguments: { path, content: "new\n" },
      });
      assert.match(r.result, /Wrote 4 bytes/, r.result);
      assert.equal(await Deno.readTextFile(path), "new\n");
    }
    const edit = await runCall(ws, home, flags, {
      id: "c1",
      name: "edit",
      arguments: { path: outside.path("old.txt"), edits: [{ oldText: "new", newText: "x" }] },
    });
    assert.deepEqual(edit.hints, [`--allow-read=.,${outside.path("old.txt")}`]);
  });

  Deno.test(`[${s}] ~ expands in grant values (the README's --allow-read=.,~/notes)`, async () => {
    await using ws = await createTempWorkspace();
    await using home = await createTempWorkspace({ "notes/todo.md": "buy milk\n" });
    const r = await runCall(ws, home, [s, "--allow-read=.,~/notes"], {
      id: "c1",
      name: "read",
      arguments: { path: "~/notes/todo.md" },
    });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.result, /buy milk/);
  });

  Deno.test(`[${s}] a hint names exactly the path asked for, never the directory above a missing one`, async () => {
    await using ws = await createTempWorkspace();
    await using home = await createTempWorkspace({ "private.txt": "home secret\n" });
    const h = (rel: string) => home.path(rel);
    const cases: Array<[FakeToolCall, string[]]> = [
      [{ id: "c1", name: "read", arguments: { path: "~/.ssh/config" } }, [
        `--allow-read=.,${h(".ssh/config")}`,
      ]],
      [{ id: "c1", name: "write", arguments: { path: "~/out/deeper/new.txt", content: "x" } }, [
        `--allow-write=.,${h("out/deeper/new.txt")}`,
      ]],
      [{ id: "c1", name: "ls", arguments: { path: "~/missing/dir" } }, [
        `--allow-read=.,${h("missing/dir")}`,
      ]],
      [{ id: "c1", name: "find", arguments: { pattern: "*", path: "~/missing/dir" } }, [
        `--allow-read=.,${h("missing/dir")}`,
      ]],
      [{ id: "c1", name: "grep", arguments: { pattern: "x", path: "~/missing/dir" } }, [
        `--allow-read=.,${h("missing/dir")}`,
      ]],
      [{
        id: "c1",
        name: "edit",
        arguments: { path: "~/.ssh/config", edits: [{ oldText: "a", newText: "b" }] },
      }, [`--allow-write=.,${h(".ssh/config")}`, `--allow-read=.,${h(".ssh/config")}`]],
    ];
    for (const [call, expected] of cases) {
      const denied = await runCall(ws, home, [s], call);
      assert.equal(denied.code, 0, denied.stderr);
      assert.deepEqual(denied.hints, expected, `${call.name}: ${denied.result}`);
    }
    // Added as printed while ~/.ssh is missing: moat says so at the start, and grants nothing.
    const read = cases[0]?.[0] as FakeToolCall;
    const missing = await runCall(ws, home, [s, `--allow-read=.,${h(".ssh/config")}`], read);
    assert.equal(missing.code, 2, missing.stderr);
    assert.match(missing.stderr, /\.ssh\/config.*does not exist/, missing.stderr);
    // With ~/.ssh there, the same hint: it tells nothing about what exists. Granted, the missing
    // file is reported as missing, and nothing of the home directory is listed.
    await Deno.mkdir(h(".ssh"));
    await home.write({ ".ssh/known_hosts": "host key\n" });
    assert.deepEqual((await runCall(ws, home, [s], read)).hints, cases[0]?.[1]);
    const granted = await runCall(ws, home, [s, `--allow-read=.,${h(".ssh/config")}`], read);
    assert.equal(granted.code, 0, granted.stderr);
    assert.match(granted.result, /not found: "[^"]*\.ssh\/config"/, granted.result);
    assert.doesNotMatch(granted.result, /private\.txt|known_hosts|is empty/, granted.result);
    // And once the file exists, the same hint makes the read succeed.
    await home.write({ ".ssh/config": "Host example\n" });
    assert.deepEqual((await runCall(ws, home, [s], read)).hints, cases[0]?.[1]);
    const found = await runCall(ws, home, [s, `--allow-read=.,${h(".ssh/config")}`], read);
    assert.match(found.result, /Host example/, found.result);
  });
}
