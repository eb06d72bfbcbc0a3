import assert from "node:assert/strict";
import {
  launcherHint,
  launcherNeeds,
  readableIn,
  resolvePermissions,
  serverView,
  viewSummary,
} from "../../src/cli/mcp_view.ts";
import type { PathOps } from "../../src/policy/ops.ts";
import { defaultGrants } from "../support/grants.ts";

/** Every path exists as itself (no symlinks); programs live in /usr/bin. */
const ops: PathOps = {
  realPath: (path) => ({ ok: true, path }),
  stat: (path) =>
    path.startsWith("/usr/bin/") ? { kind: "file", mode: 0o755 } : { kind: "dir", mode: 0o755 },
  lstat: () => ({ kind: "dir" }),
};
const none = { read: [], write: [], net: [], env: [], run: [] };
const user = { name: "fs", origin: "user" as const, file: "/home/u/.config/moat/config.json" };

Deno.test("resolvePermissions() expands ~ and resolves relative paths against the workspace", () => {
  const resolved = resolvePermissions(
    {
      read: ["~/data", "docs"],
      write: ["../out"],
      run: ["git"],
      env: ["TOKEN"],
      net: ["a.example"],
    },
    { workspace: "/w/proj", home: "/home/u", path: "/usr/bin", ops },
  );
  assert.deepEqual(resolved, {
    ok: true,
    permissions: {
      read: ["/home/u/data", "/w/proj/docs"],
      write: ["/w/out"],
      net: ["a.example"],
      env: ["TOKEN"],
      run: ["/usr/bin/git"],
    },
  });
  const bad = resolvePermissions({ read: ["~bob/x"] }, {
    workspace: "/w",
    home: "/home/u",
    path: "/usr/bin",
    ops,
  });
  assert.ok(!bad.ok);
  assert.match(bad.error, /^"permissions\.read" entry "~bob\/x": only "~" and "~\/…" are expanded/);
});

Deno.test("serverView() adds own code and permissions to the tools' grants; deny-read stays out", () => {
  const grants = {
    ...defaultGrants("/w", { paths: ops }),
    denyRead: ["/opt/mcp/node_modules/secret"],
  };
  const view = serverView(grants, { paths: ["/opt/mcp/node_modules", "/usr/lib/node_modules"] }, {
    ...none,
    read: ["/data"],
    write: ["/home/u/.npm"],
    net: ["registry.npmjs.org"],
  });
  assert.equal(
    viewSummary(view, "/home/u"),
    "read /w, /opt/mcp/node_modules, /data (not /opt/mcp/node_modules/secret) · " +
      "write /w, ~/.npm · net registry.npmjs.org",
  );
  assert.equal(readableIn(view, "/opt/mcp/node_modules/x/index.js"), true);
  assert.equal(readableIn(view, "/opt/mcp/node_modules/secret/key"), false);
  assert.equal(readableIn(view, "/opt/other"), false);
  assert.equal(
    viewSummary(serverView(defaultGrants("/w", { paths: ops }), { paths: [] }, none)),
    "read /w · write /w · net none",
  );
});

Deno.test("serverView() leaves an --ignore-read path out of the server's view, as a denied one", () => {
  const grants = { ...defaultGrants("/w", { paths: ops }), ignoreRead: ["/w/.env"] };
  const view = serverView(grants, { paths: [] }, none);
  assert.deepEqual(view.denyRead, ["/w/.env"]);
  assert.equal(readableIn(view, "/w/.env"), false);
  assert.equal(readableIn(view, "/w/src/a.ts"), true);
});

Deno.test("launcherNeeds() names the registry host and the cache npx and uvx lack, and the line to add", () => {
  const view = serverView(defaultGrants("/w", { paths: ops }), { paths: [] }, none);
  const home = "/home/u";
  const npx = launcherNeeds("npx", view, { env: { HOME: home }, home, ops });
  assert.ok(npx !== undefined);
  assert.equal(
    launcherHint(npx, user),
    'npx needs the host "registry.npmjs.org" and a writable cache "/home/u/.npm": add ' +
      '"permissions": {"net": ["registry.npmjs.org"], "write": ["~/.npm"]} to server "fs" in ' +
      '"/home/u/.config/moat/config.json"',
  );
  // Another registry from the environment, and a cache already granted.
  const granted = serverView(defaultGrants("/w", { paths: ops }), { paths: [] }, {
    ...none,
    write: ["/home/u/.npm"],
  });
  const mirror = launcherNeeds("/usr/bin/npx", granted, {
    env: { npm_config_registry: "https://npm.example.com/" },
    home,
    ops,
  });
  assert.deepEqual(mirror, {
    launcher: "npx",
    hosts: ["npm.example.com"],
    caches: [],
    cacheEntries: [],
  });
  const uvx = launcherNeeds("uvx", view, { env: {}, home, ops });
  assert.deepEqual(uvx?.hosts, ["pypi.org", "files.pythonhosted.org"]);
  assert.deepEqual(uvx?.caches, ["/home/u/.cache/uv"]);
  const all = serverView(
    { ...defaultGrants("/w", { paths: ops }), net: true },
    { paths: [] },
    { ...none, write: ["/home/u/.cache/uv"] },
  );
  assert.equal(launcherNeeds("uvx", all, { env: {}, home, ops }), undefined);
  assert.equal(launcherNeeds("node", view, { env: {}, home, ops }), undefined);
  assert.deepEqual(
    launcherNeeds("uv", view, { env: {}, home, ops, args: ["run", "s.py"] })?.caches,
    [
      "/home/u/.cache/uv",
    ],
  );
  assert.equal(
    launcherNeeds("uv", view, { env: {}, home, ops, args: ["tool", "list"] }),
    undefined,
  );
});
