import assert from "node:assert/strict";
import { defaultGrants, type Grants } from "../../support/grants.ts";
import { hiddenDirArgs } from "../../../src/sandbox/bwrap/hide_view.ts";
import { bashHiddenDirs, hostViewProblem } from "../../../src/sandbox/bwrap/view.ts";
import { scanDenied } from "../../../src/sandbox/bwrap/deny_view.ts";
import { createDenoPathOps } from "../../../src/sys/paths.ts";
import { createTempWorkspace } from "../../support/workspace.ts";

Deno.test("hiddenDirArgs() rebuilds a directory read-only without its ignored names, entries in their modes", () => {
  const args = hiddenDirArgs(
    [
      { dir: "/ws/conf", names: ["key"], mounts: [{ path: "/ws", mode: "rw" }] },
      {
        dir: "/ws",
        names: [".env"],
        mounts: [{ path: "/ws", mode: "rw" }, { path: "/ws/vendor", mode: "ro" }],
      },
    ],
    new Map([
      ["/ws", [{ name: ".env" }, { name: "src" }, { name: "vendor" }, {
        name: "l",
        symlinkTarget: "src",
      }]],
      ["/ws/conf", [{ name: "key" }, { name: "app.json" }]],
    ]),
  );
  assert.deepEqual(args, [
    ...["--tmpfs", "/ws", "--bind", "/ws/src", "/ws/src"],
    ...["--ro-bind", "/ws/vendor", "/ws/vendor", "--symlink", "src", "/ws/l"],
    ...["--remount-ro", "/ws"],
    ...["--tmpfs", "/ws/conf", "--bind", "/ws/conf/app.json", "/ws/conf/app.json"],
    ...["--remount-ro", "/ws/conf"],
  ]);
});

Deno.test("an ignored file replaced since the start stops the tool host, naming --ignore-read", async () => {
  await using ws = await createTempWorkspace({ ".env": "A=1\n", "later/.keep": "" });
  const paths = createDenoPathOps();
  const grants: Grants = {
    ...defaultGrants(ws.dir),
    ignoreRead: [ws.path(".env"), ws.path("later/secret")],
  };
  const denied = scanDenied(grants, paths);
  const spec = { bwrapPath: "/usr/bin/bwrap", grants, cwd: ws.dir, paths, denied };
  assert.equal(hostViewProblem(spec), undefined);
  // Both directories are rebuilt for bash; a missing ignored path is hidden by name.
  assert.deepEqual(
    bashHiddenDirs(spec).map((d) => [d.dir, d.names]),
    [[ws.dir, [".env"]], [ws.path("later"), ["secret"]]],
  );
  // Renamed away and another file put in its place: its old content would show under the new name.
  await Deno.rename(ws.path(".env"), ws.path("env.bak"));
  await Deno.writeTextFile(ws.path(".env"), "B=2\n");
  assert.match(
    hostViewProblem(spec) ?? "",
    /the ignored path ".*\/\.env" \(--ignore-read\) changed since the start \(it is another file now\)/,
  );
});
