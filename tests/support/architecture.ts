/**
 * The layout rules of DEVELOPERS.md as a pure check over a module graph (what `deno info --json`
 * reports), so a test can show that each rule fails when broken and then hold the real tree to it.
 */
import { basename, dirname } from "node:path";

/** One local module: its path relative to the project root, its local imports, its size. */
export interface GraphModule {
  path: string;
  /** Local modules it imports (relative paths), static and type-only; not dynamic imports. */
  imports: string[];
  lines: number;
}

/** What the rules allow. */
export interface ArchitectureRules {
  /** Modules that may import `src/sys/` (where real effects are wired). */
  entryPoints: readonly string[];
  /** Longest file in `src/`. */
  maxLines: number;
}

/** What src/term/ (the terminal) may import: never src/cli/, which uses it. */
const TERM_IMPORTS = [
  "src/term/",
  "src/report/",
  "src/agent/",
  "src/model/",
  "src/tools/",
  "src/replay/",
  "src/policy/",
];

/**
 * What src/acp/ (the Agent Client Protocol agent) may import: the run code of src/cli/ it reuses
 * and what that builds on; never the terminal (src/term/) or the effects (src/sys/).
 */
const ACP_IMPORTS = [
  "src/acp/",
  "src/cli/",
  "src/agent/",
  "src/model/",
  "src/policy/",
  "src/report/",
  "src/session/",
  "src/mcp/",
  "src/tools/",
  "src/version.ts",
];

/**
 * Folders that import neither src/cli/ nor the terminal (src/term/); those wired by the CLI are
 * imported only by src/cli/ and by src/sys/, which implements their ops interface (hook_process.ts
 * for src/hooks/, git.ts for src/rewind/).
 */
const BELOW_CLI = [
  { dir: "src/report/", wiredByCli: false },
  { dir: "src/hooks/", wiredByCli: true },
  { dir: "src/rewind/", wiredByCli: true },
];

/** Every broken rule, one sentence each (empty when the layout holds). */
export function architectureProblems(
  modules: readonly GraphModule[],
  rules: ArchitectureRules,
): string[] {
  const problems: string[] = [];
  const byPath = new Map(modules.map((m) => [m.path, m]));
  for (const m of modules) {
    if (m.path.startsWith("src/") && m.lines > rules.maxLines) {
      problems.push(`"${m.path}" has ${m.lines} lines (at most ${rules.maxLines})`);
    }
    for (const target of m.imports) {
      if (
        target.startsWith("src/sys/") && !m.path.startsWith("src/sys/") &&
        !rules.entryPoints.includes(m.path)
      ) {
        problems.push(`"${m.path}" imports "${target}": only the entry points wire src/sys/`);
      }
      if (basename(target).startsWith("_") && dirname(target) !== dirname(m.path)) {
        problems.push(`"${m.path}" imports "${target}", an internal file of another folder`);
      }
      if (
        m.path.startsWith("src/agent/") && !target.startsWith("src/agent/") &&
        !target.startsWith("src/model/")
      ) {
        problems.push(`"${m.path}" imports "${target}": src/agent/ imports only src/model/`);
      }
      if (m.path.startsWith("src/agent/") && target.startsWith("src/model/profiles/")) {
        problems.push(
          `"${m.path}" imports "${target}": server profiles are the adapter's, not the agent's`,
        );
      }
      if (
        m.path.startsWith("src/model/profiles/") && !target.startsWith("src/model/profiles/") &&
        target !== "src/model/types.ts"
      ) {
        problems.push(
          `"${m.path}" imports "${target}": src/model/profiles/ imports only src/model/types.ts`,
        );
      }
      if (m.path.startsWith("src/term/") && !TERM_IMPORTS.some((d) => target.startsWith(d))) {
        problems.push(
          `"${m.path}" imports "${target}": src/term/ imports only ${TERM_IMPORTS.join(", ")}`,
        );
      }
      if (
        target.startsWith("src/term/") && !m.path.startsWith("src/term/") &&
        !m.path.startsWith("src/cli/") && m.path !== "main.ts"
      ) {
        problems.push(`"${m.path}" imports "${target}": only src/cli/ draws on the terminal`);
      }
      if (m.path.startsWith("src/acp/") && !ACP_IMPORTS.some((d) => target.startsWith(d))) {
        problems.push(
          `"${m.path}" imports "${target}": src/acp/ imports only ${ACP_IMPORTS.join(", ")}`,
        );
      }
      if (target.startsWith("src/acp/") && !m.path.startsWith("src/acp/")) {
        problems.push(
          `"${m.path}" imports "${target}": only src/acp/ imports src/acp/ (the CLI loads it ` +
            "dynamically)",
        );
      }
      for (const { dir, wiredByCli } of BELOW_CLI) {
        if (
          m.path.startsWith(dir) &&
          (target.startsWith("src/cli/") || target.startsWith("src/term/"))
        ) {
          problems.push(
            `"${m.path}" imports "${target}": ${dir} imports neither src/cli/ nor src/term/`,
          );
        }
        if (
          wiredByCli && target.startsWith(dir) && !m.path.startsWith(dir) &&
          !m.path.startsWith("src/cli/") && !m.path.startsWith("src/sys/")
        ) {
          problems.push(`"${m.path}" imports "${target}": only src/cli/ wires ${dir}`);
        }
      }
    }
  }
  problems.push(...cycles(byPath).map((c) => `import circle: ${c.join(" → ")}`));
  return problems;
}

/** Each import circle once, as the list of its modules (first module repeated at the end). */
function cycles(byPath: Map<string, GraphModule>): string[][] {
  const found: string[][] = [];
  const seen = new Set<string>();
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const visit = (path: string) => {
    state.set(path, "open");
    stack.push(path);
    for (const next of byPath.get(path)?.imports ?? []) {
      if (!byPath.has(next)) continue;
      if (state.get(next) === "open") {
        const cycle = stack.slice(stack.indexOf(next));
        const key = [...cycle].sort().join("|");
        if (!seen.has(key)) {
          seen.add(key);
          found.push([...cycle, next]);
        }
      } else if (state.get(next) === undefined) {
        visit(next);
      }
    }
    stack.pop();
    state.set(path, "done");
  };
  for (const path of [...byPath.keys()].sort()) if (state.get(path) === undefined) visit(path);
  return found;
}

/**
 * The local module graph of `roots` (paths relative to `projectRoot`) as `deno info --json`
 * reports it: static and type-only imports of local files, dynamic imports left out.
 */
export async function moduleGraph(
  projectRoot: string,
  roots: readonly string[],
): Promise<GraphModule[]> {
  const modules = new Map<string, GraphModule>();
  const prefix = `file://${projectRoot}/`;
  const local = (specifier: string | undefined) =>
    specifier !== undefined && specifier.startsWith(prefix) && specifier.endsWith(".ts")
      ? specifier.slice(prefix.length)
      : undefined;
  for (const root of roots) {
    if (modules.has(root)) continue;
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["info", "--json", "--config", `${projectRoot}/deno.json`, root],
      cwd: projectRoot,
      stdout: "piped",
      stderr: "piped",
    }).output();
    if (!out.success) throw new Error(new TextDecoder().decode(out.stderr));
    const info = JSON.parse(new TextDecoder().decode(out.stdout)) as {
      modules: Array<{
        specifier: string;
        dependencies?: Array<{
          isDynamic?: boolean;
          code?: { specifier?: string };
          type?: { specifier?: string };
        }>;
      }>;
    };
    for (const m of info.modules) {
      const path = local(m.specifier);
      if (path === undefined || modules.has(path)) continue;
      const imports = (m.dependencies ?? []).filter((d) => !d.isDynamic).flatMap((d) =>
        [local(d.code?.specifier), local(d.type?.specifier)].filter((p) => p !== undefined)
      );
      const text = await Deno.readTextFile(`${projectRoot}/${path}`);
      modules.set(path, {
        path,
        imports: [...new Set(imports)],
        lines: text.split("\n").length - (text.endsWith("\n") ? 1 : 0),
      });
    }
  }
  return [...modules.values()].sort((a, b) => a.path.localeCompare(b.path));
}
