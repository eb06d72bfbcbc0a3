import assert from "node:assert/strict";
import { parseGrantFlags } from "../support/grants.ts";
import { entryNames } from "../support/workspace.ts";
import { BWRAP, callTool, createLayout, MODES, openSandbox, SECRET, textOf } from "./_helpers.ts";

for (const mode of MODES) {
  Deno.test(`${mode}: a denied path missing at the start stays denied when bash or another process creates it`, async () => {
    const layout = await createLayout();
    await using _root = layout.root;
    const parsed = parseGrantFlags({
      "allow-run": true,
      "deny-read": [".env"],
      "deny-write": ["generated"],
    }, { cwd: layout.ws });
    assert.ok(parsed.ok);
    const sb = await openSandbox(layout, mode, parsed.grants);
    try {
      if (mode === "bwrap") {
        const made = textOf(
          await callTool(sb, "bash", {
            command: `echo ${SECRET} > .env; mkdir -p generated/x; echo x > generated/f; ` +
              "mv .env moved; rm -rf .env generated; cat .env; ls generated; echo done",
          }),
        );
        assert.ok(!made.includes(SECRET), made);
        assert.match(made, /done/);
      }
      // A process outside the sandbox writes them between two calls (a build step).
      await Deno.writeTextFile(`${layout.ws}/.env`, `${SECRET}\n`);
      const read = textOf(await callTool(sb, "read", { path: ".env" }));
      assert.match(read, /BLOCKED: .*deny-read/, read);
      const unchecked = textOf(await callTool(sb, "read", { path: ".env" }, { policy: false }));
      assert.ok(!unchecked.includes(SECRET), unchecked);
      const grep = textOf(await callTool(sb, "grep", { pattern: SECRET }));
      assert.ok(!grep.includes(".env"), grep);
      const write = textOf(await callTool(sb, "write", { path: "generated", content: "x" }));
      assert.match(write, /BLOCKED: .*deny-write/, write);
      const inside = textOf(await callTool(sb, "write", { path: "generated/f", content: "x" }));
      assert.match(inside, /BLOCKED/, inside);
      if (mode === "bwrap") {
        const seen = textOf(
          await callTool(sb, "bash", {
            command: `cat .env; grep -r ${SECRET} . ; echo y > generated/g || echo refused`,
          }),
        );
        assert.ok(!seen.includes(SECRET), seen);
        assert.match(seen, /refused/);
      }
    } finally {
      await sb.close();
    }
    // What the outside process wrote stays; the sandbox left nothing of its own.
    assert.equal(await Deno.readTextFile(`${layout.ws}/.env`), `${SECRET}\n`);
    assert.deepEqual(await entryNames(layout.ws), [".env", "a.txt", "link-dir", "link-file"]);
  });
}

Deno.test({
  name: "bwrap: a run over missing denied and protected paths leaves nothing in the workspace",
  ignore: !BWRAP,
  fn: async () => {
    const layout = await createLayout();
    await using _root = layout.root;
    const parsed = parseGrantFlags({
      "allow-run": true,
      "deny-read": [".env,secrets/key.pem"],
      "deny-write": ["generated"],
    }, { cwd: layout.ws });
    assert.ok(parsed.ok);
    const before = await entryNames(layout.ws);
    const sb = await openSandbox(layout, "bwrap", parsed.grants);
    try {
      // While the run lasts the mount points stand there (the view masks them).
      const out = textOf(
        await callTool(sb, "bash", { command: "mkdir .moat/x || echo no-moat; ls -a" }),
      );
      assert.match(out, /no-moat/);
    } finally {
      await sb.close();
    }
    assert.deepEqual(await entryNames(layout.ws), before);
  },
});
