import assert from "node:assert/strict";
import { defaultGrants, type Grants } from "../../support/grants.ts";
import { createGrepTool } from "../../../src/tools/grep/mod.ts";
import { createDenoFsOps } from "../../../src/sys/fs.ts";
import { callTool, createLayout, MODES, openSandbox, SECRET } from "../_helpers.ts";

/** Enough files for grep to start its helper Workers (1,000 by default), matches throughout. */
function bigTree(): Record<string, string> {
  const files: Record<string, string> = {
    ".gitignore": "*.log\n",
    ".env": `NEEDLE=${SECRET}\n`,
    "deny/inside.txt": `NEEDLE ${SECRET} in a denied directory\n`,
  };
  for (let i = 0; i < 1200; i++) {
    const dir = `d${String(i % 12).padStart(2, "0")}`;
    const name = `${dir}/f${String(i).padStart(4, "0")}`;
    files[`${name}.ts`] = i % 97 === 0 ? `x\nNEEDLE ${i}\ny\n` : `nothing ${i}\n`;
    if (i % 300 === 0) files[`${name}.log`] = "NEEDLE in a log\n";
  }
  return files;
}

for (const mode of MODES) {
  Deno.test(`[${mode}] grep's helper Workers find what one thread finds and honour --deny-read`, async () => {
    const layout = await createLayout(bigTree());
    await using _ = layout.root;
    const grants: Grants = {
      ...defaultGrants(layout.ws),
      denyRead: [`${layout.ws}/.env`, `${layout.ws}/deny`],
    };
    const sb = await openSandbox(layout, mode, grants);
    try {
      const outcome = await callTool(sb, "grep", { pattern: "NEEDLE", context: 1, limit: 1000 });
      assert.ok("output" in outcome, JSON.stringify(outcome));
      const { output, details } = outcome.output;
      assert.ok(!output.includes(SECRET), output);
      // The same rows as one thread reading the tree directly, minus the denied files.
      const local = createGrepTool({ cwd: layout.ws, fs: createDenoFsOps() });
      const expected = (await local.execute(
        { pattern: "NEEDLE", context: 1, limit: 1000 },
        new AbortController().signal,
        { toolCallId: "x", onUpdate: () => {} },
      )).output
        .split("\n--\n")
        .filter((group) => !group.includes(SECRET))
        .join("\n--\n");
      assert.equal(output, expected);
      assert.ok(
        ((details as { threads?: number } | undefined)?.threads ?? 0) >= 1,
        `helper Workers were used: ${JSON.stringify(details)}`,
      );
    } finally {
      await sb.close();
    }
  });
}
