/**
 * bash's /tmp in bubblewrap is the tool host's private tmpfs: a command that wrote there is told
 * that it is private to the run and discarded; one that did not is not.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { parseGrantFlags } from "../support/grants.ts";
import { BWRAP, callTool, createLayout, openSandbox, textOf } from "./_helpers.ts";

Deno.test({
  name: "[bwrap] a bash call that wrote into the private /tmp is told it is discarded",
  ignore: !BWRAP,
  async fn() {
    const layout = await createLayout();
    await using _ = layout.root;
    const parsed = parseGrantFlags({ "allow-write": ["."] }, { cwd: layout.ws });
    if (!parsed.ok) throw parsed.error;
    const sb = await openSandbox(layout, "bwrap", parsed.grants);
    try {
      const bash = async (command: string) => textOf(await callTool(sb, "bash", { command }));
      const wrote = await bash("echo hi > /tmp/x.txt && cat /tmp/x.txt");
      assert.match(wrote, /^hi\n/);
      assert.ok(
        wrote.includes(
          "[moat: /tmp is private to this run and discarded: what the command wrote there " +
            '("/tmp/x.txt") does not reach the machine',
        ),
        wrote,
      );
      const nested = await bash("mkdir -p /tmp/d/e && echo x > /tmp/d/e/f.txt");
      assert.match(nested, /\("\/tmp\/d[^"]*"\)/, nested);
      // Reading it again, or writing in the workspace, is no news.
      for (const command of ["cat /tmp/x.txt", "echo y > out.txt", "ls /tmp >/dev/null"]) {
        const out = await bash(command);
        assert.doesNotMatch(out, /private to this run/, out);
      }
      assert.equal(await Deno.readTextFile(join(layout.ws, "out.txt")), "y\n");
    } finally {
      await sb.close();
    }
  },
});

Deno.test({
  name: "[bwrap] bash's description says /tmp is private to the run unless /tmp is granted",
  ignore: !BWRAP,
  async fn() {
    const layout = await createLayout();
    await using _ = layout.root;
    for (const [write, said] of [[["."], true], [[".", "/tmp"], false]] as const) {
      const parsed = parseGrantFlags({ "allow-write": [...write] }, { cwd: layout.ws });
      if (!parsed.ok) throw parsed.error;
      const sb = await openSandbox(layout, "bwrap", parsed.grants);
      try {
        const description = sb.tools.find((t) => t.name === "bash")?.description ?? "";
        assert.equal(
          description.includes("/tmp is private to this run and discarded at its end"),
          said,
          description,
        );
      } finally {
        await sb.close();
      }
    }
  },
});
