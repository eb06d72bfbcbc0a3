/**
 * The programs a bash command line will run, where a parse can know them: tree-sitter's bash
 * grammar (web-tree-sitter, loaded on first use) finds every simple command — in pipelines,
 * lists, subshells, command and process substitutions, compound commands and function bodies —
 * and the program words are read through wrappers (`env X=1 prog`, `sudo`, `xargs`, `exec`,
 * `command`, `time`, `nice`, `timeout`, …) and nested scripts (`bash -c '…'`, `eval '…'`).
 * Builtins and functions defined in the same command are no programs. What no parse can know (a
 * variable as the command name, `eval "$x"`, a script file's own commands) is left to the check
 * after the call.
 */
import pkg from "tree-sitter-bash/package.json" with { type: "json" };
import type { Node, Parser } from "web-tree-sitter";

/** The programs a command line names, as written (a name or a path), first appearance first. */
export interface CommandPrograms {
  programs: string[];
}

/** Parses command lines. */
export interface BashCommandParser {
  programs(command: string): CommandPrograms;
}

let loading: Promise<BashCommandParser> | undefined;

/** The parser, loaded once (about 60 ms: two wasm modules) on the first call. */
export function loadBashCommandParser(): Promise<BashCommandParser> {
  loading ??= (async () => {
    const { Parser, Language } = await import("web-tree-sitter");
    // The package.json import puts tree-sitter-bash in the module graph, so its wasm resolves to a
    // file (also inside a compiled binary, which embeds the npm packages of the graph).
    void pkg.version;
    const runtime = new URL(import.meta.resolve("web-tree-sitter/web-tree-sitter.wasm"));
    const grammar = new URL(import.meta.resolve("tree-sitter-bash/tree-sitter-bash.wasm"));
    await Parser.init({ wasmBinary: await Deno.readFile(runtime) });
    const language = await Language.load(await Deno.readFile(grammar));
    const parser = new Parser();
    parser.setLanguage(language);
    return { programs: (command) => commandPrograms(parser, command) };
  })();
  loading.catch(() => loading = undefined);
  return loading;
}

/** bash builtins and reserved words that take a command position: never programs. */
const BUILTINS = new Set(
  (": . [ alias bg bind break builtin caller cd command compgen complete compopt continue " +
    "declare dirs disown echo enable eval exec exit export false fc fg getopts hash help " +
    "history jobs kill let local logout mapfile popd printf pushd pwd read readarray readonly " +
    "return set shift shopt source suspend test time times trap true type typeset ulimit umask " +
    "unalias unset wait coproc").split(" "),
);

/** Wrappers that run the rest of their arguments as a command: the options that take a value. */
const WRAPPERS: Record<string, { values: string[]; positional?: number; assignments?: boolean }> = {
  env: { values: ["-u", "-C", "-S", "--unset", "--chdir"], assignments: true },
  sudo: { values: ["-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U", "-T"] },
  doas: { values: ["-u", "-C"] },
  xargs: { values: ["-a", "-d", "-E", "-I", "-L", "-n", "-P", "-s", "--arg-file", "--delimiter"] },
  nice: { values: ["-n", "--adjustment"] },
  nohup: { values: [] },
  timeout: { values: ["-k", "-s", "--kill-after", "--signal"], positional: 1 },
  stdbuf: { values: ["-i", "-o", "-e"] },
  setsid: { values: [] },
  ionice: { values: ["-c", "-n"] },
  taskset: { values: [], positional: 1 },
  exec: { values: ["-a"] },
  command: { values: [] },
  time: { values: ["-f", "-o"] },
};

/** Shells whose `-c` script is parsed too. */
const SHELLS = new Set(["bash", "sh", "dash"]);

/** The programs of `command` (pure apart from the parser). */
export function commandPrograms(parser: Parser, command: string, depth = 0): CommandPrograms {
  const tree = parser.parse(command);
  if (tree === null) return { programs: [] };
  try {
    const functions = new Set<string>();
    const simple: Node[] = [];
    const walk = (node: Node) => {
      if (node.type === "function_definition") {
        const name = node.childForFieldName("name");
        if (name !== null) functions.add(name.text);
      }
      if (node.type === "command") simple.push(node);
      for (const child of node.namedChildren) if (child !== null) walk(child);
    };
    walk(tree.rootNode);
    const programs: string[] = [];
    const add = (p: string) => {
      if (!programs.includes(p)) programs.push(p);
    };
    for (const node of simple) {
      const argv = commandWords(node);
      for (const p of argvPrograms(argv, { functions, depth, parser })) add(p);
    }
    return { programs };
  } finally {
    tree.delete();
  }
}

/** A command's words: its name and arguments, undefined where a word is not static text. */
function commandWords(node: Node): Array<string | undefined> {
  const name = node.childForFieldName("name");
  if (name === null) return [];
  const words: Array<string | undefined> = [staticText(name.namedChildren[0] ?? null)];
  for (const arg of node.childrenForFieldName("argument")) {
    if (arg !== null) words.push(staticText(arg));
  }
  return words;
}

/** The text a word stands for when it has no expansion, glob or tilde; undefined otherwise. */
function staticText(node: Node | null): string | undefined {
  if (node === null) return undefined;
  switch (node.type) {
    case "word":
    case "number": {
      const text = node.text;
      if (/[*?[~]/.test(text) || text.includes("$")) return undefined;
      return text.replace(/\\(.)/gs, "$1");
    }
    case "raw_string":
      return node.text.slice(1, -1);
    case "string": {
      let out = "";
      for (const child of node.namedChildren) {
        if (child?.type !== "string_content") return undefined;
        out += child.text.replace(/\\([$`"\\])/g, "$1");
      }
      return out;
    }
    case "concatenation": {
      let out = "";
      for (const child of node.namedChildren) {
        const part = staticText(child);
        if (part === undefined) return undefined;
        out += part;
      }
      return out;
    }
    default:
      return undefined;
  }
}

/** The programs one simple command runs, read through wrappers and nested scripts. */
function argvPrograms(
  argv: Array<string | undefined>,
  context: { functions: Set<string>; depth: number; parser: Parser },
): string[] {
  const programs: string[] = [];
  let words = argv;
  for (let hops = 0; hops < 8 && words.length > 0; hops++) {
    const name = words[0];
    if (name === undefined || name === "") return programs;
    const base = name.slice(name.lastIndexOf("/") + 1);
    if (!name.includes("/") && context.functions.has(name)) return programs;
    const builtin = !name.includes("/") && BUILTINS.has(name);
    if (!builtin) programs.push(name);
    const rest = words.slice(1);
    if (name === "eval" || (SHELLS.has(base) && !builtin)) {
      const script = name === "eval" ? joinStatic(rest) : shellScript(rest);
      if (script !== undefined && context.depth < 3) {
        programs.push(
          ...commandPrograms(context.parser, script, context.depth + 1).programs,
        );
      }
      return programs;
    }
    if (builtin && !["exec", "command", "time"].includes(name)) return programs;
    const wrapper = WRAPPERS[builtin ? name : base];
    if (wrapper === undefined) return programs;
    if (name === "command" && rest.some((w) => w === "-v" || w === "-V")) return programs;
    words = wrappedCommand(rest, wrapper);
    if (words.length === 0 && base === "xargs") return [...programs, "echo"];
  }
  return programs;
}

/** The wrapped command: `words` after the wrapper's options, assignments and positionals. */
function wrappedCommand(
  words: Array<string | undefined>,
  spec: { values: string[]; positional?: number; assignments?: boolean },
): Array<string | undefined> {
  let i = 0;
  let positional = spec.positional ?? 0;
  while (i < words.length) {
    const w = words[i];
    if (w === undefined) return words.slice(i);
    if (w === "--") {
      i++;
      continue;
    }
    if (w.startsWith("-") && w.length > 1) {
      i += spec.values.includes(w) ? 2 : 1;
      continue;
    }
    if (spec.assignments && /^[A-Za-z_][A-Za-z0-9_]*=/.test(w)) {
      i++;
      continue;
    }
    if (positional > 0) {
      positional--;
      i++;
      continue;
    }
    break;
  }
  return words.slice(i);
}

/** The script of `sh -c SCRIPT …` when it is static text. */
function shellScript(words: Array<string | undefined>): string | undefined {
  for (let i = 0; i < words.length; i++) {
    const w = words[i];
    if (w === undefined || !w.startsWith("-")) return undefined;
    if (/^-[a-zA-Z]*c[a-zA-Z]*$/.test(w)) return words[i + 1];
  }
  return undefined;
}

function joinStatic(words: Array<string | undefined>): string | undefined {
  return words.some((w) => w === undefined) ? undefined : words.join(" ");
}
