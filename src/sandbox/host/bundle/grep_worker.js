var __create = Object.create;
var __defProp = Object.defineProperty;
var __getOwnPropDesc = Object.getOwnPropertyDescriptor;
var __getOwnPropNames = Object.getOwnPropertyNames;
var __getProtoOf = Object.getPrototypeOf;
var __hasOwnProp = Object.prototype.hasOwnProperty;
var __commonJS = (cb, mod) => function __require() {
  return mod || (0, cb[__getOwnPropNames(cb)[0]])((mod = { exports: {} }).exports, mod), mod.exports;
};
var __copyProps = (to, from, except, desc) => {
  if (from && typeof from === "object" || typeof from === "function") {
    for (let key of __getOwnPropNames(from))
      if (!__hasOwnProp.call(to, key) && key !== except)
        __defProp(to, key, { get: () => from[key], enumerable: !(desc = __getOwnPropDesc(from, key)) || desc.enumerable });
  }
  return to;
};
var __toESM = (mod, isNodeMode, target) => (target = mod != null ? __create(__getProtoOf(mod)) : {}, __copyProps(
  // If the importer is in node compatibility mode or this is not an ESM
  // file that has been converted to a CommonJS file using a Babel-
  // compatible transform (i.e. "__esModule" has not been set), then set
  // "default" to the CommonJS "module.exports" for node compatibility.
  1 ? __defProp(target, "default", { value: mod, enumerable: true }) : target,
  mod
));

// npm:damerau-levenshtein/1.0.8/index.js
var require__ = __commonJS({
  "npm:damerau-levenshtein/1.0.8/index.js"(exports, module) {
    module.exports = function(__this, that, limit) {
      var thisLength = __this.length, thatLength = that.length, matrix = [];
      limit = (limit || (thatLength > thisLength ? thatLength : thisLength)) + 1;
      for (var i = 0; i < limit; i++) {
        matrix[i] = [
          i
        ];
        matrix[i].length = limit;
      }
      for (i = 0; i < limit; i++) {
        matrix[0][i] = i;
      }
      if (Math.abs(thisLength - thatLength) > (limit || 100)) {
        return prepare(limit || 100);
      }
      if (thisLength === 0) {
        return prepare(thatLength);
      }
      if (thatLength === 0) {
        return prepare(thisLength);
      }
      var j, this_i, that_j, cost, min, t;
      for (i = 1; i <= thisLength; ++i) {
        this_i = __this[i - 1];
        for (j = 1; j <= thatLength; ++j) {
          if (i === j && matrix[i][j] > 4) return prepare(thisLength);
          that_j = that[j - 1];
          cost = this_i === that_j ? 0 : 1;
          min = matrix[i - 1][j] + 1;
          if ((t = matrix[i][j - 1] + 1) < min) min = t;
          if ((t = matrix[i - 1][j - 1] + cost) < min) min = t;
          matrix[i][j] = i > 1 && j > 1 && this_i === that[j - 2] && __this[i - 2] === that_j && (t = matrix[i - 2][j - 2] + cost) < min ? t : min;
        }
      }
      return prepare(matrix[thisLength][thatLength]);
      function prepare(steps) {
        var length = Math.max(thisLength, thatLength);
        var relative4 = length === 0 ? 0 : steps / length;
        var similarity = 1 - relative4;
        return {
          steps,
          relative: relative4,
          similarity
        };
      }
    };
  }
});

// src/tools/ops.ts
var FsError = class extends Error {
  /** What went wrong. */
  code;
  /** The path the operation was about (as given to the operation). */
  path;
  constructor(code, path, message, options = {}) {
    super(message, options.cause === void 0 ? void 0 : {
      cause: options.cause
    });
    this.name = "FsError";
    this.code = code;
    this.path = path;
  }
};
async function readHandleFully(handle, path, maxBytes = Number.POSITIVE_INFINITY) {
  const tooLarge = () => new FsError("too_large", path, `"${path}" is larger than ${maxBytes} bytes`);
  if (handle.info.size > maxBytes) throw tooLarge();
  const chunks = [];
  let total = 0;
  for (; ; ) {
    const buf = new Uint8Array(64 * 1024);
    const n = await handle.read(buf);
    if (n === null) break;
    total += n;
    if (total > maxBytes) throw tooLarge();
    chunks.push(buf.subarray(0, n));
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

// src/sys/fs_common.ts
function toFsError(e, path) {
  if (e instanceof FsError) return e;
  if (e instanceof Deno.errors.NotFound) {
    return new FsError("not_found", path, `No such file or directory: "${path}"`, {
      cause: e
    });
  }
  if (e instanceof Deno.errors.NotADirectory) {
    return new FsError("not_a_directory", path, `A parent of "${path}" is not a directory`, {
      cause: e
    });
  }
  if (e instanceof Deno.errors.IsADirectory) {
    return new FsError("is_a_directory", path, `"${path}" is a directory`, {
      cause: e
    });
  }
  if (e instanceof Deno.errors.NotCapable) {
    return new FsError("not_granted", path, `Access to "${path}" is not granted`, {
      cause: e
    });
  }
  if (e instanceof Deno.errors.PermissionDenied) {
    return new FsError("permission_denied", path, `Permission denied: "${path}"`, {
      cause: e
    });
  }
  if (e instanceof Deno.errors.FilesystemLoop) {
    return new FsError("not_found", path, `Too many levels of symlinks: "${path}"`, {
      cause: e
    });
  }
  if (e instanceof Error) {
    return new FsError("io", path, `Filesystem error on "${path}": ${e.message}`, {
      cause: e
    });
  }
  throw e;
}
function toInfo(info) {
  return {
    isFile: info.isFile,
    isDirectory: info.isDirectory,
    isSymlink: info.isSymlink,
    size: info.size,
    mode: info.mode === null ? null : info.mode & 4095,
    dev: info.dev ?? null,
    ino: info.ino ?? null,
    mtime: info.mtime?.getTime() ?? null
  };
}
function checkOpenedIdentity(handle, atPath, path) {
  const sameIdentity = handle.dev === null || handle.ino === null ? true : handle.dev === atPath.dev && handle.ino === atPath.ino;
  if (atPath.isSymlink || !atPath.isFile || !handle.isFile || !sameIdentity) throw raced(path);
}
function raced(path) {
  return new FsError("changed", path, `"${path}" changed while being opened (possible symlink race)`);
}
async function lstatOrNull(path) {
  try {
    return await Deno.lstat(path);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return null;
    throw toFsError(e, path);
  }
}

// src/sys/fs_write.ts
import { basename, dirname, join } from "node:path";
async function realLocation(path) {
  const missing = [];
  let current = path;
  for (; ; ) {
    try {
      const real = await Deno.realPath(current);
      return missing.length === 0 ? real : join(real, ...missing.reverse());
    } catch (e) {
      if (e instanceof Deno.errors.NotCapable) return path;
      if (!(e instanceof Deno.errors.NotFound)) throw toFsError(e, path);
      const parent = dirname(current);
      if (parent === current) throw toFsError(e, path);
      missing.push(basename(current));
      current = parent;
    }
  }
}
function tempName(target) {
  const rand = crypto.getRandomValues(new Uint32Array(2)).join("");
  return join(dirname(target), `.${basename(target)}.${rand}.moat-tmp`);
}
async function writeAll(file, data) {
  let offset = 0;
  while (offset < data.length) offset += await file.write(data.subarray(offset));
}
async function writeInPlace(target, data, exists) {
  let file;
  try {
    file = await Deno.open(target, {
      write: true,
      create: !exists,
      createNew: !exists
    });
  } catch (e) {
    throw toFsError(e, target);
  }
  try {
    const after = await lstatOrNull(target);
    if (after === null) throw new FsError("changed", target, `"${target}" vanished`);
    checkOpenedIdentity(toInfo(await file.stat()), toInfo(after), target);
    if (await Deno.realPath(target) !== target) {
      if (!exists) await Deno.remove(target).catch(() => {
      });
      throw new FsError("changed", target, `"${target}" changed while being opened`);
    }
    await file.truncate(0);
    await writeAll(file, data);
  } catch (e) {
    throw toFsError(e, target);
  } finally {
    file.close();
  }
}
async function writeBlind(target, data, opts) {
  if (opts.createParents) await Deno.mkdir(dirname(target), {
    recursive: true
  }).catch(() => {
  });
  try {
    const file2 = await Deno.open(target, {
      write: true,
      createNew: true,
      mode: 438
    });
    try {
      await writeAll(file2, data);
    } finally {
      file2.close();
    }
    return {
      path: target,
      created: true
    };
  } catch (e) {
    if (!(e instanceof Deno.errors.AlreadyExists)) throw toFsError(e, target);
  }
  const file = await Deno.open(target, {
    write: true,
    truncate: true
  }).catch((err) => {
    throw toFsError(err, target);
  });
  try {
    await writeAll(file, data);
  } finally {
    file.close();
  }
  return {
    path: target,
    created: false
  };
}
async function writeFileAtomic(path, data, opts = {}) {
  const target = await realLocation(path);
  const dir = dirname(target);
  let existing;
  try {
    existing = await Deno.lstat(target);
  } catch (e) {
    if (e instanceof Deno.errors.NotCapable) return await writeBlind(target, data, opts);
    if (!(e instanceof Deno.errors.NotFound)) throw toFsError(e, path);
    existing = null;
  }
  if (existing?.isDirectory) {
    throw new FsError("is_a_directory", path, `"${path}" is a directory`);
  }
  if (existing && !existing.isFile && !existing.isSymlink) {
    throw new FsError("not_a_file", path, `"${path}" is not a regular file`);
  }
  const exists = existing?.isFile === true;
  const mode = existing !== null && exists && existing.mode !== null ? existing.mode & 4095 : null;
  if (opts.createParents) {
    try {
      await Deno.mkdir(dir, {
        recursive: true
      });
    } catch (e) {
      if (!(e instanceof Deno.errors.NotCapable)) throw toFsError(e, path);
    }
  }
  const temp = tempName(target);
  try {
    await Deno.writeFile(temp, data, {
      createNew: true,
      mode: mode ?? 438
    });
  } catch (e) {
    if (e instanceof Deno.errors.NotCapable && (exists || existing === null)) {
      await writeInPlace(target, data, exists);
      return {
        path: target,
        created: !exists
      };
    }
    if (e instanceof Deno.errors.NotFound) {
      throw new FsError("not_found", path, `Parent directory of "${path}" does not exist`, {
        cause: e
      });
    }
    throw toFsError(e, path);
  }
  try {
    if (mode !== null) await Deno.chmod(temp, mode);
    if (await Deno.realPath(dir) !== dir) {
      throw new FsError("changed", path, `"${dirname(path)}" changed while writing`);
    }
    await Deno.rename(temp, target);
  } catch (e) {
    await Deno.remove(temp).catch(() => {
    });
    throw toFsError(e, path);
  }
  return {
    path: target,
    created: !exists
  };
}

// src/sys/fs.ts
async function realPathOrNull(path) {
  try {
    return await Deno.realPath(path);
  } catch {
    return null;
  }
}
function realPathSyncOrNull(path) {
  try {
    return Deno.realPathSync(path);
  } catch {
    return null;
  }
}
function lstatSyncOrNull(path) {
  try {
    return Deno.lstatSync(path);
  } catch {
    return null;
  }
}
function createDenoFsOps(options = {}) {
  async function openVerified(path) {
    let real;
    try {
      real = await Deno.realPath(path);
    } catch (e) {
      throw toFsError(e, path);
    }
    const before = await lstatOrNull(real);
    if (before === null) throw new FsError("not_found", path, `No such file: "${path}"`);
    if (before.isDirectory) throw new FsError("is_a_directory", path, `"${path}" is a directory`);
    if (!before.isFile) throw new FsError("not_a_file", path, `"${path}" is not a regular file`);
    if (options.beforeOpen) await options.beforeOpen(real);
    let file;
    try {
      file = await Deno.open(real, {
        read: true
      });
    } catch (e) {
      throw toFsError(e, path);
    }
    let info;
    try {
      if (options.afterOpen) await options.afterOpen(real);
      info = toInfo(await file.stat());
      const after = await lstatOrNull(real);
      if (after === null) {
        throw new FsError("changed", path, `"${path}" changed while being opened (it vanished)`);
      }
      checkOpenedIdentity(info, toInfo(after), path);
      if (options.recheckRealPath && await realPathOrNull(real) !== real) throw raced(path);
    } catch (e) {
      file.close();
      throw toFsError(e, path);
    }
    let closed = false;
    return {
      path: real,
      info,
      async read(into) {
        try {
          return await file.read(into);
        } catch (e) {
          throw toFsError(e, path);
        }
      },
      close() {
        if (closed) return;
        closed = true;
        file.close();
      }
    };
  }
  function openWalkedConfined(path) {
    let file;
    try {
      file = Deno.openSync(path, {
        read: true
      });
    } catch (e) {
      throw toFsError(e, path);
    }
    return syncHandle(file, path, null);
  }
  function openWalkedSync(path) {
    let before;
    try {
      before = Deno.lstatSync(path);
    } catch (e) {
      throw toFsError(e, path);
    }
    if (before.isDirectory) throw new FsError("is_a_directory", path, `"${path}" is a directory`);
    if (!before.isFile) throw new FsError("not_a_file", path, `"${path}" is not a regular file`);
    options.beforeWalkedOpen?.(path);
    let file;
    try {
      file = Deno.openSync(path, {
        read: true
      });
    } catch (e) {
      throw toFsError(e, path);
    }
    let info;
    try {
      info = toInfo(file.statSync());
      checkOpenedIdentity(info, toInfo(before), path);
      if (options.recheckRealPath) {
        if (realPathSyncOrNull(path) !== path) throw raced(path);
        const after = lstatSyncOrNull(path);
        if (after === null) throw raced(path);
        checkOpenedIdentity(info, toInfo(after), path);
      }
    } catch (e) {
      file.close();
      throw toFsError(e, path);
    }
    return syncHandle(file, path, info);
  }
  function syncHandle(file, path, known) {
    let info = known;
    let closed = false;
    return {
      get info() {
        if (info === null) {
          try {
            info = toInfo(file.statSync());
          } catch (e) {
            throw toFsError(e, path);
          }
        }
        return info;
      },
      readSync(into) {
        try {
          return file.readSync(into);
        } catch (e) {
          throw toFsError(e, path);
        }
      },
      close() {
        if (closed) return;
        closed = true;
        file.close();
      }
    };
  }
  return {
    async realPath(path) {
      try {
        return await Deno.realPath(path);
      } catch (e) {
        throw toFsError(e, path);
      }
    },
    async lstat(path) {
      try {
        return toInfo(await Deno.lstat(path));
      } catch (e) {
        throw toFsError(e, path);
      }
    },
    async readLink(path) {
      try {
        return await Deno.readLink(path);
      } catch (e) {
        throw toFsError(e, path);
      }
    },
    async stat(path) {
      try {
        return toInfo(await Deno.stat(path));
      } catch (e) {
        throw toFsError(e, path);
      }
    },
    async *readDir(path) {
      try {
        for await (const entry of Deno.readDir(path)) {
          yield {
            name: entry.name,
            isFile: entry.isFile,
            isDirectory: entry.isDirectory,
            isSymlink: entry.isSymlink
          };
        }
      } catch (e) {
        throw toFsError(e, path);
      }
    },
    readDirSync(path) {
      try {
        return Array.from(Deno.readDirSync(path));
      } catch (e) {
        throw toFsError(e, path);
      }
    },
    openFile: openVerified,
    // The re-check wins should both be set: skipping it must never happen by mistake.
    openWalkedFileSync: options.confined && !options.recheckRealPath ? openWalkedConfined : openWalkedSync,
    async readFile(path, opts = {}) {
      const handle = await openVerified(path);
      try {
        return await readHandleFully(handle, path, opts.maxBytes);
      } finally {
        handle.close();
      }
    },
    writeFile: writeFileAtomic,
    homeDir() {
      try {
        return Deno.env.get("HOME");
      } catch (e) {
        if (e instanceof Deno.errors.NotCapable || e instanceof Deno.errors.PermissionDenied) {
          return void 0;
        }
        throw e;
      }
    }
  };
}

// src/tools/grep/pattern.ts
var SPACE_NO_LF = "\\t\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff";
function lineBoundSource(source) {
  if (/[\x00-\x1f]/.test(source)) return null;
  let out = "";
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === "\\") {
      const next = source[++i] ?? "";
      if (next === "d" || next === "w" || next === "S" || next === "B") {
        out += `\\${next}`;
      } else if (!inClass && (next === "b" || next === "t" || next === "r" || next === "v" || next === "f")) {
        out += `\\${next}`;
      } else if (!inClass && next === "s") {
        out += `[${SPACE_NO_LF}]`;
      } else if (!inClass && (next === "W" || next === "D")) {
        out += `[^\\${next.toLowerCase()}\\n]`;
      } else if (!inClass && next === "x" && /^[0-9A-Fa-f]{2}$/.test(source.slice(i + 1, i + 3))) {
        const hex = source.slice(i + 1, i + 3);
        if (hex.toLowerCase() === "0a") return null;
        out += `\\x${hex}`;
        i += 2;
      } else if (/^[^0-9A-Za-z]$/.test(next)) {
        out += `\\${next}`;
      } else {
        return null;
      }
    } else if (inClass) {
      out += c;
      if (c === "]") inClass = false;
    } else if (c === "[") {
      inClass = true;
      if (source[i + 1] === "^") {
        out += "[^\\n";
        i++;
      } else {
        out += c;
      }
    } else {
      out += c;
    }
  }
  return out;
}
function candidateFinder(source, ignoreCase) {
  if (/\(\?<?[=!]/.test(source)) return null;
  const bounded = lineBoundSource(source);
  if (bounded === null) return null;
  try {
    return new RegExp(bounded, ignoreCase ? "gim" : "gm");
  } catch (e) {
    if (e instanceof SyntaxError) return null;
    throw e;
  }
}
function compileSearch(spec) {
  const source = spec.literal ? RegExp.escape(spec.pattern) : spec.pattern;
  const line = new RegExp(source, spec.ignoreCase ? "i" : "");
  const needle = searchNeedle(spec);
  return {
    line,
    finder: needle === null ? candidateFinder(source, spec.ignoreCase) : null,
    needle,
    context: spec.context
  };
}
var MIN_REGEX_NEEDLE = 3;
function searchNeedle(spec) {
  if (spec.ignoreCase) return null;
  let text = spec.pattern;
  if (!spec.literal) {
    const required = requiredLiteral(spec.pattern);
    if (required === null || required.length < MIN_REGEX_NEEDLE) return null;
    text = required;
  }
  if (text === "" || text.includes("\n")) return null;
  return {
    text,
    rare: rarestIndex(text)
  };
}
var BY_FREQUENCY = ` etaoinsrlhdcupmfgywbvkxjqz	.,()=;"'/:-_{}0123456789[]<>*#+!&|ETASRINOLCDPMFUBGHWVYKXJQZ`;
function rarestIndex(text) {
  let best = 0;
  let bestRank = Infinity;
  for (let i = 0; i < text.length; i++) {
    const at = BY_FREQUENCY.indexOf(text[i]);
    const rank = at === -1 ? -1 : BY_FREQUENCY.length - at;
    if (rank < bestRank) {
      best = i;
      bestRank = rank;
    }
  }
  return best;
}
function escapeTail(source, i) {
  const c = source[i];
  const rest = source.slice(i + 1);
  if ("dDwWsSbBnrtvf".includes(c)) return 0;
  if (c === "x") return /^[0-9A-Fa-f]{2}/.test(rest) ? 2 : 0;
  if (c === "u") {
    if (/^[0-9A-Fa-f]{4}/.test(rest)) return 4;
    const braced = /^\{[0-9A-Fa-f]+\}/.exec(rest);
    return braced === null ? 0 : braced[0].length;
  }
  if (c === "c") return /^[A-Za-z]/.test(rest) ? 1 : 0;
  if (c === "k" || c === "p" || c === "P") {
    const named = /^(<[^>]*>|\{[^}]*\})/.exec(rest);
    return named === null ? 0 : named[0].length;
  }
  if (/[0-9]/.test(c)) return /^[0-9]*/.exec(rest)[0].length;
  return null;
}
function requiredLiteral(source) {
  let best = "";
  let run = "";
  let depth = 0;
  const close = (quantified) => {
    const r = quantified ? run.slice(0, -1) : run;
    if (r.length > best.length) best = r;
    run = "";
  };
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === "\\") {
      const next = source[++i];
      if (next === void 0) return null;
      if (/[^0-9A-Za-z]/.test(next)) {
        if (depth === 0) run += next;
        continue;
      }
      const tail = escapeTail(source, i);
      if (tail === null) return null;
      i += tail;
      close(false);
    } else if (c === "[") {
      close(false);
      let j = i + 1;
      if (source[j] === "^") j++;
      while (j < source.length && source[j] !== "]") j += source[j] === "\\" ? 2 : 1;
      if (j >= source.length) return null;
      i = j;
    } else if (c === "(") {
      close(false);
      depth++;
    } else if (c === ")") {
      depth--;
    } else if (c === "|") {
      if (depth === 0) return null;
    } else if (depth > 0) {
      continue;
    } else if (c === "*" || c === "+" || c === "?") {
      close(true);
    } else if (c === "{") {
      const quantifier = /^\{[0-9]+(,[0-9]*)?\}/.exec(source.slice(i));
      close(quantifier !== null);
      if (quantifier !== null) i += quantifier[0].length - 1;
    } else if (c === "." || c === "^" || c === "$") {
      close(false);
    } else {
      run += c;
    }
  }
  close(false);
  return best === "" ? null : best;
}

// src/tools/lines.ts
var CHUNK = 64 * 1024;
var BINARY_SNIFF_BYTES = 8192;
function looksBinary(prefix) {
  return prefix.subarray(0, BINARY_SNIFF_BYTES).includes(0);
}

// src/tools/truncate.ts
var encoder = new TextEncoder();
function markCutLine(kept, fullLength) {
  return `${kept}\u2026 [line truncated, ${fullLength} characters in full]`;
}

// src/tools/grep/_text.ts
function nextLongLine(text, from, maxChars) {
  const len = text.length;
  let start = from;
  while (start < len) {
    const nl = text.indexOf("\n", start);
    const end = nl === -1 ? len : nl;
    const length = end - start - (end > start && text.charCodeAt(end - 1) === 13 ? 1 : 0);
    if (length > maxChars) return start;
    start = end + 1;
  }
  return len;
}
function detach(text) {
  if (text.length < 16) return text;
  const joined = ` ${text}`;
  joined.charCodeAt(1);
  return joined.slice(1);
}
function findNeedle(text, from, needle, rare) {
  if (rare === 0) return text.indexOf(needle, from);
  const c = needle[rare];
  for (let i = text.indexOf(c, from + rare); i !== -1; i = text.indexOf(c, i + 1)) {
    if (text.startsWith(needle, i - rare)) return i - rare;
  }
  return -1;
}
function candidateSearch(finder, needle) {
  if (needle !== null) {
    const { text, rare } = needle;
    return (block, from) => findNeedle(block, from, text, rare);
  }
  if (finder === null) return null;
  return (block, from) => {
    finder.lastIndex = from;
    const m = finder.exec(block);
    return m === null ? -1 : m.index;
  };
}

// src/tools/grep/line_matcher.ts
var LineMatcher = class {
  /** Rows found so far, in file order. */
  rows = [];
  /** Matching lines found so far. */
  matches = 0;
  #o;
  /** Start of the next candidate at or after `from` in a block, or -1; null: test every line. */
  #find;
  #carryLimit;
  // The first block is decoded with BOM removal (a file's BOM is not text); later ones keep it.
  #firstDecoder = new TextDecoder();
  #decoder = new TextDecoder("utf-8", {
    ignoreBOM: true
  });
  #decodedAny = false;
  #carry = [];
  #carryBytes = 0;
  #long = null;
  /** Number of the first line not yet processed, once `#settle()` has run. */
  #lineNo = 1;
  /** A processed block whose remaining LFs are not counted yet (often never needed). */
  #uncounted = null;
  #uncountedFrom = 0;
  #lastRow = 0;
  #after = 0;
  #done = false;
  /** The last `context` lines of earlier blocks, for before-context across chunk boundaries. */
  #kept = [];
  constructor(options) {
    this.#o = options;
    this.#find = candidateSearch(options.finder, options.needle ?? null);
    this.#carryLimit = options.maxChars * 4 + 4;
  }
  /** True once more input cannot change the rows (the cap and its after-context are reached). */
  get done() {
    return this.#done;
  }
  /**
   * Adds the first chunk of a file (its first `BINARY_SNIFF_BYTES` bytes at least, or all of it)
   * unless the file looks binary (`looksBinary`): then nothing is added and this returns false.
   * The check mostly reuses the decoded text: only a NUL byte decodes to U+0000.
   */
  pushFirst(bytes) {
    const sniff = Math.min(bytes.length, BINARY_SNIFF_BYTES);
    const last = bytes.lastIndexOf(10);
    if (this.#decodedAny || this.#carryBytes > 0 || this.#long !== null || last + 1 < sniff) {
      if (looksBinary(bytes)) return false;
      this.push(bytes);
      return true;
    }
    const text = this.#decode(bytes.subarray(0, last + 1), false);
    if (text.indexOf("\0") !== -1 && looksBinary(bytes)) return false;
    this.#block(text, false);
    if (last + 1 < bytes.length) this.push(bytes.subarray(last + 1));
    return true;
  }
  /** Adds the next chunk of the file; `bytes` may be reused by the caller once this returns. */
  push(bytes) {
    let data = bytes;
    while (data.length > 0 && !this.#done) {
      if (this.#long !== null) {
        const nl = data.indexOf(10);
        this.#extendLong(nl === -1 ? data : data.subarray(0, nl));
        if (nl === -1) return;
        this.#finishLong();
        data = data.subarray(nl + 1);
        continue;
      }
      const last = data.lastIndexOf(10);
      if (last === -1) {
        this.#addCarry(data);
        return;
      }
      const block = data.subarray(0, last + 1);
      let text;
      if (this.#carryBytes === 0) {
        text = this.#decode(block, false);
      } else {
        let joined = "";
        for (const part of this.#carry) joined += this.#decode(part, true);
        text = joined + this.#decode(block, false);
        this.#carry = [];
        this.#carryBytes = 0;
      }
      this.#block(text, false);
      data = data.subarray(last + 1);
    }
  }
  /** Ends the input: the carried partial line, if any, is the file's last line. */
  end() {
    if (this.#done) return;
    if (this.#long !== null) {
      this.#finishLong();
      return;
    }
    if (this.#carryBytes === 0) return;
    let text = "";
    const parts = this.#carry;
    this.#carry = [];
    this.#carryBytes = 0;
    for (let i = 0; i < parts.length; i++) {
      text += this.#decode(parts[i], i < parts.length - 1);
    }
    this.#block(text, true);
  }
  #decode(bytes, stream) {
    const decoder = this.#decodedAny ? this.#decoder : this.#firstDecoder;
    const text = decoder.decode(bytes, {
      stream
    });
    if (!stream) this.#decodedAny = true;
    return text;
  }
  #addCarry(data) {
    this.#carry.push(data.slice());
    this.#carryBytes += data.length;
    if (this.#carryBytes <= this.#carryLimit) return;
    const parts = this.#carry;
    this.#carry = [];
    this.#carryBytes = 0;
    const decoder = this.#decodedAny ? new TextDecoder("utf-8", {
      ignoreBOM: true
    }) : new TextDecoder();
    this.#decodedAny = true;
    const long = {
      decoder,
      head: "",
      chars: 0,
      lastByte: -1
    };
    let room = this.#carryLimit;
    for (const part of parts) {
      const keep = Math.min(room, part.length);
      room -= keep;
      if (keep > 0) long.head += decoder.decode(part.subarray(0, keep), {
        stream: true
      });
    }
    long.chars = long.head.length;
    this.#long = long;
    room = this.#carryLimit;
    for (const part of parts) {
      const skip = Math.min(room, part.length);
      room -= skip;
      this.#extendLong(part.subarray(skip));
    }
  }
  #extendLong(bytes) {
    const long = this.#long;
    if (bytes.length === 0) return;
    long.chars += long.decoder.decode(bytes, {
      stream: true
    }).length;
    long.lastByte = bytes[bytes.length - 1];
  }
  #finishLong() {
    const long = this.#long;
    this.#long = null;
    long.chars += long.decoder.decode().length;
    const length = long.chars - (long.lastByte === 13 ? 1 : 0);
    const text = long.head.length > this.#o.maxChars ? long.head.slice(0, this.#o.maxChars) : long.head;
    this.#settle();
    const n = this.#lineNo++;
    const row = this.#line(text, length, n, null, 0);
    if (this.#o.context > 0) this.#keep([
      {
        line: n,
        text: row ?? this.#fmt(text, length)
      }
    ]);
  }
  /** Processes decoded complete lines (the last one may lack its LF only when `final`). */
  #block(text, final) {
    const o = this.#o;
    const len = text.length;
    const find = this.#find;
    let pos = 0;
    this.#settle();
    let n = this.#lineNo;
    const checkLong = find !== null && len > o.maxChars;
    let nextLong = -1;
    while (pos < len && !this.#done) {
      if (this.#after === 0) {
        if (this.matches >= o.cap) {
          this.#done = true;
          break;
        }
        if (find !== null) {
          const p = find(text, pos);
          let start = p === -1 ? len : p === 0 ? 0 : text.lastIndexOf("\n", p - 1) + 1;
          if (checkLong) {
            if (nextLong < pos) nextLong = nextLongLine(text, pos, o.maxChars);
            if (nextLong < start) start = nextLong;
          }
          if (start >= len) break;
          for (let i = text.indexOf("\n", pos); i !== -1 && i < start; i = text.indexOf("\n", i + 1)) {
            n++;
          }
          pos = start;
        }
      }
      const nl = text.indexOf("\n", pos);
      const end = nl === -1 ? len : nl;
      const raw = end > pos && text.charCodeAt(end - 1) === 13 ? text.slice(pos, end - 1) : text.slice(pos, end);
      const scanned = raw.length > o.maxChars ? raw.slice(0, o.maxChars) : raw;
      this.#line(scanned, raw.length, n, text, pos);
      pos = end + 1;
      n++;
    }
    if (final || this.#done) return;
    this.#lineNo = n;
    if (pos < len) {
      this.#uncounted = text;
      this.#uncountedFrom = pos;
    }
    if (o.context > 0) {
      this.#settle();
      this.#keepTail(text, this.#lineNo);
    }
  }
  /** Counts the lines of the last block that were skipped without a candidate. */
  #settle() {
    const text = this.#uncounted;
    if (text === null) return;
    this.#uncounted = null;
    let n = this.#lineNo;
    for (let i = text.indexOf("\n", this.#uncountedFrom); i !== -1; i = text.indexOf("\n", i + 1)) {
      n++;
    }
    this.#lineNo = n;
  }
  /**
   * Tests one line and records it as a match or after-context row; returns the row text when a
   * row was added. `text`/`start` locate the line in its block for before-context lookups.
   */
  #line(scanned, length, n, block, start) {
    const o = this.#o;
    const isMatch = this.matches < o.cap && o.line.test(scanned);
    if (isMatch) {
      const before = o.context > 0 ? this.#before(block, start, n) : [];
      const firstLine = before[0]?.line ?? n;
      if (o.context > 0 && this.#lastRow > 0 && firstLine > this.#lastRow + 1) {
        this.rows.push({
          kind: "sep"
        });
      }
      for (const b of before) this.rows.push({
        kind: "context",
        line: b.line,
        text: b.text
      });
      const row = this.#fmt(scanned, length);
      this.rows.push({
        kind: "match",
        line: n,
        text: row
      });
      this.matches++;
      this.#lastRow = n;
      this.#after = o.context;
      return row;
    }
    if (this.#after > 0) {
      const row = this.#fmt(scanned, length);
      this.rows.push({
        kind: "context",
        line: n,
        text: row
      });
      this.#lastRow = n;
      this.#after--;
      return row;
    }
    return null;
  }
  /** The before-context of line `n`: lines after the last row, at most `context` of them. */
  #before(block, start, n) {
    const first = Math.max(this.#lastRow + 1, n - this.#o.context, 1);
    const out = [];
    let ln = n - 1;
    if (block !== null) {
      let end = start - 1;
      while (ln >= first && end >= 0) {
        const s = end === 0 ? 0 : block.lastIndexOf("\n", end - 1) + 1;
        out.push({
          line: ln,
          text: this.#fmtSlice(block, s, end)
        });
        ln--;
        end = s - 1;
      }
    }
    for (let i = this.#kept.length - 1; i >= 0 && ln >= first; i--) {
      const k = this.#kept[i];
      if (k.line === ln) {
        out.push(k);
        ln--;
      }
    }
    return out.reverse();
  }
  /** Remembers the last `context` lines of a processed block (which ends with LF). */
  #keepTail(block, next) {
    const lines = [];
    let end = block.length - 1;
    let ln = next - 1;
    while (lines.length < this.#o.context && end >= 0 && ln > this.#lastRow) {
      const s = end === 0 ? 0 : block.lastIndexOf("\n", end - 1) + 1;
      lines.push({
        line: ln,
        text: this.#fmtSlice(block, s, end)
      });
      ln--;
      end = s - 1;
    }
    this.#keep(lines.reverse());
  }
  #keep(lines) {
    const all = lines.length >= this.#o.context ? lines : [
      ...this.#kept,
      ...lines
    ];
    this.#kept = all.slice(-this.#o.context);
  }
  #fmtSlice(block, start, end) {
    const raw = end > start && block.charCodeAt(end - 1) === 13 ? block.slice(start, end - 1) : block.slice(start, end);
    const scanned = raw.length > this.#o.maxChars ? raw.slice(0, this.#o.maxChars) : raw;
    return this.#fmt(scanned, raw.length);
  }
  #fmt(text, length) {
    return detach(this.#o.format(text, length));
  }
};

// src/tools/grep/scan.ts
var GREP_MAX_LINE_CHARS = 500;
var SCAN_LINE_CHARS = 256 * 1024;
function cut(text, fullLength) {
  if (fullLength <= GREP_MAX_LINE_CHARS) return text;
  return markCutLine(text.slice(0, GREP_MAX_LINE_CHARS), fullLength);
}
function newMatcher(input) {
  const { search, cap } = input;
  return new LineMatcher({
    line: search.line,
    finder: search.finder,
    needle: search.needle,
    context: search.context,
    cap,
    maxChars: SCAN_LINE_CHARS,
    format: cut
  });
}
function outcome(matcher, rel) {
  return matcher.matches === 0 ? null : {
    rel,
    rows: matcher.rows,
    matches: matcher.matches
  };
}
function scanChunksSync(read, buf, input) {
  let filled = 0;
  let eof = false;
  while (filled < BINARY_SNIFF_BYTES) {
    const n = read(buf.subarray(filled));
    if (n === null || n === 0) {
      eof = true;
      break;
    }
    filled += n;
  }
  const matcher = newMatcher(input);
  if (!matcher.pushFirst(buf.subarray(0, filled))) return "binary";
  while (!eof && !matcher.done) {
    const n = read(buf);
    if (n === null || n === 0) break;
    matcher.push(buf.subarray(0, n));
  }
  matcher.end();
  return outcome(matcher, input.rel);
}
function scanWalkedFileSync(path, input) {
  const { openSync, buf } = input;
  let handle;
  try {
    handle = openSync(path);
  } catch (e) {
    if (e instanceof FsError) return null;
    throw e;
  }
  try {
    return scanChunksSync((into) => handle.readSync(into), buf, input);
  } catch (e) {
    if (e instanceof FsError) return null;
    throw e;
  } finally {
    handle.close();
  }
}

// src/tools/grep/threads.ts
function serveScanThread(port, fs) {
  const openSync = fs.openWalkedFileSync?.bind(fs);
  let job = null;
  port.onmessage = (event) => {
    const msg = event.data;
    try {
      if (msg.type === "search") {
        job = {
          search: compileSearch(msg.spec),
          cap: msg.cap,
          buf: new Uint8Array(msg.chunkBytes)
        };
        return;
      }
      if (job === null) throw new Error("no search was set before the first batch");
      if (openSync === void 0) throw new Error("these file operations cannot scan here");
      const { search, cap, buf } = job;
      const outcomes = msg.paths.map((path) => {
        const r = scanWalkedFileSync(path, {
          openSync,
          buf,
          rel: "",
          search,
          cap
        });
        return r === null || r === "binary" ? r : {
          rows: r.rows,
          matches: r.matches
        };
      });
      port.postMessage({
        type: "batch",
        id: msg.id,
        outcomes
      });
    } catch (e) {
      port.postMessage({
        type: "failed",
        message: e instanceof Error ? e.message : String(e)
      });
    }
  };
}

// src/policy/grants.ts
import { basename as basename3, dirname as dirname3, isAbsolute as isAbsolute2, join as join3, resolve as resolve2 } from "node:path";

// src/policy/home.ts
import { isAbsolute, resolve } from "node:path";

// src/policy/_grant_typos.ts
var import_damerau_levenshtein = __toESM(require__());
import { basename as basename2, dirname as dirname2, join as join2 } from "node:path";

// src/policy/grant_hints.ts
import { isAbsolute as isAbsolute3, relative } from "node:path";
function flagWith(kind, grant, item, cwd) {
  const paths = kind === "read" || kind === "write";
  const shown = (p) => {
    if (!paths) return p;
    const rel = relative(cwd, p);
    return rel === "" ? "." : rel === ".." || rel.startsWith("../") || isAbsolute3(rel) ? p : rel;
  };
  if (grant.allowAll) return `-A --allow-${kind}=${shown(item)}`;
  const current = grant.current === true ? paths ? [
    "/"
  ] : [] : grant.current.map(shown);
  return `--allow-${kind}=${[
    .../* @__PURE__ */ new Set([
      ...current,
      shown(item)
    ])
  ].join(",")}`;
}

// src/policy/approve.ts
import { dirname as dirname4 } from "node:path";

// src/policy/protected.ts
import { basename as basename4, dirname as dirname6, isAbsolute as isAbsolute5, join as join5, resolve as resolve4 } from "node:path";

// src/policy/_git_config.ts
import { dirname as dirname5, isAbsolute as isAbsolute4, join as join4, resolve as resolve3 } from "node:path";
var MAX_CONFIG_BYTES = 1 << 20;

// src/policy/_run_later.ts
var AGENT = "whose hooks and MCP servers run outside the sandbox once the project is trusted";
var RUN_LATER = [
  {
    name: ".claude",
    why: "agent_config",
    sentence: `it holds Claude Code's settings, ${AGENT}`
  },
  {
    name: ".codex",
    why: "agent_config",
    sentence: `it holds Codex CLI's settings, ${AGENT}`
  },
  {
    name: ".agents",
    why: "agent_config",
    sentence: `it holds coding agents' settings, ${AGENT}`
  },
  {
    name: ".gemini",
    why: "agent_config",
    sentence: `it holds Gemini CLI's settings, ${AGENT}`
  },
  {
    name: ".qwen",
    why: "agent_config",
    sentence: `it holds Qwen Code's settings, ${AGENT}`
  },
  {
    name: ".cursor",
    why: "agent_config",
    sentence: `it holds Cursor's settings, ${AGENT}`
  },
  {
    name: "opencode.json",
    why: "agent_config",
    sentence: `it holds opencode's settings, ${AGENT}`
  },
  {
    name: "opencode.jsonc",
    why: "agent_config",
    sentence: `it holds opencode's settings, ${AGENT}`
  },
  {
    name: ".opencode",
    why: "agent_config",
    sentence: `it holds opencode's settings, ${AGENT}`
  },
  {
    name: ".pi",
    why: "agent_config",
    sentence: `it holds pi's settings, ${AGENT}`
  },
  {
    name: ".mcp.json",
    why: "mcp_config",
    sentence: "it names MCP servers that other coding agents start outside the sandbox"
  },
  {
    name: ".vscode",
    why: "editor_config",
    sentence: "VS Code runs its tasks (on folder open), terminal profiles and launch configurations outside the sandbox"
  },
  {
    name: ".idea",
    why: "editor_config",
    sentence: "JetBrains IDEs run its run configurations outside the sandbox"
  },
  {
    name: ".devcontainer",
    why: "editor_config",
    sentence: "dev container tools run its commands (postCreateCommand, \u2026) outside the sandbox"
  },
  {
    name: ".envrc",
    why: "direnv",
    sentence: "direnv runs it outside the sandbox on cd"
  },
  {
    name: ".gitmodules",
    why: "gitmodules",
    sentence: "it sets the URLs and update commands git uses for submodules outside the sandbox"
  }
];
var BY_NAME = new Map(RUN_LATER.map((entry) => [
  entry.name,
  entry
]));
function runLaterEntry(name) {
  return BY_NAME.get(name);
}

// src/policy/_within.ts
function isWithin(p, base) {
  if (base === "/") return true;
  return p === base || p.startsWith(base + "/");
}

// src/policy/protected.ts
var WHY = {
  hooks: "git runs it outside the sandbox",
  hooks_path: "it is the core.hooksPath directory, whose hooks git runs outside the sandbox",
  git_config: "it can make git run programs",
  git_file: "it chooses which git directory, and so which hooks, git uses",
  moat_project: "it holds moat's own project settings",
  moat_user: "it holds moat's own user settings",
  moat_state: "it holds moat's sessions and rewind checkpoints",
  git_global: "it is a global git configuration, which can make git run programs",
  moat_code: "it holds code moat runs outside the sandbox"
};
var GIT_PATTERN = /* @__PURE__ */ new Map([
  [
    "hooks",
    "hooks"
  ],
  [
    "config",
    "git_config"
  ],
  [
    "config.worktree",
    "git_config"
  ]
]);
var MODULE_DATA = /* @__PURE__ */ new Set([
  "refs",
  "logs",
  "objects",
  "info",
  "worktrees"
]);
function findProtection(protection, path) {
  const hits = protection.paths.filter((p) => isWithin(path, p.path)).map((p) => ({
    path: p.path,
    why: p.why
  }));
  const pattern = patternHit(protection.workspace, path);
  if (pattern !== void 0) hits.push(pattern);
  hits.sort((a, b) => a.path.length - b.path.length);
  return hits.find((hit) => !protection.named.some((named) => isWithin(named, hit.path) && isWithin(path, named)));
}
function patternHit(workspace, path) {
  const parts = path.split("/");
  const lower = parts.map((p) => p.toLowerCase());
  for (let i = 0; i + 1 < parts.length; i++) {
    if (lower[i] !== ".git") continue;
    const why = GIT_PATTERN.get(lower[i + 1]);
    if (why !== void 0) return {
      path: parts.slice(0, i + 2).join("/"),
      why
    };
    if (lower[i + 1] !== "modules") continue;
    for (let j = i + 2; j < parts.length; j++) {
      if (MODULE_DATA.has(lower[j])) break;
      const inModule = GIT_PATTERN.get(lower[j]);
      if (inModule !== void 0 && j > i + 2) {
        return {
          path: parts.slice(0, j + 1).join("/"),
          why: inModule
        };
      }
    }
  }
  const moat = join5(workspace, ".moat");
  return isWithin(path, moat) ? {
    path: moat,
    why: "moat_project"
  } : void 0;
}
function protectedDetail(protection, hit) {
  const why = hit.why in WHY ? WHY[hit.why] : runLaterEntry(basename4(hit.path))?.sentence ?? "it makes programs run outside the sandbox";
  return `"${hit.path}" is protected because ${why}; to allow it, add it to --allow-write (e.g. ${allowHint(protection, hit.path)})`;
}
function allowHint(protection, path) {
  const { allowAll, write } = protection.flags;
  return flagWith("write", {
    allowAll,
    current: write
  }, path, protection.workspace);
}

// src/policy/git_excludes.ts
import { dirname as dirname7, join as join6, relative as relative2, resolve as resolve5 } from "node:path";
var MAX_EXCLUDES_BYTES = 256 * 1024;
var MAX_CONFIG_BYTES2 = 1 << 20;

// src/tools/paths.ts
import { basename as basename5, dirname as dirname8, isAbsolute as isAbsolute6, join as join7, relative as relative3, resolve as resolve6, sep } from "node:path";
var MAX_LINK_HOPS = 40;
async function realLocation2(fs, absPath, options = {}) {
  const missing = [];
  let current = absPath;
  let hops = 0;
  for (; ; ) {
    try {
      const real = await fs.realPath(current);
      return missing.length === 0 ? real : join7(real, ...[
        ...missing
      ].reverse());
    } catch (e) {
      if (!(e instanceof FsError) || e.code !== "not_found") throw e;
      const link = options.followDangling && fs.readLink !== void 0 && hops < MAX_LINK_HOPS ? await danglingTarget(fs, current) : void 0;
      if (link !== void 0) {
        hops++;
        current = link;
        continue;
      }
      const parent = dirname8(current);
      if (parent === current) throw e;
      missing.push(basename5(current));
      current = parent;
    }
  }
}
async function danglingTarget(fs, path) {
  try {
    const info = await fs.lstat(path);
    if (!info.isSymlink || fs.readLink === void 0) return void 0;
    return resolve6(dirname8(path), await fs.readLink(path));
  } catch (e) {
    if (e instanceof FsError) return void 0;
    throw e;
  }
}

// src/sandbox/worker/_guarded_fs.ts
import { basename as basename6, dirname as dirname9, join as join8 } from "node:path";
function guardFsOps(inner, guard) {
  const deniedRead = (p) => guard.denyRead.some((d) => isWithin(p, d));
  const deniedWrite = (p) => guard.denyWrite.some((d) => isWithin(p, d));
  const refuse = (path, flag) => new FsError("not_granted", path, `Access to "${path}" is denied by --${flag}`);
  const ignored = guard.ignoreRead ?? [];
  const hidden = (p) => ignored.some((d) => isWithin(p, d)) && !deniedRead(p);
  const ignoredIds = new Set(guard.ignoredIds ?? []);
  const missing = (path) => new FsError("not_found", path, `No such file or directory: "${path}"`);
  const readIds = new Set(guard.deniedIds?.read ?? []);
  const writeIds = new Set(guard.deniedIds?.write ?? []);
  const idOf = (info) => info.dev === null || info.ino === null ? "" : `${info.dev}:${info.ino}`;
  const checkHandle = (handle, path) => {
    if (readIds.size > 0 && readIds.has(idOf(handle.info))) {
      handle.close();
      throw refuse(path, "deny-read");
    }
    if (ignoredIds.size > 0 && ignoredIds.has(idOf(handle.info))) {
      handle.close();
      throw missing(path);
    }
    return handle;
  };
  const shown = (info, path) => {
    if (ignoredIds.size > 0 && !info.isDirectory && ignoredIds.has(idOf(info))) {
      throw missing(path);
    }
    return info;
  };
  const unhide = async (path) => {
    if (ignored.length === 0) return;
    if (hidden(path)) throw missing(path);
    const real = await inner.realPath(path).catch(() => void 0);
    if (real !== void 0 && hidden(real)) throw missing(path);
  };
  const visibleIn = async function* (dir, entries) {
    const real = ignored.length === 0 ? dir : await inner.realPath(dir).catch(() => dir);
    for await (const entry of entries) {
      if (ignored.length > 0 && (hidden(join8(real, entry.name)) || hidden(join8(dir, entry.name)))) {
        continue;
      }
      yield entry;
    }
  };
  const guarded = {
    async realPath(path) {
      if (hidden(path)) throw missing(path);
      const real = await inner.realPath(path);
      if (hidden(real)) throw missing(path);
      return real;
    },
    async lstat(path) {
      if (ignored.length > 0) {
        if (hidden(path)) throw missing(path);
        const parent = await inner.realPath(dirname9(path)).catch(() => void 0);
        if (parent !== void 0 && hidden(join8(parent, basename6(path)))) throw missing(path);
      }
      return shown(await inner.lstat(path), path);
    },
    async stat(path) {
      await unhide(path);
      return shown(await inner.stat(path), path);
    },
    async *readDir(path) {
      if (deniedRead(path)) throw refuse(path, "deny-read");
      await unhide(path);
      yield* visibleIn(path, inner.readDir(path));
    },
    async openFile(path) {
      if (hidden(path)) throw missing(path);
      const handle = await inner.openFile(path);
      if (deniedRead(handle.path)) {
        handle.close();
        throw refuse(path, "deny-read");
      }
      if (hidden(handle.path)) {
        handle.close();
        throw missing(path);
      }
      return checkHandle(handle, path);
    },
    async readFile(path, options = {}) {
      const handle = await guarded.openFile(path);
      try {
        return await readHandleFully(handle, path, options.maxBytes);
      } finally {
        handle.close();
      }
    },
    async writeFile(path, data, options) {
      const target = await realLocation2(inner, path).catch((e) => {
        if (e instanceof FsError && e.code === "not_granted") return path;
        throw e;
      });
      if (deniedWrite(target) || deniedWrite(path)) throw refuse(path, "deny-write");
      if (hidden(target) || hidden(path)) {
        throw new FsError("protected", path, `Writing "${path}" is refused: the path is hidden by --ignore-read; write elsewhere`);
      }
      if (writeIds.size > 0) {
        const existing = await inner.lstat(target).catch(() => void 0);
        if (existing !== void 0 && writeIds.has(idOf(existing))) {
          throw refuse(path, "deny-write");
        }
      }
      const protection = guard.protection;
      if (protection !== void 0) {
        const hit = findProtection(protection, target) ?? findProtection(protection, path);
        if (hit !== void 0) {
          throw new FsError("protected", path, `Writing "${path}" is refused: ${protectedDetail(protection, hit)}`);
        }
      }
      return await inner.writeFile(path, data, options);
    }
  };
  if (inner.readDirSync !== void 0) {
    const readDirSync = inner.readDirSync.bind(inner);
    guarded.readDirSync = (path) => {
      if (deniedRead(path)) throw refuse(path, "deny-read");
      if (hidden(path)) throw missing(path);
      const entries = readDirSync(path);
      return ignored.length === 0 ? entries : entries.filter((e) => !hidden(join8(path, e.name)));
    };
  }
  if (inner.openWalkedFileSync !== void 0) {
    const openWalked = inner.openWalkedFileSync.bind(inner);
    guarded.openWalkedFileSync = (path) => {
      if (deniedRead(path)) throw refuse(path, "deny-read");
      if (hidden(path)) throw missing(path);
      return checkHandle(openWalked(path), path);
    };
  }
  if (inner.homeDir !== void 0) guarded.homeDir = inner.homeDir.bind(inner);
  return guarded;
}

// src/sandbox/worker/tool_fs.ts
function toolFsOps(guard, createDenoFsOps2) {
  if (guard === void 0) return createDenoFsOps2({});
  const deno = createDenoFsOps2(guard.recheckOpens ? {
    recheckRealPath: true
  } : {
    confined: true
  });
  return guardFsOps(deno, {
    denyRead: guard.denyRead,
    denyWrite: guard.denyWrite,
    ...guard.ignoreRead === void 0 ? {} : {
      ignoreRead: guard.ignoreRead
    },
    ...guard.ignoredIds === void 0 ? {} : {
      ignoredIds: guard.ignoredIds
    },
    ...guard.protection === void 0 ? {} : {
      protection: guard.protection
    },
    ...guard.deniedIds === void 0 ? {} : {
      deniedIds: guard.deniedIds
    }
  });
}

// src/sandbox/worker/grep_worker.ts
var scope = self;
scope.onmessage = (event) => {
  const init = event.data;
  scope.onmessage = null;
  serveScanThread(init.port, toolFsOps(init.guard, createDenoFsOps));
};
