import assert from "node:assert/strict";
import { defaultGrants, type Grants } from "../support/grants.ts";
import { BWRAP, callTool, createLayout, MODES, openSandbox, SECRET, textOf } from "./_helpers.ts";

for (const mode of MODES) {
  Deno.test(`[${mode}] --ignore-read=.env,secrets: the tools find nothing there, as if missing`, async () => {
    const layout = await createLayout({
      ".env": `API=${SECRET}\n`,
      "secrets/key.txt": `API ${SECRET}\n`,
      "src/x.ts": "API usage\n",
    });
    await using _ = layout.root;
    // Another name of the ignored file, made before the start: hidden by identity.
    await Deno.link(`${layout.ws}/.env`, `${layout.ws}/env-copy`);
    const ignoreRead = [".env", "secrets", "later.env"].map((p) => `${layout.ws}/${p}`);
    const grants: Grants = { ...defaultGrants(layout.ws), ignoreRead };
    const sb = await openSandbox(layout, mode, grants);
    try {
      const missing = textOf(await callTool(sb, "read", { path: "nothere" }));
      // The message of a missing file, word for word (no "did you mean .env").
      const read = textOf(await callTool(sb, "read", { path: ".env" }));
      assert.equal(read, missing.replaceAll("nothere", ".env"));
      const inside = textOf(await callTool(sb, "read", { path: "secrets/key.txt" }));
      assert.ok(!inside.includes(SECRET) && !inside.includes("BLOCKED"), inside);
      // (Its name stays listed: identities are checked when a file is opened.)
      const copy = textOf(await callTool(sb, "read", { path: "env-copy" }));
      assert.ok(copy.startsWith('File not found: "env-copy"') && !copy.includes(SECRET), copy);
      for (
        const [name, args] of [
          ["grep", { pattern: "API" }],
          ["find", { pattern: "**/*" }],
          ["ls", { path: "." }],
        ] as const
      ) {
        const text = textOf(await callTool(sb, name, args));
        assert.ok(!text.includes(SECRET), `${name} leaked: ${text}`);
        assert.ok(!/(^|[^-])\.env|secrets/m.test(text), `${name} listed an ignored path: ${text}`);
      }
      assert.match(textOf(await callTool(sb, "grep", { pattern: "API" })), /src\/x\.ts/);
      // Writing there is refused with the same answer whether the file exists or not.
      for (const path of [".env", "later.env"]) {
        const write = textOf(await callTool(sb, "write", { path, content: "X=1\n" }));
        assert.match(write, /is refused: the path is hidden by --ignore-read/);
      }
      assert.equal(await Deno.readTextFile(`${layout.ws}/.env`), `API=${SECRET}\n`);
      // An ignored path that appears during the run is hidden too.
      await Deno.writeTextFile(`${layout.ws}/later.env`, `LATE=${SECRET}\n`);
      assert.ok(!textOf(await callTool(sb, "grep", { pattern: "LATE" })).includes(SECRET));
    } finally {
      await sb.close();
    }
  });
}

if (BWRAP) {
  Deno.test("[bwrap] --ignore-read=.env: bash neither lists nor reads the ignored file", async () => {
    const layout = await createLayout({ ".env": `API=${SECRET}\n`, "src/x.ts": "" });
    await using _ = layout.root;
    const grants: Grants = {
      ...defaultGrants(layout.ws),
      run: ["bash"],
      ignoreRead: [`${layout.ws}/.env`],
    };
    const sb = await openSandbox(layout, "bwrap", grants);
    try {
      const cat = textOf(
        await callTool(sb, "bash", { command: "ls -a; cat .env; grep -r API . || true" }),
      );
      assert.ok(!cat.includes(SECRET), cat);
      assert.ok(!/^\.env$/m.test(cat), `bash listed the ignored file: ${cat}`);
      assert.match(cat, /a\.txt/);
      // What the tools create after the start shows to the next bash call, and bash still
      // writes inside the directory's entries.
      await callTool(sb, "write", { path: "new.txt", content: "fresh\n" });
      const next = textOf(
        await callTool(sb, "bash", { command: "cat new.txt && echo more > src/y.ts && ls -a" }),
      );
      assert.match(next, /fresh/);
      assert.ok(!/^\.env$/m.test(next), next);
      assert.equal(await Deno.readTextFile(`${layout.ws}/src/y.ts`), "more\n");
    } finally {
      await sb.close();
    }
  });
}

Deno.test("[worker] --ignore-read with bash granted is refused without the OS sandbox", async () => {
  const layout = await createLayout({ ".env": `API=${SECRET}\n` });
  await using _ = layout.root;
  const grants: Grants = {
    ...defaultGrants(layout.ws),
    run: ["bash"],
    ignoreRead: [`${layout.ws}/.env`],
  };
  await assert.rejects(
    openSandbox(layout, "worker", grants),
    /--ignore-read=.*\.env cannot hold without the OS sandbox \(bubblewrap\)/,
  );
});
