import assert from "node:assert/strict";
import { defaultGrants } from "../support/grants.ts";
import {
  callTool,
  createLayout,
  MODES,
  openSandbox,
  SECRET,
  snapshot,
  textOf,
} from "./_helpers.ts";

for (const mode of MODES) {
  Deno.test(`[${mode}] read/grep/find/ls outside the grants are blocked, and the host cannot leak either`, async () => {
    const layout = await createLayout();
    await using _ = layout.root;
    const sb = await openSandbox(layout, mode, defaultGrants(layout.ws));
    try {
      const secret = `${layout.outside}/secret.txt`;
      const cases: Array<[string, Record<string, unknown>, string]> = [
        ["read", { path: "../outside/secret.txt" }, secret],
        ["read", { path: secret }, secret],
        ["read", { path: "link-file" }, secret],
        ["read", { path: "link-dir/secret.txt" }, secret],
        ["grep", { pattern: "TOP-SECRET", path: "../outside" }, layout.outside],
        ["grep", { pattern: "TOP-SECRET", path: "link-dir" }, layout.outside],
        ["find", { pattern: "**/*.txt", path: "link-dir" }, layout.outside],
        ["ls", { path: "../outside" }, layout.outside],
        ["ls", { path: "link-dir" }, layout.outside],
      ];
      for (const [name, args, target] of cases) {
        const label = `${name} ${JSON.stringify(args)}`;
        const outcome = await callTool(sb, name, args);
        assert.ok("blocked" in outcome, label);
        assert.equal(
          outcome.blocked,
          `read access to "${target}" is not granted (add --allow-read=.,${target})`,
          label,
        );
        // Layer 1/2 on their own: the policy hook replaced by allow-all.
        const direct = textOf(await callTool(sb, name, args, { policy: false }));
        assert.ok(!direct.includes(SECRET), `${label} leaked: ${direct}`);
        assert.ok(!direct.includes("deep/more.txt"), `${label} listed outside: ${direct}`);
        assert.ok(!/\bsecret\.txt\b/.test(direct) || name === "read", `${label}: ${direct}`);
      }
      // A granted tree that contains symlinks pointing out: walking it never reaches outside.
      for (
        const [name, args] of [["grep", { pattern: "TOP-SECRET" }], ["find", {
          pattern: "**",
        }]] as const
      ) {
        const text = textOf(await callTool(sb, name, args));
        assert.ok(!text.includes(SECRET) && !text.includes("more.txt"), `${name}: ${text}`);
      }
      assert.match(textOf(await callTool(sb, "read", { path: "a.txt" })), /hello/);
    } finally {
      await sb.close();
    }
  });

  Deno.test(`[${mode}] write/edit outside, via a symlink or under a symlinked dir: blocked, nothing changes`, async () => {
    const layout = await createLayout();
    await using _ = layout.root;
    const sb = await openSandbox(layout, mode, defaultGrants(layout.ws));
    try {
      const before = await snapshot(layout.outside);
      const cases: Array<[string, Record<string, unknown>, string]> = [
        ["write", { path: "../outside/new.txt", content: "x" }, `${layout.outside}/new.txt`],
        [
          "write",
          { path: `${layout.outside}/secret.txt`, content: "x" },
          `${layout.outside}/secret.txt`,
        ],
        ["write", { path: "link-file", content: "x" }, `${layout.outside}/secret.txt`],
        ["write", { path: "link-dir/new.txt", content: "x" }, `${layout.outside}/new.txt`],
        ["write", { path: "link-dir/sub/new.txt", content: "x" }, `${layout.outside}/sub/new.txt`],
        [
          "edit",
          { path: "link-file", edits: [{ oldText: "TOP", newText: "X" }] },
          `${layout.outside}/secret.txt`,
        ],
      ];
      for (const [name, args, target] of cases) {
        const label = `${name} ${JSON.stringify(args)}`;
        const outcome = await callTool(sb, name, args);
        assert.ok("blocked" in outcome, label);
        // edit also reads its file: the write leads, then the missing read is named too.
        // The flag names exactly the file, never a directory above it (even when missing).
        const write = `write access to "${target}" is not granted (add --allow-write=.,${target})`;
        const read = `read access to "${target}" is not granted (add --allow-read=.,${target})`;
        assert.equal(outcome.blocked, name === "edit" ? `${write}; ${read}` : write, label);
      }
      // Layers 1/2 on their own (policy replaced by allow-all): whatever the tool reports,
      // nothing outside may change (checked by the snapshot below).
      for (const [name, args] of cases) await callTool(sb, name, args, { policy: false });
      assert.deepEqual(await snapshot(layout.outside), before);
      const ok = await callTool(sb, "write", { path: "made/here.txt", content: "fine" });
      assert.ok("output" in ok && !ok.output.isError, textOf(ok));
      assert.equal(await Deno.readTextFile(`${layout.ws}/made/here.txt`), "fine");
    } finally {
      await sb.close();
    }
  });

  Deno.test(`[${mode}] a file flipping between regular and a symlink to a secret never leaks it`, async () => {
    const layout = await createLayout({ "flip.txt": "benign\n" });
    await using _ = layout.root;
    const sb = await openSandbox(layout, mode, defaultGrants(layout.ws));
    const flip = `${layout.ws}/flip.txt`;
    let stop = false;
    let flips = 0;
    const flipper = (async () => {
      while (!stop) {
        await Deno.remove(flip);
        await Deno.symlink(`${layout.outside}/secret.txt`, flip);
        await new Promise((r) => setTimeout(r, 0));
        await Deno.remove(flip);
        await Deno.writeTextFile(flip, "benign\n");
        flips++;
        await new Promise((r) => setTimeout(r, 0));
      }
    })();
    try {
      let benign = 0;
      // Reads go on until the flipper has flipped often enough, however loaded the machine is.
      for (let round = 0; (round < 20 || flips < 10) && round < 5000; round++) {
        const outcomes = await Promise.all(
          Array.from(
            { length: 10 },
            () => callTool(sb, "read", { path: "flip.txt" }, { policy: false }),
          ),
        );
        for (const o of outcomes) {
          const text = textOf(o);
          assert.ok(!text.includes(SECRET), `leaked after ${flips} flips: ${text}`);
          if (text.includes("benign")) benign++;
        }
      }
      assert.ok(flips >= 10, `the flipper ran (${flips} flips)`);
      assert.ok(benign > 0, "some reads saw the regular file");
    } finally {
      stop = true;
      await flipper;
      await sb.close();
    }
  });
}
