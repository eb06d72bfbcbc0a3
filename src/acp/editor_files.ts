/**
 * The editor's files (ACP `fs/read_text_file`, `fs/write_text_file`), used by read, edit and write
 * only after the sandbox's own check: a read runs in the sandbox first (grants, deny lists, real
 * path, in the tool host) and only a text page it could read is read again from the editor's
 * buffer; an edit or a write goes to the editor only when the policy allowed the call (protected
 * paths, grants, the approval) for the very real path it resolves to when it runs. Anything else
 * runs as without an editor, on the disk, in the sandbox. The same tool code runs either way, over
 * a file system that reaches the editor for exactly the checked paths and nothing else.
 */
import type { ToolCallGate } from "../agent/hooks.ts";
import { isWithin } from "../policy/mod.ts";
import type { Engine } from "../cli/engine.ts";
import type { AnyTool, ToolLocation, ToolOutput } from "../agent/tool.ts";
import {
  createEditTool,
  createReadTool,
  createWriteTool,
  type FileHandle,
  FsError,
  type FsOps,
  readHandleFully,
} from "../tools/mod.ts";

/** What the editor offers (each one only when the client declared the capability). */
export interface EditorFiles {
  /** The file's text as the editor has it (unsaved changes included). */
  readTextFile?(path: string): Promise<string>;
  /** Replaces the file's text in the editor (which keeps it in its undo history). */
  writeTextFile?(path: string, content: string): Promise<void>;
}

/** The tools the editor's files serve. */
const EDITOR_TOOLS = new Set(["read", "edit", "write"]);

/** Calls the policy allowed, by id: the arguments and the locations they were checked for. */
export type CheckedCalls = Map<string, { args: unknown; locations: string }>;

async function locationsOf(tool: AnyTool, args: unknown): Promise<string | undefined> {
  try {
    return JSON.stringify(await (tool.locations?.(args) ?? []));
  } catch {
    return undefined;
  }
}

/**
 * `gate` recording the edits and writes it allowed as they were (same arguments, and the same
 * real locations before and after the check); a rewritten call is not recorded (it runs on disk).
 */
export function recordChecked(gate: ToolCallGate, checked: CheckedCalls): ToolCallGate {
  return async (call) => {
    if (!EDITOR_TOOLS.has(call.name)) return await gate(call);
    const before = await locationsOf(call.tool, call.args);
    const verdict = await gate(call);
    if (verdict !== undefined || before === undefined) return verdict;
    if (await locationsOf(call.tool, call.args) === before) {
      checked.set(call.toolCallId, { args: call.args, locations: before });
    }
    return verdict;
  };
}

/** The paths the editor may be asked about for one call. */
interface Reach {
  read: ReadonlySet<string>;
  write: ReadonlySet<string>;
}

function notReached(path: string): FsError {
  return new FsError("not_granted", path, `"${path}" was not checked for this call`);
}

/** A file system that is the editor's files at the checked paths and refuses everything else. */
export function editorFs(
  files: EditorFiles,
  reach: Reach,
  exists: (path: string) => Promise<boolean>,
): FsOps {
  const refuse = (path: string): Promise<never> => Promise.reject(notReached(path));
  const openFile = async (path: string): Promise<FileHandle> => {
    if (files.readTextFile === undefined || !reach.read.has(path)) throw notReached(path);
    let text: string;
    try {
      text = await files.readTextFile(path);
    } catch (e) {
      const detail = e instanceof Error ? e.message : String(e);
      throw new FsError("io", path, `the editor could not read "${path}": ${detail}`);
    }
    const bytes = new TextEncoder().encode(text);
    let at = 0;
    return {
      path,
      info: {
        isFile: true,
        isDirectory: false,
        isSymlink: false,
        size: bytes.length,
        mode: null,
        dev: null,
        ino: null,
      },
      read(into) {
        if (at >= bytes.length) return Promise.resolve(null);
        const n = Math.min(into.length, bytes.length - at);
        into.set(bytes.subarray(at, at + n));
        at += n;
        return Promise.resolve(n);
      },
      close() {},
    };
  };
  // The checked paths are real, and so are their directories.
  const known = (path: string) => [...reach.read, ...reach.write].some((p) => isWithin(p, path));
  return {
    realPath: (path) => known(path) ? Promise.resolve(path) : refuse(path),
    lstat: refuse,
    stat: refuse,
    readDir: (path) => ({
      [Symbol.asyncIterator]: () => ({ next: () => refuse(path) }),
    }),
    openFile,
    async readFile(path, options) {
      const handle = await openFile(path);
      return await readHandleFully(handle, path, options?.maxBytes);
    },
    async writeFile(path, data) {
      if (files.writeTextFile === undefined || !reach.write.has(path)) throw notReached(path);
      const created = !(await exists(path));
      try {
        await files.writeTextFile(path, new TextDecoder().decode(data));
      } catch (e) {
        const detail = e instanceof Error ? e.message : String(e);
        throw new FsError("io", path, `the editor could not write "${path}": ${detail}`);
      }
      return { path, created };
    },
  };
}

/** What the wrapped tools need besides the editor. */
export interface EditorToolOptions {
  files: EditorFiles;
  /** The workspace (real path), which the tools' messages show paths relative to. */
  cwd: string;
  checked: CheckedCalls;
  /** Whether a path exists on disk (a write through the editor says whether it created it). */
  exists(path: string): Promise<boolean>;
}

/** The real path a single-path tool resolved to, and its locations. */
function pathOf(locations: ToolLocation[]): string | undefined {
  const paths = new Set(locations.map((l) => "path" in l ? l.path : ""));
  const [path] = paths;
  return paths.size === 1 && path !== "" ? path : undefined;
}

/** `tools` with read, edit and write going through the editor where it offers its files. */
export function withEditorFiles(tools: AnyTool[], options: EditorToolOptions): AnyTool[] {
  const { files } = options;
  return tools.map((tool): AnyTool => {
    if (tool.name === "read" && files.readTextFile !== undefined) {
      return { ...tool, execute: (args, signal, ctx) => readThrough(tool, args, signal, ctx) };
    }
    const edits = tool.name === "edit" && files.readTextFile !== undefined;
    if ((edits || tool.name === "write") && files.writeTextFile !== undefined) {
      return { ...tool, execute: (args, signal, ctx) => writeThrough(tool, args, signal, ctx) };
    }
    return tool;
  });

  /** The sandbox's read first; a text page it read comes again from the editor's buffer. */
  async function readThrough(
    tool: AnyTool,
    args: { path: string; offset?: number; limit?: number },
    signal: AbortSignal,
    ctx: Parameters<AnyTool["execute"]>[2],
  ): Promise<ToolOutput> {
    // The check: the sandbox reads the file's first line (the buffer may have more lines).
    const check = await tool.execute({ path: args.path, limit: 1 }, signal, ctx);
    const details = check.details as Record<string, unknown> | undefined;
    const text = typeof details?.startLine === "number" || details?.totalLines === 0;
    const disk = () => tool.execute(args, signal, ctx);
    if (check.isError || !text || typeof details?.path !== "string") return await disk();
    // The file the sandbox read is where the path leads now: else the disk's answer stands.
    const located = JSON.parse(await locationsOf(tool, args) ?? "[]") as ToolLocation[];
    const real = pathOf(located);
    if (real !== details.path) return await disk();
    const reach = { read: new Set([real]), write: new Set<string>() };
    const read = createReadTool({ cwd: options.cwd, fs: editorFs(files, reach, options.exists) });
    const buffer = await read.execute({ ...args, path: real }, signal, ctx);
    // The editor failed to answer: the sandbox's read of the disk is the answer.
    return buffer.isError ? await disk() : buffer;
  }

  /** An edit or a write the policy allowed, for the path it checked, made in the editor. */
  async function writeThrough(
    tool: AnyTool,
    args: { path: string },
    signal: AbortSignal,
    ctx: Parameters<AnyTool["execute"]>[2],
  ): Promise<ToolOutput> {
    const checked = options.checked.get(ctx.toolCallId);
    options.checked.delete(ctx.toolCallId);
    const now = await locationsOf(tool, args);
    if (
      checked === undefined || JSON.stringify(checked.args) !== JSON.stringify(args) ||
      now !== checked.locations
    ) {
      return await tool.execute(args, signal, ctx);
    }
    const located = JSON.parse(now) as ToolLocation[];
    const real = pathOf(located);
    if (real === undefined) return await tool.execute(args, signal, ctx);
    const at = (access: string) => new Set(located.some((l) => l.access === access) ? [real] : []);
    const reach = { read: at("read"), write: at("write") };
    const fs = editorFs(files, reach, options.exists);
    const local: AnyTool = tool.name === "edit"
      ? createEditTool({ cwd: options.cwd, fs })
      : createWriteTool({ cwd: options.cwd, fs });
    return await local.execute({ ...args, path: real }, signal, ctx);
  }
}

/** The engine's read, edit and write through the editor's files, when it offers them. */
export function throughEditor(
  engine: Pick<Engine, "tools">,
  options: EditorToolOptions,
): void {
  const { files } = options;
  if (files.readTextFile === undefined && files.writeTextFile === undefined) return;
  const sandboxed = Object.getOwnPropertyDescriptor(engine, "tools");
  const current = (): AnyTool[] => sandboxed?.get?.call(engine) ?? sandboxed?.value ?? [];
  const wrapped = new WeakMap<AnyTool, AnyTool>();
  Object.defineProperty(engine, "tools", {
    get: () =>
      current().map((tool) => {
        let through = wrapped.get(tool);
        if (through === undefined) {
          through = withEditorFiles([tool], options)[0] as AnyTool;
          wrapped.set(tool, through);
        }
        return through;
      }),
  });
}
