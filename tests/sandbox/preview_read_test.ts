import assert from "node:assert/strict";
import type { ToolLocation } from "../../src/agent/tool.ts";
import type { LocationState, PermissionEngine } from "../../src/policy/mod.ts";
import { createPreviewRead } from "../../src/sandbox/preview_read.ts";
import { DIFF_MAX_BYTES, FsError } from "../../src/tools/mod.ts";
import { MemoryFs } from "../support/memory_fs.ts";

/** An engine that answers each read path with `states[path]` ("prompt" when absent). */
function engine(states: Record<string, LocationState>): PermissionEngine & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    query(locations: ToolLocation[]) {
      const paths = locations.map((l) => "path" in l ? l.path : "");
      asked.push(...paths);
      return Promise.resolve({ ok: true, states: paths.map((p) => states[p] ?? "prompt") });
    },
  };
}

const writing = (path: string): ToolLocation => ({ access: "write", path });
const text = (bytes: Uint8Array | null) => bytes === null ? null : new TextDecoder().decode(bytes);

async function refusal(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (e) {
    if (e instanceof FsError && e.code === "not_granted") return e.message;
    throw e;
  }
  assert.fail("the read was not refused");
}

Deno.test("the preview reads a file the tools may read, or the very file being approved", async () => {
  const fs = new MemoryFs({ "/ws/a.txt": "in\n", "/out/b.txt": "out\n" });
  const read = createPreviewRead(engine({ "/ws/a.txt": "granted" }), fs);
  assert.equal(text(await read("/ws/a.txt", writing("/out/b.txt"))), "in\n");
  // Not granted, but it is what the question asks to write (an approved write may read it).
  assert.equal(text(await read("/out/b.txt", writing("/out/b.txt"))), "out\n");
  assert.equal(await read("/out/new.txt", writing("/out/new.txt")), null);
  assert.equal(fs.openHandles, 0);
});

Deno.test("the preview refuses what the user did not allow to be read, naming the real path", async () => {
  const fs = new MemoryFs({ "/out/secret.txt": "s3cret\n", "/ws/denied.txt": "no\n" });
  // A link in the workspace to a file outside it: judged where it leads.
  fs.addSymlink("/ws/link.txt", "/out/secret.txt");
  const checks = engine({ "/ws/link.txt": "granted", "/ws/denied.txt": "denied" });
  const read = createPreviewRead(checks, fs);
  assert.equal(
    await refusal(read("/ws/link.txt", writing("/ws/other.txt"))),
    'reading "/out/secret.txt" is not granted',
  );
  assert.deepEqual(checks.asked, ["/out/secret.txt"]);
  // A --deny-read path stays unread even when it is the file being approved.
  assert.equal(
    await refusal(read("/ws/denied.txt", writing("/ws/denied.txt"))),
    'reading "/ws/denied.txt" is denied by --deny-read',
  );
  const broken = createPreviewRead(
    { query: () => Promise.resolve({ ok: false, reason: "the tool host is gone" }) },
    fs,
  );
  assert.match(await refusal(broken("/ws/denied.txt", writing("/ws/denied.txt"))), /host is gone/);
  assert.equal(fs.openHandles, 0);
});

Deno.test("the preview reads at most DIFF_MAX_BYTES", async () => {
  const fs = new MemoryFs({ "/ws/big.txt": "x".repeat(DIFF_MAX_BYTES + 1) });
  const read = createPreviewRead(engine({ "/ws/big.txt": "granted" }), fs);
  await assert.rejects(
    read("/ws/big.txt", writing("/ws/big.txt")),
    (e) => e instanceof FsError && e.code === "too_large",
  );
});
