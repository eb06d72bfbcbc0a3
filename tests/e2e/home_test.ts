/**
 * End-to-end: `~` means one directory everywhere — in grant values, tool paths, bash and the
 * hints — whatever HOME moat runs with (a symlink, a trailing slash, `..` in it), with and
 * without bubblewrap; a HOME moat cannot use and `~user` are refused with what to write instead.
 */
import assert from "node:assert/strict";
import { type FakeToolCall, reply, startFakeOpenAI } from "../support/fake_openai.ts";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.ts";
import { BWRAP } from "../sandbox/_helpers.ts";
import { cliEnv, jsonLines, runMoat, toolResultOf } from "./_cli.ts";

const SANDBOXES = BWRAP ? ["auto", "off"] : ["off"];

/** Runs moat once with HOME set to `home` (unset when undefined) and one reply of `calls`. */
async function runWithHome(
  ws: TempWorkspace,
  home: string | undefined,
  flags: string[],
  calls: FakeToolCall[],
): Promise<{ code: number; stderr: string; result: (id: string) => string; hints: string[] }> {
  await using state = await createTempWorkspace();
  await using server = await startFakeOpenAI();
  server.script(reply.toolCalls(calls), reply.text("done"));
  const env = cliEnv(state.dir, { OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: "k" });
  if (home === undefined) delete env.HOME;
  else env.HOME = home;
  const out = await runMoat([...flags, "-o", "jsonl", "go"], { cwd: ws.dir, env });
  const hints = out.code !== 0 ? [] : jsonLines(out.stdout)
    .filter((e) => e.type === "permission" && e.outcome === "denied")
    .flatMap((e) => [...String(e.reason).matchAll(/\(add (--allow-[a-z]+=[^)]+)\)/g)])
    .map((m) => m[1] as string);
  return {
    code: out.code,
    stderr: out.stderr,
    result: (id) => toolResultOf(server, id),
    hints: [...new Set(hints)],
  };
}

for (const sandbox of SANDBOXES) {
  const s = `--sandbox=${sandbox}`;

  Deno.test(`[${s}] ~ in grants and tool paths is one directory whatever HOME looks like`, async () => {
    await using ws = await createTempWorkspace();
    await using base = await createTempWorkspace({
      "real/home/outdir/note.txt": "the note\n",
      "real/home/other/x.txt": "other file\n",
    });
    await Deno.symlink(base.path("real/home"), base.path("linked"));
    const realHome = base.path("real/home");
    const homes: Record<string, string> = {
      "a symlink": base.path("linked"),
      "a symlink with a trailing slash": base.path("linked") + "/",
      "a trailing slash": realHome + "/",
      "'..' and '//' in it": `${base.dir}/real//home/../home`,
    };
    for (const [what, home] of Object.entries(homes)) {
      const r = await runWithHome(
        ws,
        home,
        [s, "--allow-read=.,~/outdir", "--allow-write=.,~/outdir"],
        [
          { id: "tilde", name: "read", arguments: { path: "~/outdir/note.txt" } },
          { id: "abs", name: "read", arguments: { path: `${realHome}/outdir/note.txt` } },
          { id: "ls", name: "ls", arguments: { path: "~/outdir" } },
          {
            id: "write",
            name: "write",
            arguments: { path: "~/outdir/new.txt", content: "written\n" },
          },
          { id: "outside", name: "read", arguments: { path: "~/other/x.txt" } },
          ...(sandbox === "auto"
            ? [{ id: "bash", name: "bash", arguments: { command: "cat ~/outdir/note.txt" } }]
            : []),
        ],
      );
      const at = `HOME ${what}`;
      assert.equal(r.code, 0, `${at}: ${r.stderr}`);
      assert.match(r.result("tilde"), /the note/, `${at}: ${r.result("tilde")}`);
      assert.match(r.result("abs"), /the note/, `${at}: ${r.result("abs")}`);
      assert.match(r.result("ls"), /note\.txt/, `${at}: ${r.result("ls")}`);
      assert.doesNotMatch(r.result("write"), /Error|not granted|blocked/, at);
      assert.equal(await Deno.readTextFile(`${realHome}/outdir/new.txt`), "written\n", at);
      if (sandbox === "auto") assert.match(r.result("bash"), /the note/, `${at}: bash`);
      // The hint names the file where it really is, and works when added as printed.
      assert.deepEqual(r.hints, [`--allow-read=.,${realHome}/outdir,${realHome}/other/x.txt`], at);
      const again = await runWithHome(ws, home, [s, ...r.hints], [
        { id: "outside", name: "read", arguments: { path: "~/other/x.txt" } },
      ]);
      assert.match(again.result("outside"), /other file/, `${at}: ${again.result("outside")}`);
      await Deno.remove(`${realHome}/outdir/new.txt`);
    }
  });

  Deno.test(`[${s}] ~ without a usable HOME, and ~user, are refused with what to write instead`, async () => {
    await using ws = await createTempWorkspace({ "a.txt": "a\n" });
    await using home = await createTempWorkspace({ "outdir/note.txt": "the note\n" });
    for (const [what, value] of [["unset", undefined], ["relative", "some/dir"]] as const) {
      const grant = await runWithHome(ws, value, [s, "--allow-read=.,~/outdir"], []);
      assert.equal(grant.code, 2, `HOME ${what}: ${grant.stderr}`);
      assert.match(grant.stderr, /"~\/outdir" \(--allow-read\).*HOME/, grant.stderr);
      const call = await runWithHome(ws, value, [s], [
        { id: "c1", name: "read", arguments: { path: "~/outdir/note.txt" } },
      ]);
      assert.equal(call.code, 0, call.stderr);
      assert.match(call.result("c1"), /Cannot expand "~".*HOME.*absolute path/, call.result("c1"));
    }
    // `~user` is not looked up: neither a grant nor a tool path quietly means "./~user".
    const user = await runWithHome(ws, home.dir, [s, "--allow-read=.,~root/outdir"], []);
    assert.equal(user.code, 2, user.stderr);
    assert.match(user.stderr, /"~root\/outdir" \(--allow-read\).*only "~" and "~\/…"/, user.stderr);
    const call = await runWithHome(ws, home.dir, [s], [
      { id: "c1", name: "read", arguments: { path: "~root/a.txt" } },
    ]);
    assert.match(call.result("c1"), /only "~" and "~\/…".*"\.\/~root\/a\.txt"/, call.result("c1"));
  });
}
