import assert from "node:assert/strict";
import { defaultGrants, type Grants } from "../../src/policy/grants.ts";
import { ToolHostClient } from "../../src/sandbox/host/client.ts";
import type { HostConnection } from "../../src/sandbox/host/connection.ts";
import type { MainToHost, PermissionStateName } from "../../src/sandbox/host/protocol.ts";
import {
  denoPermissionEngine,
  denyPermissions,
  hasDenyLists,
  widenForApproval,
  workerPermissions,
} from "../../src/sandbox/permissions.ts";

const GRANTS: Grants = defaultGrants("/w", {
  paths: {
    realPath: (path) => ({ ok: true, path }),
    stat: () => undefined,
    lstat: () => undefined,
  },
});

/** A client whose host answers every query with `states` (or dies when `states` is a string). */
function answering(states: PermissionStateName[] | string): ToolHostClient {
  return new ToolHostClient(() => {
    let gone: (reason: string) => void = () => {};
    const connection: HostConnection = {
      onMessage: () => {},
      send(msg: MainToHost) {
        if (msg.type !== "query") return;
        if (typeof states === "string") gone(states);
        else {queueMicrotask(() =>
            connection.onMessage({ type: "query_result", id: msg.id, states })
          );}
      },
      closed: new Promise<string>((resolve) => gone = resolve),
      close() {
        gone("closed");
        return Promise.resolve();
      },
    };
    return connection;
  });
}

const LOCATIONS = [
  { access: "read" as const, path: "/w/a" },
  { access: "read" as const, path: "/w/.env" },
  { access: "write" as const, path: "/etc/x" },
];

Deno.test("denoPermissionEngine(): a deny list wins over a grant; the rest not granted is prompt", async () => {
  const allowed = answering(["granted", "granted", "prompt"]);
  const deny = answering(["prompt", "granted", "prompt"]);
  const engine = denoPermissionEngine(() => allowed, deny);
  assert.deepEqual(await engine.query(LOCATIONS), {
    ok: true,
    states: ["granted", "denied", "prompt"],
  });
  const alone = denoPermissionEngine(() => allowed, undefined);
  assert.deepEqual(await alone.query(LOCATIONS), {
    ok: true,
    states: ["granted", "granted", "prompt"],
  });
  const broken = denoPermissionEngine(() => allowed, answering("boom"));
  const answer = await broken.query(LOCATIONS);
  assert.ok(!answer.ok && /tool host stopped \(boom\)/.test(answer.reason), JSON.stringify(answer));
  await Promise.all([allowed.close(), deny.close()]);
});

Deno.test("workerPermissions(): scoped grants plus the spill dir; bash through bwrap when sandboxed", () => {
  const grants: Grants = { ...GRANTS, run: ["git"], net: [] };
  const worker = workerPermissions(grants, { spillDir: "/tmp/spill" });
  assert.deepEqual(worker, {
    read: ["/w", "/tmp/spill"],
    write: ["/w", "/tmp/spill"],
    run: ["git"],
    net: false,
    env: false,
    sys: false,
    ffi: false,
    import: false,
  });
  const sandboxed = workerPermissions(grants, { spillDir: "/s", bwrapPath: "/usr/bin/bwrap" });
  assert.deepEqual(sandboxed.run, ["bash", "/usr/bin/bwrap"]);
  const all = workerPermissions({ ...grants, read: true, run: true }, { spillDir: "/s" });
  assert.equal(all.read, true);
  assert.equal(all.run, true);
});

Deno.test("denyPermissions() grants exactly the deny lists; hasDenyLists() says when there are any", () => {
  assert.equal(hasDenyLists(GRANTS), false);
  const grants: Grants = { ...GRANTS, denyRead: ["/w/.env"], denyRun: ["curl"] };
  assert.equal(hasDenyLists(grants), true);
  assert.deepEqual(denyPermissions(grants), {
    read: ["/w/.env"],
    write: false,
    run: ["curl"],
    net: false,
    env: false,
    sys: false,
    ffi: false,
    import: false,
  });
});

Deno.test("widenForApproval(): an approved write may also read that one path", () => {
  const write = widenForApproval(GRANTS, { access: "write", path: "/etc/x" });
  assert.deepEqual(write.write, ["/w", "/etc/x"]);
  assert.deepEqual(write.read, ["/w", "/etc/x"]);
  const read = widenForApproval(GRANTS, { access: "read", path: "/data" });
  assert.deepEqual(read.read, ["/w", "/data"]);
  assert.deepEqual(read.write, ["/w"]);
  assert.deepEqual(GRANTS.read, ["/w"], "the grants given are not changed");
});
