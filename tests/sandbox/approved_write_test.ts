/**
 * A write to a file that did not exist is reported as a new file, also when the sandbox created
 * the file (empty) first so that bubblewrap could mount exactly it: after an approval, or for a
 * granted file that does not exist yet.
 */
import assert from "node:assert/strict";
import type { Approval } from "../../src/policy/approve.ts";
import { defaultGrants } from "../support/grants.ts";
import { callTool, createLayout, MODES, openSandbox, textOf } from "./_helpers.ts";

for (const mode of MODES) {
  Deno.test(`[${mode}] a write approved once or always reports a new file as created, an existing one as overwritten`, async () => {
    const layout = await createLayout();
    await using _ = layout.root;
    const answers: Approval[] = ["once", "always", "once"];
    const sb = await openSandbox(layout, mode, defaultGrants(layout.ws), {
      prompter: { ask: () => Promise.resolve(answers.shift() ?? "deny") },
    });
    try {
      for (const name of ["once.txt", "always.txt"]) {
        const path = `${layout.outside}/${name}`;
        const outcome = await callTool(sb, "write", { path, content: "new\n" });
        assert.match(textOf(outcome), /^Wrote 4 bytes to .*\(created a new file\)\./, name);
        assert.ok("output" in outcome);
        assert.equal((outcome.output.details as { created?: boolean }).created, true);
        assert.equal(await Deno.readTextFile(path), "new\n");
      }
      // An existing file stays an overwrite, approved or not.
      const existing = `${layout.outside}/secret.txt`;
      const over = await callTool(sb, "write", { path: existing, content: "x" });
      assert.match(textOf(over), /\(overwrote the existing file\)\./);
      // The "always" grant holds for the next write of the same file: now it exists.
      const again = await callTool(sb, "write", {
        path: `${layout.outside}/always.txt`,
        content: "y",
      });
      assert.match(textOf(again), /\(overwrote the existing file\)\./);
    } finally {
      await sb.close();
    }
  });

  Deno.test(`[${mode}] a write to a granted file that does not exist yet reports it as created`, async () => {
    const layout = await createLayout();
    await using _ = layout.root;
    const path = `${layout.outside}/granted.txt`;
    const sb = await openSandbox(layout, mode, {
      ...defaultGrants(layout.ws),
      write: [layout.ws, path],
    });
    try {
      const first = await callTool(sb, "write", { path, content: "one" });
      assert.match(textOf(first), /\(created a new file\)\./);
      const second = await callTool(sb, "write", { path, content: "two" });
      assert.match(textOf(second), /\(overwrote the existing file\)\./);
      assert.equal(await Deno.readTextFile(path), "two");
    } finally {
      await sb.close();
    }
  });
}
