import assert from "node:assert/strict";
import { join } from "node:path";
import { defaultGrants } from "../support/grants.ts";
import { callTool, createLayout, MODES, openSandbox, textOf } from "./_helpers.ts";

async function mkfifo(path: string): Promise<void> {
  const made = await new Deno.Command("mkfifo", { args: [path] }).output();
  assert.ok(made.success, new TextDecoder().decode(made.stderr));
}

for (const mode of MODES) {
  Deno.test(`[${mode}] bash streams what a command prints through the tool host while it runs`, async () => {
    const layout = await createLayout();
    await using _ = layout.root;
    const fifo = join(layout.ws, "go.fifo");
    await mkfifo(fifo);
    // Without bubblewrap bash runs only with --allow-run.
    const sb = await openSandbox(layout, mode, { ...defaultGrants(layout.ws), run: true });
    // Opened for reading and writing, a FIFO never blocks; the command reads "go" from it.
    const release = await Deno.open(fifo, { read: true, write: true });
    try {
      const seen: string[] = [];
      let sawStart!: () => void;
      const started = new Promise<void>((resolve) => sawStart = resolve);
      // The command waits for the test (not for time) between its two lines.
      const finished = callTool(sb, "bash", {
        command: "echo start; read -r _ < go.fifo; echo end",
      }, {
        onUpdate: (u) => {
          seen.push(`update ${JSON.stringify(u)}`);
          if (u.text.includes("start")) sawStart();
        },
      }).then((out) => {
        seen.push("result");
        return out;
      });
      const first = await Promise.race([started.then(() => "update"), finished.then(textOf)]);
      assert.equal(first, "update", "the call is still running");
      assert.deepEqual(
        seen[0],
        `update ${JSON.stringify({ text: "start", details: { totalLines: 1, totalBytes: 6 } })}`,
      );
      await release.write(new TextEncoder().encode("go\n"));
      const out = await finished;
      assert.match(textOf(out), /^start\nend\n/);
      assert.equal(seen.at(-1), "result", "no update after the result");
    } finally {
      release.close();
      await sb.close();
    }
  });
}
