import assert from "node:assert/strict";
import type { PathOps } from "../../src/policy/mod.ts";
import { createMountPoints } from "../../src/sandbox/mount_points.ts";
import type { MountPointOps } from "../../src/sandbox/ops.ts";

/** Paths whose entries are given by `entries` (an id per path; absent: missing). */
function fakePaths(entries: Map<string, string>): PathOps {
  return {
    lstat: (path: string) => {
      const id = entries.get(path);
      return id === undefined ? undefined : { kind: "dir", id, mode: 0o755 };
    },
  } as unknown as PathOps;
}

/** Mount point ops whose `hold` answers with `holdOf` and counts its calls. */
function fakeOps(holdOf: (path: string) => ReturnType<MountPointOps["hold"]>) {
  const calls: string[] = [];
  const ops: MountPointOps = {
    create: () => false,
    hold(path) {
      calls.push(path);
      return holdOf(path);
    },
    startRemover: () => ({ record: () => true, close: () => Promise.resolve() }),
  };
  return { ops, calls };
}

Deno.test("a real empty directory at a target is looked at once, not held and not tried again", () => {
  const entries = new Map([["/ws/.vscode", "1:10"]]);
  const { ops, calls } = fakeOps(() => undefined);
  const points = createMountPoints(ops, fakePaths(entries));
  assert.equal(points.ensure([{ path: "/ws/.vscode", kind: "dir", exists: true }]), undefined);
  assert.deepEqual(calls, ["/ws/.vscode"]);
  assert.equal(points.holds("/ws/.vscode"), false);
});

Deno.test("a placeholder made again by another run between the look and the lock is looked at again and held", () => {
  const entries = new Map([["/ws/.idea", "1:10"]]);
  const { ops, calls } = fakeOps((path) => {
    if (calls.length === 1) {
      // Removed by the first run's remover, made again by a third run meanwhile.
      entries.set(path, "1:11");
      return undefined;
    }
    return { id: entries.get(path)!, release: () => {} };
  });
  const points = createMountPoints(ops, fakePaths(entries));
  assert.equal(points.ensure([{ path: "/ws/.idea", kind: "dir", exists: true }]), undefined);
  assert.deepEqual(calls, ["/ws/.idea", "/ws/.idea"]);
  assert.equal(points.holds("/ws/.idea"), true);
});
