import assert from "node:assert/strict";
import { Type } from "@sinclair/typebox";
import {
  approvalQuestion,
  createLinePrompter,
  parseApprovalAnswer,
  type Prompter,
} from "../../src/policy/approve.ts";
import {
  createPermissionPolicy,
  type LocationState,
  notGrantedReason,
  type PermissionDecision,
} from "../../src/policy/check.ts";
import type { AnyTool, ToolLocation } from "../../src/agent/tool.ts";

function tool(locations: (args: unknown) => ToolLocation[] | Promise<ToolLocation[]>): AnyTool {
  return {
    name: "edit",
    description: "test",
    parameters: Type.Object({}),
    kind: "write",
    locations,
    execute: () => Promise.resolve({ output: "ok" }),
  };
}

const hosts: ToolLocation = { access: "write", path: "/etc/hosts" };

function call(t: AnyTool) {
  return {
    toolCallId: "c1",
    name: "edit",
    args: {},
    tool: t,
    signal: new AbortController().signal,
  };
}

function engine(states: Record<string, LocationState>) {
  const asked: ToolLocation[][] = [];
  return {
    asked,
    query(locations: ToolLocation[]) {
      asked.push(locations);
      return Promise.resolve({
        ok: true as const,
        states: locations.map((l) =>
          states["path" in l ? l.path : "program" in l ? l.program : l.host]!
        ),
      });
    },
  };
}

Deno.test("policy denies an ungranted write with the exact text when nobody can be asked", async () => {
  const decisions: PermissionDecision[] = [];
  const policy = createPermissionPolicy({
    engine: engine({ "/etc/hosts": "prompt" }),
    onDecision: (d) => decisions.push(d),
  });
  const result = await policy(call(tool(() => [hosts])));
  assert.deepEqual(result, {
    block: true,
    source: "permissions",
    reason: 'write access to "/etc/hosts" is not granted (add --allow-write=/etc/hosts)',
  });
  assert.deepEqual(decisions.map((d) => [d.outcome, d.by, d.target]), [
    ["denied", "no_prompt", "/etc/hosts"],
  ]);
});

Deno.test("policy allows granted locations and records them", async () => {
  const decisions: PermissionDecision[] = [];
  const e = engine({ "/w/a": "granted", bash: "granted" });
  const policy = createPermissionPolicy({ engine: e, onDecision: (d) => decisions.push(d) });
  const t = tool(() => [{ access: "read", path: "/w/a" }, { access: "read", path: "/w/a" }, {
    access: "run",
    program: "bash",
  }]);
  assert.equal(await policy(call(t)), undefined);
  assert.equal(e.asked[0]?.length, 2, "duplicates asked once");
  assert.deepEqual(decisions.map((d) => d.outcome), ["granted", "granted"]);
});

Deno.test("policy with noPrompt denies even when a prompter exists; deny lists never ask", async () => {
  let asked = 0;
  const prompter: Prompter = {
    ask: () => (asked++, Promise.resolve("always")),
  };
  const noPrompt = createPermissionPolicy({
    engine: engine({ "/etc/hosts": "prompt" }),
    prompter,
    noPrompt: true,
  });
  assert.equal((await noPrompt(call(tool(() => [hosts]))))?.block, true);
  const denyList = createPermissionPolicy({ engine: engine({ "/etc/hosts": "denied" }), prompter });
  const r = await denyList(call(tool(() => [hosts])));
  assert.equal(r?.reason, 'write access to "/etc/hosts" is denied by --deny-write');
  assert.equal(asked, 0);
});

Deno.test('policy denies a write to a protected path without asking or querying, by "protected"', async () => {
  let asked = 0;
  const decisions: PermissionDecision[] = [];
  const e = engine({ "/w/.git/hooks/pre-commit": "granted", "/w/a.txt": "granted" });
  const policy = createPermissionPolicy({
    engine: e,
    prompter: { ask: () => (asked++, Promise.resolve("always")) },
    onDecision: (d) => decisions.push(d),
    protectedWrite: (path) =>
      path.startsWith("/w/.git/hooks/") ? '"/w/.git/hooks" is protected because …' : undefined,
  });
  const hook = "/w/.git/hooks/pre-commit";
  const r = await policy(call(tool(() => [{ access: "read", path: hook }, {
    access: "write",
    path: hook,
  }])));
  assert.deepEqual(r, {
    block: true,
    source: "permissions",
    reason: `write access to "${hook}" is denied: "/w/.git/hooks" is protected because …`,
  });
  assert.deepEqual(decisions.map((d) => [d.access, d.outcome, d.by, d.target]), [
    ["write", "denied", "protected", hook],
  ]);
  assert.equal(asked, 0);
  assert.equal(e.asked.length, 0, "decided before the permission engine");
  // Reading it, and writing elsewhere, are not affected.
  assert.equal(await policy(call(tool(() => [{ access: "read", path: hook }]))), undefined);
  assert.equal(
    await policy(call(tool(() => [{ access: "write", path: "/w/a.txt" }]))),
    undefined,
  );
});

Deno.test("policy asks the prompter on a TTY: once, always and no", async () => {
  for (
    const [answer, expected] of [
      ["y", "approved_once"],
      ["a", "approved_always"],
      ["n", "denied"],
    ] as const
  ) {
    const written: string[] = [];
    const approvals: unknown[] = [];
    const decisions: PermissionDecision[] = [];
    const policy = createPermissionPolicy({
      engine: engine({ "/etc/hosts": "prompt" }),
      prompter: createLinePrompter({
        write: (t) => written.push(t),
        readLine: () => Promise.resolve(answer),
      }),
      onDecision: (d) => decisions.push(d),
      onApproved: (a) => void approvals.push(a),
    });
    const r = await policy(call(tool(() => [hosts])));
    assert.equal(
      written[0],
      "moat wants to write /etc/hosts (edit). Allow? [y]es once / [a]lways this run / " +
        "[d]irectory /etc this run / [N]o (Enter) ",
    );
    assert.equal(decisions[0]?.outcome, expected);
    if (expected === "denied") {
      assert.match(r?.reason ?? "", /declined by the user/);
      assert.equal(approvals.length, 0);
    } else {
      assert.equal(r, undefined);
      assert.deepEqual(approvals, [{
        toolCallId: "c1",
        location: hosts,
        scope: expected === "approved_once" ? "once" : "always",
      }]);
    }
  }
});

Deno.test("policy blocks a call whose locations cannot be resolved", async () => {
  const policy = createPermissionPolicy({ engine: engine({}) });
  const r = await policy(call(tool(() => Promise.reject(new Error("loop")))));
  assert.equal(r?.block, true);
  assert.match(r?.reason ?? "", /cannot resolve what this call touches: loop/);
});

Deno.test("approval answers and questions are parsed and phrased per access kind", async () => {
  assert.equal(parseApprovalAnswer(" Y "), "once");
  assert.equal(parseApprovalAnswer("always"), "always");
  assert.equal(parseApprovalAnswer(""), "deny");
  assert.equal(parseApprovalAnswer("maybe"), undefined);
  assert.equal(
    approvalQuestion("bash", { access: "net", host: "example.com" }),
    "moat wants to connect to example.com (bash). Allow? [y]es once / [a]lways this run / " +
      "[N]o (Enter)",
  );
  assert.equal(
    notGrantedReason({ access: "run", program: "git" }),
    'run access to "git" is not granted (add --allow-run=git)',
  );
  const lines = ["maybe", "", null];
  const p = createLinePrompter({
    write: () => {},
    readLine: () => Promise.resolve(lines.shift() ?? null),
  });
  assert.equal(await p.ask({ toolName: "x", location: hosts, question: "?" }), "deny");
  const closed = createLinePrompter({ write: () => {}, readLine: () => Promise.resolve(null) });
  assert.equal(await closed.ask({ toolName: "x", location: hosts, question: "?" }), "deny");
});

Deno.test("policy names the write first when an edit needs read and write of one file", async () => {
  const hostsRead: ToolLocation = { access: "read", path: "/etc/hosts" };
  const spec = 'write access to "/etc/hosts" is not granted (add --allow-write=/etc/hosts)';
  // Read already granted (e.g. --allow-read): exactly the write sentence.
  const readable = createPermissionPolicy({
    engine: {
      query: (ls) =>
        Promise.resolve({
          ok: true as const,
          states: ls.map((l) => l.access === "read" ? "granted" as const : "prompt" as const),
        }),
    },
  });
  assert.equal((await readable(call(tool(() => [hostsRead, hosts]))))?.reason, spec);
  // Neither granted: the write sentence first, then what else is missing, in one result.
  const decisions: PermissionDecision[] = [];
  const neither = createPermissionPolicy({
    engine: engine({ "/etc/hosts": "prompt" }),
    onDecision: (d) => decisions.push(d),
  });
  const r = await neither(call(tool(() => [hostsRead, hosts])));
  assert.equal(
    r?.reason,
    `${spec}; read access to "/etc/hosts" is not granted (add --allow-read=/etc/hosts)`,
  );
  assert.deepEqual(decisions.map((d) => [d.access, d.outcome, d.by]), [
    ["write", "denied", "no_prompt"],
    ["read", "denied", "no_prompt"],
  ]);
});

Deno.test("policy asks once per file for an edit and approves both of its accesses", async () => {
  const hostsRead: ToolLocation = { access: "read", path: "/etc/hosts" };
  const questions: string[] = [];
  const approvals: unknown[] = [];
  const policy = createPermissionPolicy({
    engine: engine({ "/etc/hosts": "prompt" }),
    prompter: {
      ask: (r) => (questions.push(r.question), Promise.resolve("always")),
    },
    onApproved: (a) => void approvals.push(a),
  });
  assert.equal(await policy(call(tool(() => [hostsRead, hosts]))), undefined);
  assert.deepEqual(questions, [
    "moat wants to write /etc/hosts (edit). Allow? [y]es once / [a]lways this run / " +
    "[d]irectory /etc this run / [N]o (Enter)",
  ]);
  assert.deepEqual(approvals, [
    { toolCallId: "c1", location: hosts, scope: "always" },
    { toolCallId: "c1", location: hostsRead, scope: "always" },
  ]);
});

Deno.test("policy blocks with the cause when the permission engine cannot answer", async () => {
  const decisions: PermissionDecision[] = [];
  const policy = createPermissionPolicy({
    engine: {
      query: () =>
        Promise.resolve({ ok: false as const, reason: "the tool host stopped (exit 1)" }),
    },
    onDecision: (d) => decisions.push(d),
  });
  const result = await policy(call(tool(() => [hosts])));
  assert.deepEqual(result, {
    block: true,
    source: "permissions",
    reason: "the permission check could not run: the tool host stopped (exit 1)",
  });
  assert.equal(decisions[0]?.by, "error");
});

Deno.test("policy gives the question the call's arguments and a reader bound to the location asked", async () => {
  const seen: Array<{ path: string; asked: ToolLocation }> = [];
  let request: Parameters<Prompter["ask"]>[0] | undefined;
  const policy = createPermissionPolicy({
    engine: engine({ "/etc/hosts": "prompt" }),
    prompter: {
      ask(r) {
        request = r;
        return Promise.resolve("deny");
      },
    },
    previewRead(path, asked) {
      seen.push({ path, asked });
      return Promise.resolve(null);
    },
  });
  const args = { path: "/etc/hosts", edits: [] };
  await policy({ ...call(tool(() => [hosts])), args });
  assert.equal(request?.args, args);
  assert.equal(await request?.readFile?.("/etc/hosts"), null);
  assert.deepEqual(seen, [{ path: "/etc/hosts", asked: hosts }]);
});

Deno.test("policy asks the PermissionRequest hooks before the user: deny, always, or the question", async () => {
  const passwd: ToolLocation = { access: "write", path: "/etc/passwd" };
  const ask = (answers: Record<string, "deny" | "always" | undefined>) => {
    const questions: string[] = [];
    const hooked: unknown[] = [];
    const approvals: unknown[] = [];
    const decisions: PermissionDecision[] = [];
    const policy = createPermissionPolicy({
      engine: engine({ "/etc/hosts": "prompt", "/etc/passwd": "prompt" }),
      prompter: { ask: (r) => (questions.push(r.question), Promise.resolve("once")) },
      permissionHook: (r) => {
        hooked.push([r.toolCallId, r.location, r.question]);
        const answer = answers["path" in r.location! ? r.location.path : ""];
        return Promise.resolve(
          answer === "deny"
            ? { decision: "deny", reason: "not in CI" }
            : answer === "always"
            ? { decision: "always" }
            : undefined,
        );
      },
      onApproved: (a) => void approvals.push(a),
      onDecision: (d) => void decisions.push(d),
    });
    return { policy, questions, hooked, approvals, decisions };
  };
  const both = call(tool(() => [hosts, passwd]));

  const denied = ask({ "/etc/hosts": "deny" });
  assert.deepEqual(await denied.policy(both), {
    block: true,
    reason: "not in CI",
    source: "permissions",
  });
  assert.deepEqual(denied.hooked, [["c1", hosts, approvalQuestion("edit", hosts)]]);
  assert.deepEqual(denied.questions, [], "a hook's denial asks nobody");
  assert.deepEqual(denied.decisions.map((d) => [d.target, d.outcome, d.by]), [
    ["/etc/hosts", "denied", "hook"],
  ]);

  const mixed = ask({ "/etc/hosts": "always" });
  assert.equal(await mixed.policy(both), undefined);
  assert.equal(mixed.hooked.length, 2);
  assert.deepEqual(mixed.approvals, [
    { toolCallId: "c1", location: hosts, scope: "always" },
    { toolCallId: "c1", location: passwd, scope: "once" },
  ]);
  assert.deepEqual(mixed.questions, [approvalQuestion("edit", passwd)], "only the rest is asked");
  assert.deepEqual(mixed.decisions.map((d) => [d.target, d.outcome, d.by]), [
    ["/etc/hosts", "approved_always", "hook"],
    ["/etc/passwd", "approved_once", "user"],
  ]);
});
