/**
 * moat's own code in the sandbox (src/sandbox/moat_code.ts, "moat_code" in src/policy/
 * protected.ts): under a write grant on the directory that holds a (fake) moat checkout and Deno
 * cache, write and edit are refused by the policy and by the Worker, and bash in bubblewrap can
 * neither create nor change a file there; a carve-out lifts the checkout; a grant that holds
 * neither changes nothing.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { PermissionDecision } from "../../src/policy/check.ts";
import type { RuntimeOps } from "../../src/sandbox/ops.ts";
import { createDenoRuntimeOps } from "../../src/sys/runtime.ts";
import { defaultGrants, type Grants, grantsOf } from "../support/grants.ts";
import {
  blockedReason,
  BWRAP,
  callTool,
  createLayout,
  type Layout,
  MODES,
  openSandbox,
  snapshot,
  textOf,
} from "./_helpers.ts";
import type { Sandbox } from "../../src/sandbox/mod.ts";

/** The layout plus a fake moat checkout (`moat/`) and a fake Deno cache (`cache/deno/`). */
async function codeLayout(): Promise<Layout & { moat: string; cache: string }> {
  const layout = await createLayout();
  await layout.root.write({
    "moat/main.ts": "// moat\n",
    "moat/deno.json": "{}\n",
    "moat/src/cli/main.ts": "export const run = 1;\n",
    "cache/deno/npm/registry.npmjs.org/openai/7.59.0/index.js": "export {};\n",
  });
  return { ...layout, moat: layout.root.path("moat"), cache: layout.root.path("cache/deno") };
}

/** Deno's runtime facts, with the fake checkout as the main module's and the fake cache. */
function runtimeOf(layout: { moat: string; cache: string }): RuntimeOps {
  return {
    ...createDenoRuntimeOps(),
    mainModule: () => pathToFileURL(join(layout.moat, "main.ts")).href,
    cacheDir: () => layout.cache,
  };
}

function open(
  layout: Layout & { moat: string; cache: string },
  mode: "bwrap" | "worker",
  grants: Grants,
  onDecision?: (d: PermissionDecision) => void,
): Promise<Sandbox> {
  return openSandbox(layout, mode, grants, {
    sys: { runtime: runtimeOf(layout) },
    ...(onDecision === undefined ? {} : { onDecision }),
  });
}

/** Read and write on the directory that holds the workspace, the checkout and the cache. */
function parentGrant(layout: Layout): Grants {
  return grantsOf(layout.ws, { "allow-read": [layout.root.dir], "allow-write": [layout.root.dir] });
}

/** The checkout and the cache, file by file, to compare before and after. */
async function code(layout: { moat: string; cache: string }) {
  return { moat: await snapshot(layout.moat), cache: await snapshot(layout.cache) };
}

for (const mode of MODES) {
  Deno.test(`[${mode}] moat's code: write and edit under a grant on its parent are refused with the reason, by the policy and by the Worker`, async () => {
    const layout = await codeLayout();
    await using _ = layout.root;
    const decisions: PermissionDecision[] = [];
    const grants = parentGrant(layout);
    const sb = await open(layout, mode, grants, (d) => decisions.push(d));
    try {
      const before = await code(layout);
      const main = join(layout.moat, "src/cli/main.ts");
      const cases: Array<[string, Record<string, unknown>, string, string]> = [
        ["write", { path: main, content: "evil" }, main, layout.moat],
        ["write", { path: join(layout.moat, "package.json"), content: "{}" }, "", layout.moat],
        [
          "edit",
          { path: main, edits: [{ oldText: "run = 1", newText: "run = 2" }] },
          main,
          layout.moat,
        ],
        ["write", { path: join(layout.cache, "npm/x.js"), content: "evil" }, "", layout.cache],
      ];
      for (const [name, args, target, covered] of cases) {
        const reason = blockedReason(await callTool(sb, name, args));
        assert.ok(
          reason.includes(
            `"${covered}" is protected because it holds code moat runs outside the sandbox; ` +
              `to allow it, add it to --allow-write (e.g. --allow-write=${layout.root.dir},` +
              `${covered})`,
          ),
          reason,
        );
        if (target !== "") assert.ok(reason.startsWith(`write access to "${target}"`), reason);
        // Layer 2 on its own (the policy replaced by allow-all) refuses too.
        const direct = textOf(await callTool(sb, name, args, { policy: false }));
        assert.match(direct, /is protected because it holds code moat runs/, direct);
      }
      assert.equal(decisions.filter((d) => d.by === "protected").length, cases.length);
      assert.deepEqual(await code(layout), before);
      // The workspace and the rest of the grant are writable as before.
      for (const path of ["a.txt", join(layout.root.dir, "outside/new.txt")]) {
        const ok = await callTool(sb, "write", { path, content: "ok\n" });
        assert.ok("output" in ok && !ok.output.isError, textOf(ok));
      }
    } finally {
      await sb.close();
    }
  });

  Deno.test(`[${mode}] moat's code: a grant that holds neither the checkout nor the cache changes nothing`, async () => {
    const layout = await codeLayout();
    await using _ = layout.root;
    const grants = defaultGrants(layout.ws);
    // One after the other: a bwrap view's placeholders would change what the next one finds.
    const plain = await openSandbox(layout, mode, grants);
    const without = plain.protection;
    await plain.close();
    const sb = await open(layout, mode, grants);
    try {
      assert.deepEqual(sb.protection, without);
      const ok = await callTool(sb, "write", { path: "b.txt", content: "ok\n" });
      assert.ok("output" in ok && !ok.output.isError, textOf(ok));
    } finally {
      await sb.close();
    }
    // Under a grant on the parent the same layout is protected: the comparison means something.
    const parent = await open(layout, mode, parentGrant(layout));
    try {
      const kinds = parent.protection.paths.filter((p) => p.why === "moat_code").map((p) => p.path);
      assert.ok(kinds.includes(layout.moat) && kinds.includes(layout.cache), kinds.join("\n"));
    } finally {
      await parent.close();
    }
  });
}

for (const mode of MODES) {
  Deno.test(`[${mode}] moat's code: a directory approval around it protects it from then on`, async () => {
    const layout = await codeLayout();
    await using _ = layout.root;
    const questions: string[] = [];
    const sb = await openSandbox(layout, mode, defaultGrants(layout.ws), {
      sys: { runtime: runtimeOf(layout) },
      prompter: {
        ask: (r) => {
          questions.push(r.question);
          return Promise.resolve("directory");
        },
      },
    });
    try {
      const before = await code(layout);
      const note = await callTool(sb, "write", { path: layout.root.path("note.txt"), content: "" });
      assert.ok("output" in note && !note.output.isError, textOf(note));
      assert.equal(questions.length, 1);
      const main = join(layout.moat, "src/cli/main.ts");
      assert.match(
        blockedReason(await callTool(sb, "write", { path: main, content: "evil" })),
        /is protected because it holds code moat runs outside the sandbox/,
      );
      assert.equal(questions.length, 1, "a protected path is never asked about");
      if (mode === "bwrap") {
        const out = textOf(
          await callTool(sb, "bash", { command: 'touch ../moat/new.ts; echo "rc=$?"' }),
        );
        assert.doesNotMatch(out, /rc=0\b/, out);
      }
      assert.deepEqual(await code(layout), before);
    } finally {
      await sb.close();
    }
  });
}

function bashTest(name: string, fn: () => Promise<void>) {
  Deno.test({ name: `[bwrap] moat's code: ${name}`, ignore: !BWRAP, fn });
}

bashTest(
  "bash cannot create, change, move or remove a file in the checkout or the cache",
  async () => {
    const layout = await codeLayout();
    await using _ = layout.root;
    const sb = await open(layout, "bwrap", parentGrant(layout));
    try {
      const before = await code(layout);
      const attempts = [
        "touch ../moat/new.ts",
        "echo evil >> ../moat/src/cli/main.ts",
        "echo '{}' > ../moat/package.json",
        "mkdir ../moat/node_modules",
        "rm -f ../moat/deno.json",
        "mv ../moat ../moat_old",
        "mv ../moat/src ../moat/src_old",
        "rm -rf ../moat/src",
        "ln -sfn /tmp ../moat/src",
        "touch ../cache/deno/npm/evil.js",
        "mv ../cache/deno ../cache/deno_old",
        // Renaming a directory above takes the read-only mount along: it must not be possible.
        "mv ../cache ../cache_old && mkdir -p ../cache/deno/npm && touch ../cache/deno/npm/evil.js",
        "echo evil >> ../cache/deno/npm/registry.npmjs.org/openai/7.59.0/index.js",
      ];
      for (const command of attempts) {
        const out = textOf(await callTool(sb, "bash", { command: `${command}; echo "rc=$?"` }));
        assert.doesNotMatch(out, /rc=0\b/, `${command} succeeded: ${out}`);
      }
      assert.deepEqual(await code(layout), before);
      for (const moved of ["moat_old", "cache_old", "cache/deno_old"]) {
        await assert.rejects(Deno.lstat(layout.root.path(moved)), Deno.errors.NotFound, moved);
      }
      // The rest of the grant stays writable for bash.
      const ok = textOf(
        await callTool(sb, "bash", { command: 'echo ok > ../outside/b.txt; echo "rc=$?"' }),
      );
      assert.match(ok, /rc=0\b/, ok);
    } finally {
      await sb.close();
    }
  },
);

bashTest(
  "--allow-write= naming the checkout lifts it for bash and the tools; the cache stays read-only",
  async () => {
    const layout = await codeLayout();
    await using _ = layout.root;
    const grants = grantsOf(layout.ws, {
      "allow-read": [layout.root.dir],
      "allow-write": [layout.root.dir, layout.moat],
    });
    const sb = await open(layout, "bwrap", grants);
    try {
      const out = textOf(
        await callTool(sb, "bash", {
          command: 'echo dev >> ../moat/src/cli/main.ts; echo "a=$?"; ' +
            'touch ../moat/new.ts; echo "b=$?"; touch ../cache/deno/npm/evil.js; echo "c=$?"',
        }),
      );
      assert.match(out, /a=0\b/, out);
      assert.match(out, /b=0\b/, out);
      assert.doesNotMatch(out, /c=0\b/, out);
      assert.equal(
        await Deno.readTextFile(join(layout.moat, "src/cli/main.ts")),
        "export const run = 1;\ndev\n",
      );
      const write = await callTool(sb, "write", {
        path: join(layout.moat, "main.ts"),
        content: "x",
      });
      assert.ok("output" in write && !write.output.isError, textOf(write));
      await assert.rejects(Deno.lstat(join(layout.cache, "npm/evil.js")), Deno.errors.NotFound);
    } finally {
      await sb.close();
    }
  },
);

bashTest(
  "in moat's own checkout, --allow-write=. and --allow-write=src let bash and write edit moat; a bare --allow-write names nothing and does not",
  async () => {
    const layout = await codeLayout();
    await using _ = layout.root;
    const openWith = (values: string[] | true) =>
      openSandbox(layout, "bwrap", grantsOf(layout.moat, { "allow-write": values }), {
        cwd: layout.moat,
        sys: { runtime: runtimeOf(layout) },
      });
    for (const grant of [".", "src"]) {
      const sb = await openWith([grant]);
      try {
        const command = `echo ${grant} >> src/cli/main.ts; echo "rc=$?"`;
        const out = textOf(await callTool(sb, "bash", { command }));
        assert.match(out, /rc=0\b/, `${grant}: ${out}`);
        const write = await callTool(sb, "write", { path: "src/new.ts", content: grant });
        assert.ok("output" in write && !write.output.isError, textOf(write));
      } finally {
        await sb.close();
      }
    }
    assert.equal(
      await Deno.readTextFile(join(layout.moat, "src/cli/main.ts")),
      "export const run = 1;\n.\nsrc\n",
    );
    const all = await openWith(true);
    try {
      const out = textOf(await callTool(all, "bash", { command: 'touch src/x.ts; echo "rc=$?"' }));
      assert.doesNotMatch(out, /rc=0\b/, out);
      assert.match(
        blockedReason(await callTool(all, "write", { path: "src/x.ts", content: "" })),
        /is protected because it holds code moat runs outside the sandbox; .*--allow-write=\/,\.\)$/,
      );
    } finally {
      await all.close();
    }
  },
);
