var __create = Object.create;
var __defProp = Object.defineProperty;
var __getOwnPropDesc = Object.getOwnPropertyDescriptor;
var __getOwnPropNames = Object.getOwnPropertyNames;
var __getProtoOf = Object.getPrototypeOf;
var __hasOwnProp = Object.prototype.hasOwnProperty;
var __esm = (fn, res) => function __init() {
  return fn && (res = (0, fn[__getOwnPropNames(fn)[0]])(fn = 0)), res;
};
var __commonJS = (cb, mod) => function __require() {
  return mod || (0, cb[__getOwnPropNames(cb)[0]])((mod = { exports: {} }).exports, mod), mod.exports;
};
var __export = (target, all) => {
  for (var name in all)
    __defProp(target, name, { get: all[name], enumerable: true });
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

// src/policy/home.ts
import { isAbsolute, resolve } from "node:path";
function expandHome(p, home) {
  if (!p.startsWith("~")) return {
    ok: true,
    path: p
  };
  if (p !== "~" && !p.startsWith("~/")) {
    const prefix = p.split("/")[0];
    return {
      ok: false,
      reason: `only "~" and "~/\u2026" are expanded (to HOME), not "${prefix}"; write the path in full, or "./${p}" for a file of that name in the working directory`
    };
  }
  const dir = typeof home === "string" ? home : home?.ok ? home.path : void 0;
  if (dir === void 0) {
    const why = typeof home === "object" && !home.ok ? home.reason : "HOME is not set to an absolute path";
    return {
      ok: false,
      reason: `${why}; write the path in full (an absolute path)`
    };
  }
  return {
    ok: true,
    path: p === "~" ? dir : resolve(dir, p.slice(2))
  };
}
var init_home = __esm({
  "src/policy/home.ts"() {
  }
});

// npm:ignore/7.0.5/index.js
var require__ = __commonJS({
  "npm:ignore/7.0.5/index.js"(exports, module) {
    function makeArray(subject) {
      return Array.isArray(subject) ? subject : [
        subject
      ];
    }
    var UNDEFINED = void 0;
    var EMPTY = "";
    var SPACE = " ";
    var ESCAPE = "\\";
    var REGEX_TEST_BLANK_LINE = /^\s+$/;
    var REGEX_INVALID_TRAILING_BACKSLASH = /(?:[^\\]|^)\\$/;
    var REGEX_REPLACE_LEADING_EXCAPED_EXCLAMATION = /^\\!/;
    var REGEX_REPLACE_LEADING_EXCAPED_HASH = /^\\#/;
    var REGEX_SPLITALL_CRLF = /\r?\n/g;
    var REGEX_TEST_INVALID_PATH = /^\.{0,2}\/|^\.{1,2}$/;
    var REGEX_TEST_TRAILING_SLASH = /\/$/;
    var SLASH = "/";
    var TMP_KEY_IGNORE = "node-ignore";
    if (typeof Symbol !== "undefined") {
      TMP_KEY_IGNORE = Symbol.for("node-ignore");
    }
    var KEY_IGNORE = TMP_KEY_IGNORE;
    var define = (object, key, value) => {
      Object.defineProperty(object, key, {
        value
      });
      return value;
    };
    var REGEX_REGEXP_RANGE = /([0-z])-([0-z])/g;
    var RETURN_FALSE = () => false;
    var sanitizeRange = (range) => range.replace(REGEX_REGEXP_RANGE, (match, from, to) => from.charCodeAt(0) <= to.charCodeAt(0) ? match : EMPTY);
    var cleanRangeBackSlash = (slashes) => {
      const { length } = slashes;
      return slashes.slice(0, length - length % 2);
    };
    var REPLACERS = [
      [
        // Remove BOM
        // TODO:
        // Other similar zero-width characters?
        /^\uFEFF/,
        () => EMPTY
      ],
      // > Trailing spaces are ignored unless they are quoted with backslash ("\")
      [
        // (a\ ) -> (a )
        // (a  ) -> (a)
        // (a ) -> (a)
        // (a \ ) -> (a  )
        /((?:\\\\)*?)(\\?\s+)$/,
        (_, m1, m2) => m1 + (m2.indexOf("\\") === 0 ? SPACE : EMPTY)
      ],
      // Replace (\ ) with ' '
      // (\ ) -> ' '
      // (\\ ) -> '\\ '
      // (\\\ ) -> '\\ '
      [
        /(\\+?)\s/g,
        (_, m1) => {
          const { length } = m1;
          return m1.slice(0, length - length % 2) + SPACE;
        }
      ],
      // Escape metacharacters
      // which is written down by users but means special for regular expressions.
      // > There are 12 characters with special meanings:
      // > - the backslash \,
      // > - the caret ^,
      // > - the dollar sign $,
      // > - the period or dot .,
      // > - the vertical bar or pipe symbol |,
      // > - the question mark ?,
      // > - the asterisk or star *,
      // > - the plus sign +,
      // > - the opening parenthesis (,
      // > - the closing parenthesis ),
      // > - and the opening square bracket [,
      // > - the opening curly brace {,
      // > These special characters are often called "metacharacters".
      [
        /[\\$.|*+(){^]/g,
        (match) => `\\${match}`
      ],
      [
        // > a question mark (?) matches a single character
        /(?!\\)\?/g,
        () => "[^/]"
      ],
      // leading slash
      [
        // > A leading slash matches the beginning of the pathname.
        // > For example, "/*.c" matches "cat-file.c" but not "mozilla-sha1/sha1.c".
        // A leading slash matches the beginning of the pathname
        /^\//,
        () => "^"
      ],
      // replace special metacharacter slash after the leading slash
      [
        /\//g,
        () => "\\/"
      ],
      [
        // > A leading "**" followed by a slash means match in all directories.
        // > For example, "**/foo" matches file or directory "foo" anywhere,
        // > the same as pattern "foo".
        // > "**/foo/bar" matches file or directory "bar" anywhere that is directly
        // >   under directory "foo".
        // Notice that the '*'s have been replaced as '\\*'
        /^\^*\\\*\\\*\\\//,
        // '**/foo' <-> 'foo'
        () => "^(?:.*\\/)?"
      ],
      // starting
      [
        // there will be no leading '/'
        //   (which has been replaced by section "leading slash")
        // If starts with '**', adding a '^' to the regular expression also works
        /^(?=[^^])/,
        function startingReplacer() {
          return !/\/(?!$)/.test(this) ? "(?:^|\\/)" : "^";
        }
      ],
      // two globstars
      [
        // Use lookahead assertions so that we could match more than one `'/**'`
        /\\\/\\\*\\\*(?=\\\/|$)/g,
        // Zero, one or several directories
        // should not use '*', or it will be replaced by the next replacer
        // Check if it is not the last `'/**'`
        (_, index, str) => index + 6 < str.length ? "(?:\\/[^\\/]+)*" : "\\/.+"
      ],
      // normal intermediate wildcards
      [
        // Never replace escaped '*'
        // ignore rule '\*' will match the path '*'
        // 'abc.*/' -> go
        // 'abc.*'  -> skip this rule,
        //    coz trailing single wildcard will be handed by [trailing wildcard]
        /(^|[^\\]+)(\\\*)+(?=.+)/g,
        // '*.js' matches '.js'
        // '*.js' doesn't match 'abc'
        (_, p1, p2) => {
          const unescaped = p2.replace(/\\\*/g, "[^\\/]*");
          return p1 + unescaped;
        }
      ],
      [
        // unescape, revert step 3 except for back slash
        // For example, if a user escape a '\\*',
        // after step 3, the result will be '\\\\\\*'
        /\\\\\\(?=[$.|*+(){^])/g,
        () => ESCAPE
      ],
      [
        // '\\\\' -> '\\'
        /\\\\/g,
        () => ESCAPE
      ],
      [
        // > The range notation, e.g. [a-zA-Z],
        // > can be used to match one of the characters in a range.
        // `\` is escaped by step 3
        /(\\)?\[([^\]/]*?)(\\*)($|\])/g,
        (match, leadEscape, range, endEscape, close) => leadEscape === ESCAPE ? `\\[${range}${cleanRangeBackSlash(endEscape)}${close}` : close === "]" ? endEscape.length % 2 === 0 ? `[${sanitizeRange(range)}${endEscape}]` : "[]" : "[]"
      ],
      // ending
      [
        // 'js' will not match 'js.'
        // 'ab' will not match 'abc'
        /(?:[^*])$/,
        // WTF!
        // https://git-scm.com/docs/gitignore
        // changes in [2.22.1](https://git-scm.com/docs/gitignore/2.22.1)
        // which re-fixes #24, #38
        // > If there is a separator at the end of the pattern then the pattern
        // > will only match directories, otherwise the pattern can match both
        // > files and directories.
        // 'js*' will not match 'a.js'
        // 'js/' will not match 'a.js'
        // 'js' will match 'a.js' and 'a.js/'
        (match) => /\/$/.test(match) ? `${match}$` : `${match}(?=$|\\/$)`
      ]
    ];
    var REGEX_REPLACE_TRAILING_WILDCARD = /(^|\\\/)?\\\*$/;
    var MODE_IGNORE = "regex";
    var MODE_CHECK_IGNORE = "checkRegex";
    var UNDERSCORE = "_";
    var TRAILING_WILD_CARD_REPLACERS = {
      [MODE_IGNORE](_, p1) {
        const prefix = p1 ? `${p1}[^/]+` : "[^/]*";
        return `${prefix}(?=$|\\/$)`;
      },
      [MODE_CHECK_IGNORE](_, p1) {
        const prefix = p1 ? `${p1}[^/]*` : "[^/]*";
        return `${prefix}(?=$|\\/$)`;
      }
    };
    var makeRegexPrefix = (pattern) => REPLACERS.reduce((prev, [matcher, replacer]) => prev.replace(matcher, replacer.bind(pattern)), pattern);
    var isString = (subject) => typeof subject === "string";
    var checkPattern = (pattern) => pattern && isString(pattern) && !REGEX_TEST_BLANK_LINE.test(pattern) && !REGEX_INVALID_TRAILING_BACKSLASH.test(pattern) && pattern.indexOf("#") !== 0;
    var splitPattern = (pattern) => pattern.split(REGEX_SPLITALL_CRLF).filter(Boolean);
    var IgnoreRule = class {
      constructor(pattern, mark, body, ignoreCase, negative, prefix) {
        this.pattern = pattern;
        this.mark = mark;
        this.negative = negative;
        define(this, "body", body);
        define(this, "ignoreCase", ignoreCase);
        define(this, "regexPrefix", prefix);
      }
      get regex() {
        const key = UNDERSCORE + MODE_IGNORE;
        if (this[key]) {
          return this[key];
        }
        return this._make(MODE_IGNORE, key);
      }
      get checkRegex() {
        const key = UNDERSCORE + MODE_CHECK_IGNORE;
        if (this[key]) {
          return this[key];
        }
        return this._make(MODE_CHECK_IGNORE, key);
      }
      _make(mode, key) {
        const str = this.regexPrefix.replace(
          REGEX_REPLACE_TRAILING_WILDCARD,
          // It does not need to bind pattern
          TRAILING_WILD_CARD_REPLACERS[mode]
        );
        const regex = this.ignoreCase ? new RegExp(str, "i") : new RegExp(str);
        return define(this, key, regex);
      }
    };
    var createRule = ({ pattern, mark }, ignoreCase) => {
      let negative = false;
      let body = pattern;
      if (body.indexOf("!") === 0) {
        negative = true;
        body = body.substr(1);
      }
      body = body.replace(REGEX_REPLACE_LEADING_EXCAPED_EXCLAMATION, "!").replace(REGEX_REPLACE_LEADING_EXCAPED_HASH, "#");
      const regexPrefix = makeRegexPrefix(body);
      return new IgnoreRule(pattern, mark, body, ignoreCase, negative, regexPrefix);
    };
    var RuleManager = class {
      constructor(ignoreCase) {
        this._ignoreCase = ignoreCase;
        this._rules = [];
      }
      _add(pattern) {
        if (pattern && pattern[KEY_IGNORE]) {
          this._rules = this._rules.concat(pattern._rules._rules);
          this._added = true;
          return;
        }
        if (isString(pattern)) {
          pattern = {
            pattern
          };
        }
        if (checkPattern(pattern.pattern)) {
          const rule = createRule(pattern, this._ignoreCase);
          this._added = true;
          this._rules.push(rule);
        }
      }
      // @param {Array<string> | string | Ignore} pattern
      add(pattern) {
        this._added = false;
        makeArray(isString(pattern) ? splitPattern(pattern) : pattern).forEach(this._add, this);
        return this._added;
      }
      // Test one single path without recursively checking parent directories
      //
      // - checkUnignored `boolean` whether should check if the path is unignored,
      //   setting `checkUnignored` to `false` could reduce additional
      //   path matching.
      // - check `string` either `MODE_IGNORE` or `MODE_CHECK_IGNORE`
      // @returns {TestResult} true if a file is ignored
      test(path, checkUnignored, mode) {
        let ignored = false;
        let unignored = false;
        let matchedRule;
        this._rules.forEach((rule) => {
          const { negative } = rule;
          if (unignored === negative && ignored !== unignored || negative && !ignored && !unignored && !checkUnignored) {
            return;
          }
          const matched = rule[mode].test(path);
          if (!matched) {
            return;
          }
          ignored = !negative;
          unignored = negative;
          matchedRule = negative ? UNDEFINED : rule;
        });
        const ret = {
          ignored,
          unignored
        };
        if (matchedRule) {
          ret.rule = matchedRule;
        }
        return ret;
      }
    };
    var throwError = (message, Ctor) => {
      throw new Ctor(message);
    };
    var checkPath = (path, originalPath, doThrow) => {
      if (!isString(path)) {
        return doThrow(`path must be a string, but got \`${originalPath}\``, TypeError);
      }
      if (!path) {
        return doThrow(`path must not be empty`, TypeError);
      }
      if (checkPath.isNotRelative(path)) {
        const r = "`path.relative()`d";
        return doThrow(`path should be a ${r} string, but got "${originalPath}"`, RangeError);
      }
      return true;
    };
    var isNotRelative = (path) => REGEX_TEST_INVALID_PATH.test(path);
    checkPath.isNotRelative = isNotRelative;
    checkPath.convert = (p) => p;
    var Ignore = class {
      constructor({ ignorecase = true, ignoreCase = ignorecase, allowRelativePaths = false } = {}) {
        define(this, KEY_IGNORE, true);
        this._rules = new RuleManager(ignoreCase);
        this._strictPathCheck = !allowRelativePaths;
        this._initCache();
      }
      _initCache() {
        this._ignoreCache = /* @__PURE__ */ Object.create(null);
        this._testCache = /* @__PURE__ */ Object.create(null);
      }
      add(pattern) {
        if (this._rules.add(pattern)) {
          this._initCache();
        }
        return this;
      }
      // legacy
      addPattern(pattern) {
        return this.add(pattern);
      }
      // @returns {TestResult}
      _test(originalPath, cache, checkUnignored, slices) {
        const path = originalPath && checkPath.convert(originalPath);
        checkPath(path, originalPath, this._strictPathCheck ? throwError : RETURN_FALSE);
        return this._t(path, cache, checkUnignored, slices);
      }
      checkIgnore(path) {
        if (!REGEX_TEST_TRAILING_SLASH.test(path)) {
          return this.test(path);
        }
        const slices = path.split(SLASH).filter(Boolean);
        slices.pop();
        if (slices.length) {
          const parent = this._t(slices.join(SLASH) + SLASH, this._testCache, true, slices);
          if (parent.ignored) {
            return parent;
          }
        }
        return this._rules.test(path, false, MODE_CHECK_IGNORE);
      }
      _t(path, cache, checkUnignored, slices) {
        if (path in cache) {
          return cache[path];
        }
        if (!slices) {
          slices = path.split(SLASH).filter(Boolean);
        }
        slices.pop();
        if (!slices.length) {
          return cache[path] = this._rules.test(path, checkUnignored, MODE_IGNORE);
        }
        const parent = this._t(slices.join(SLASH) + SLASH, cache, checkUnignored, slices);
        return cache[path] = parent.ignored ? parent : this._rules.test(path, checkUnignored, MODE_IGNORE);
      }
      ignores(path) {
        return this._test(path, this._ignoreCache, false).ignored;
      }
      createFilter() {
        return (path) => !this.ignores(path);
      }
      filter(paths) {
        return makeArray(paths).filter(this.createFilter());
      }
      // @returns {TestResult}
      test(path) {
        return this._test(path, this._testCache, true);
      }
    };
    var factory = (options) => new Ignore(options);
    var isPathValid = (path) => checkPath(path && checkPath.convert(path), path, RETURN_FALSE);
    var setupWindows = () => {
      const makePosix = (str) => /^\\\\\?\\/.test(str) || /["<>|\u0000-\u001F]+/u.test(str) ? str : str.replace(/\\/g, "/");
      checkPath.convert = makePosix;
      const REGEX_TEST_WINDOWS_PATH_ABSOLUTE = /^[a-z]:\//i;
      checkPath.isNotRelative = (path) => REGEX_TEST_WINDOWS_PATH_ABSOLUTE.test(path) || isNotRelative(path);
    };
    if (
      // Detect `process` so that it can run in browsers.
      typeof process !== "undefined" && process.platform === "win32"
    ) {
      setupWindows();
    }
    module.exports = factory;
    factory.default = factory;
    module.exports.isPathValid = isPathValid;
    define(module.exports, Symbol.for("setupWindows"), setupWindows);
  }
});

// npm:picomatch/4.0.3/lib/constants.js
var require_constants = __commonJS({
  "npm:picomatch/4.0.3/lib/constants.js"(exports, module) {
    "use strict";
    var WIN_SLASH = "\\\\/";
    var WIN_NO_SLASH = `[^${WIN_SLASH}]`;
    var DOT_LITERAL = "\\.";
    var PLUS_LITERAL = "\\+";
    var QMARK_LITERAL = "\\?";
    var SLASH_LITERAL = "\\/";
    var ONE_CHAR = "(?=.)";
    var QMARK = "[^/]";
    var END_ANCHOR = `(?:${SLASH_LITERAL}|$)`;
    var START_ANCHOR = `(?:^|${SLASH_LITERAL})`;
    var DOTS_SLASH = `${DOT_LITERAL}{1,2}${END_ANCHOR}`;
    var NO_DOT = `(?!${DOT_LITERAL})`;
    var NO_DOTS = `(?!${START_ANCHOR}${DOTS_SLASH})`;
    var NO_DOT_SLASH = `(?!${DOT_LITERAL}{0,1}${END_ANCHOR})`;
    var NO_DOTS_SLASH = `(?!${DOTS_SLASH})`;
    var QMARK_NO_DOT = `[^.${SLASH_LITERAL}]`;
    var STAR = `${QMARK}*?`;
    var SEP = "/";
    var POSIX_CHARS = {
      DOT_LITERAL,
      PLUS_LITERAL,
      QMARK_LITERAL,
      SLASH_LITERAL,
      ONE_CHAR,
      QMARK,
      END_ANCHOR,
      DOTS_SLASH,
      NO_DOT,
      NO_DOTS,
      NO_DOT_SLASH,
      NO_DOTS_SLASH,
      QMARK_NO_DOT,
      STAR,
      START_ANCHOR,
      SEP
    };
    var WINDOWS_CHARS = {
      ...POSIX_CHARS,
      SLASH_LITERAL: `[${WIN_SLASH}]`,
      QMARK: WIN_NO_SLASH,
      STAR: `${WIN_NO_SLASH}*?`,
      DOTS_SLASH: `${DOT_LITERAL}{1,2}(?:[${WIN_SLASH}]|$)`,
      NO_DOT: `(?!${DOT_LITERAL})`,
      NO_DOTS: `(?!(?:^|[${WIN_SLASH}])${DOT_LITERAL}{1,2}(?:[${WIN_SLASH}]|$))`,
      NO_DOT_SLASH: `(?!${DOT_LITERAL}{0,1}(?:[${WIN_SLASH}]|$))`,
      NO_DOTS_SLASH: `(?!${DOT_LITERAL}{1,2}(?:[${WIN_SLASH}]|$))`,
      QMARK_NO_DOT: `[^.${WIN_SLASH}]`,
      START_ANCHOR: `(?:^|[${WIN_SLASH}])`,
      END_ANCHOR: `(?:[${WIN_SLASH}]|$)`,
      SEP: "\\"
    };
    var POSIX_REGEX_SOURCE = {
      alnum: "a-zA-Z0-9",
      alpha: "a-zA-Z",
      ascii: "\\x00-\\x7F",
      blank: " \\t",
      cntrl: "\\x00-\\x1F\\x7F",
      digit: "0-9",
      graph: "\\x21-\\x7E",
      lower: "a-z",
      print: "\\x20-\\x7E ",
      punct: "\\-!\"#$%&'()\\*+,./:;<=>?@[\\]^_`{|}~",
      space: " \\t\\r\\n\\v\\f",
      upper: "A-Z",
      word: "A-Za-z0-9_",
      xdigit: "A-Fa-f0-9"
    };
    module.exports = {
      MAX_LENGTH: 1024 * 64,
      POSIX_REGEX_SOURCE,
      // regular expressions
      REGEX_BACKSLASH: /\\(?![*+?^${}(|)[\]])/g,
      REGEX_NON_SPECIAL_CHARS: /^[^@![\].,$*+?^{}()|\\/]+/,
      REGEX_SPECIAL_CHARS: /[-*+?.^${}(|)[\]]/,
      REGEX_SPECIAL_CHARS_BACKREF: /(\\?)((\W)(\3*))/g,
      REGEX_SPECIAL_CHARS_GLOBAL: /([-*+?.^${}(|)[\]])/g,
      REGEX_REMOVE_BACKSLASH: /(?:\[.*?[^\\]\]|\\(?=.))/g,
      // Replace globs with equivalent patterns to reduce parsing time.
      REPLACEMENTS: {
        __proto__: null,
        "***": "*",
        "**/**": "**",
        "**/**/**": "**"
      },
      // Digits
      CHAR_0: 48,
      /* 0 */
      CHAR_9: 57,
      /* 9 */
      // Alphabet chars.
      CHAR_UPPERCASE_A: 65,
      /* A */
      CHAR_LOWERCASE_A: 97,
      /* a */
      CHAR_UPPERCASE_Z: 90,
      /* Z */
      CHAR_LOWERCASE_Z: 122,
      /* z */
      CHAR_LEFT_PARENTHESES: 40,
      /* ( */
      CHAR_RIGHT_PARENTHESES: 41,
      /* ) */
      CHAR_ASTERISK: 42,
      /* * */
      // Non-alphabetic chars.
      CHAR_AMPERSAND: 38,
      /* & */
      CHAR_AT: 64,
      /* @ */
      CHAR_BACKWARD_SLASH: 92,
      /* \ */
      CHAR_CARRIAGE_RETURN: 13,
      /* \r */
      CHAR_CIRCUMFLEX_ACCENT: 94,
      /* ^ */
      CHAR_COLON: 58,
      /* : */
      CHAR_COMMA: 44,
      /* , */
      CHAR_DOT: 46,
      /* . */
      CHAR_DOUBLE_QUOTE: 34,
      /* " */
      CHAR_EQUAL: 61,
      /* = */
      CHAR_EXCLAMATION_MARK: 33,
      /* ! */
      CHAR_FORM_FEED: 12,
      /* \f */
      CHAR_FORWARD_SLASH: 47,
      /* / */
      CHAR_GRAVE_ACCENT: 96,
      /* ` */
      CHAR_HASH: 35,
      /* # */
      CHAR_HYPHEN_MINUS: 45,
      /* - */
      CHAR_LEFT_ANGLE_BRACKET: 60,
      /* < */
      CHAR_LEFT_CURLY_BRACE: 123,
      /* { */
      CHAR_LEFT_SQUARE_BRACKET: 91,
      /* [ */
      CHAR_LINE_FEED: 10,
      /* \n */
      CHAR_NO_BREAK_SPACE: 160,
      /* \u00A0 */
      CHAR_PERCENT: 37,
      /* % */
      CHAR_PLUS: 43,
      /* + */
      CHAR_QUESTION_MARK: 63,
      /* ? */
      CHAR_RIGHT_ANGLE_BRACKET: 62,
      /* > */
      CHAR_RIGHT_CURLY_BRACE: 125,
      /* } */
      CHAR_RIGHT_SQUARE_BRACKET: 93,
      /* ] */
      CHAR_SEMICOLON: 59,
      /* ; */
      CHAR_SINGLE_QUOTE: 39,
      /* ' */
      CHAR_SPACE: 32,
      /*   */
      CHAR_TAB: 9,
      /* \t */
      CHAR_UNDERSCORE: 95,
      /* _ */
      CHAR_VERTICAL_LINE: 124,
      /* | */
      CHAR_ZERO_WIDTH_NOBREAK_SPACE: 65279,
      /* \uFEFF */
      /**
      * Create EXTGLOB_CHARS
      */
      extglobChars(chars) {
        return {
          "!": {
            type: "negate",
            open: "(?:(?!(?:",
            close: `))${chars.STAR})`
          },
          "?": {
            type: "qmark",
            open: "(?:",
            close: ")?"
          },
          "+": {
            type: "plus",
            open: "(?:",
            close: ")+"
          },
          "*": {
            type: "star",
            open: "(?:",
            close: ")*"
          },
          "@": {
            type: "at",
            open: "(?:",
            close: ")"
          }
        };
      },
      /**
       * Create GLOB_CHARS
       */
      globChars(win32) {
        return win32 === true ? WINDOWS_CHARS : POSIX_CHARS;
      }
    };
  }
});

// npm:picomatch/4.0.3/lib/utils.js
var require_utils = __commonJS({
  "npm:picomatch/4.0.3/lib/utils.js"(exports) {
    "use strict";
    var { REGEX_BACKSLASH, REGEX_REMOVE_BACKSLASH, REGEX_SPECIAL_CHARS, REGEX_SPECIAL_CHARS_GLOBAL } = require_constants();
    exports.isObject = (val) => val !== null && typeof val === "object" && !Array.isArray(val);
    exports.hasRegexChars = (str) => REGEX_SPECIAL_CHARS.test(str);
    exports.isRegexChar = (str) => str.length === 1 && exports.hasRegexChars(str);
    exports.escapeRegex = (str) => str.replace(REGEX_SPECIAL_CHARS_GLOBAL, "\\$1");
    exports.toPosixSlashes = (str) => str.replace(REGEX_BACKSLASH, "/");
    exports.isWindows = () => {
      if (typeof navigator !== "undefined" && navigator.platform) {
        const platform = navigator.platform.toLowerCase();
        return platform === "win32" || platform === "windows";
      }
      if (typeof process !== "undefined" && process.platform) {
        return process.platform === "win32";
      }
      return false;
    };
    exports.removeBackslashes = (str) => {
      return str.replace(REGEX_REMOVE_BACKSLASH, (match) => {
        return match === "\\" ? "" : match;
      });
    };
    exports.escapeLast = (input, char, lastIdx) => {
      const idx = input.lastIndexOf(char, lastIdx);
      if (idx === -1) return input;
      if (input[idx - 1] === "\\") return exports.escapeLast(input, char, idx - 1);
      return `${input.slice(0, idx)}\\${input.slice(idx)}`;
    };
    exports.removePrefix = (input, state = {}) => {
      let output = input;
      if (output.startsWith("./")) {
        output = output.slice(2);
        state.prefix = "./";
      }
      return output;
    };
    exports.wrapOutput = (input, state = {}, options = {}) => {
      const prepend = options.contains ? "" : "^";
      const append = options.contains ? "" : "$";
      let output = `${prepend}(?:${input})${append}`;
      if (state.negated === true) {
        output = `(?:^(?!${output}).*$)`;
      }
      return output;
    };
    exports.basename = (path, { windows } = {}) => {
      const segs = path.split(windows ? /[\\/]/ : "/");
      const last = segs[segs.length - 1];
      if (last === "") {
        return segs[segs.length - 2];
      }
      return last;
    };
  }
});

// npm:picomatch/4.0.3/lib/scan.js
var require_scan = __commonJS({
  "npm:picomatch/4.0.3/lib/scan.js"(exports, module) {
    "use strict";
    var utils = require_utils();
    var {
      CHAR_ASTERISK,
      /* * */
      CHAR_AT,
      /* @ */
      CHAR_BACKWARD_SLASH,
      /* \ */
      CHAR_COMMA,
      /* , */
      CHAR_DOT,
      /* . */
      CHAR_EXCLAMATION_MARK,
      /* ! */
      CHAR_FORWARD_SLASH,
      /* / */
      CHAR_LEFT_CURLY_BRACE,
      /* { */
      CHAR_LEFT_PARENTHESES,
      /* ( */
      CHAR_LEFT_SQUARE_BRACKET,
      /* [ */
      CHAR_PLUS,
      /* + */
      CHAR_QUESTION_MARK,
      /* ? */
      CHAR_RIGHT_CURLY_BRACE,
      /* } */
      CHAR_RIGHT_PARENTHESES,
      /* ) */
      CHAR_RIGHT_SQUARE_BRACKET
      /* ] */
    } = require_constants();
    var isPathSeparator = (code) => {
      return code === CHAR_FORWARD_SLASH || code === CHAR_BACKWARD_SLASH;
    };
    var depth = (token) => {
      if (token.isPrefix !== true) {
        token.depth = token.isGlobstar ? Infinity : 1;
      }
    };
    var scan = (input, options) => {
      const opts = options || {};
      const length = input.length - 1;
      const scanToEnd = opts.parts === true || opts.scanToEnd === true;
      const slashes = [];
      const tokens = [];
      const parts = [];
      let str = input;
      let index = -1;
      let start = 0;
      let lastIndex = 0;
      let isBrace = false;
      let isBracket = false;
      let isGlob = false;
      let isExtglob = false;
      let isGlobstar = false;
      let braceEscaped = false;
      let backslashes = false;
      let negated = false;
      let negatedExtglob = false;
      let finished = false;
      let braces = 0;
      let prev;
      let code;
      let token = {
        value: "",
        depth: 0,
        isGlob: false
      };
      const eos = () => index >= length;
      const peek = () => str.charCodeAt(index + 1);
      const advance = () => {
        prev = code;
        return str.charCodeAt(++index);
      };
      while (index < length) {
        code = advance();
        let next;
        if (code === CHAR_BACKWARD_SLASH) {
          backslashes = token.backslashes = true;
          code = advance();
          if (code === CHAR_LEFT_CURLY_BRACE) {
            braceEscaped = true;
          }
          continue;
        }
        if (braceEscaped === true || code === CHAR_LEFT_CURLY_BRACE) {
          braces++;
          while (eos() !== true && (code = advance())) {
            if (code === CHAR_BACKWARD_SLASH) {
              backslashes = token.backslashes = true;
              advance();
              continue;
            }
            if (code === CHAR_LEFT_CURLY_BRACE) {
              braces++;
              continue;
            }
            if (braceEscaped !== true && code === CHAR_DOT && (code = advance()) === CHAR_DOT) {
              isBrace = token.isBrace = true;
              isGlob = token.isGlob = true;
              finished = true;
              if (scanToEnd === true) {
                continue;
              }
              break;
            }
            if (braceEscaped !== true && code === CHAR_COMMA) {
              isBrace = token.isBrace = true;
              isGlob = token.isGlob = true;
              finished = true;
              if (scanToEnd === true) {
                continue;
              }
              break;
            }
            if (code === CHAR_RIGHT_CURLY_BRACE) {
              braces--;
              if (braces === 0) {
                braceEscaped = false;
                isBrace = token.isBrace = true;
                finished = true;
                break;
              }
            }
          }
          if (scanToEnd === true) {
            continue;
          }
          break;
        }
        if (code === CHAR_FORWARD_SLASH) {
          slashes.push(index);
          tokens.push(token);
          token = {
            value: "",
            depth: 0,
            isGlob: false
          };
          if (finished === true) continue;
          if (prev === CHAR_DOT && index === start + 1) {
            start += 2;
            continue;
          }
          lastIndex = index + 1;
          continue;
        }
        if (opts.noext !== true) {
          const isExtglobChar = code === CHAR_PLUS || code === CHAR_AT || code === CHAR_ASTERISK || code === CHAR_QUESTION_MARK || code === CHAR_EXCLAMATION_MARK;
          if (isExtglobChar === true && peek() === CHAR_LEFT_PARENTHESES) {
            isGlob = token.isGlob = true;
            isExtglob = token.isExtglob = true;
            finished = true;
            if (code === CHAR_EXCLAMATION_MARK && index === start) {
              negatedExtglob = true;
            }
            if (scanToEnd === true) {
              while (eos() !== true && (code = advance())) {
                if (code === CHAR_BACKWARD_SLASH) {
                  backslashes = token.backslashes = true;
                  code = advance();
                  continue;
                }
                if (code === CHAR_RIGHT_PARENTHESES) {
                  isGlob = token.isGlob = true;
                  finished = true;
                  break;
                }
              }
              continue;
            }
            break;
          }
        }
        if (code === CHAR_ASTERISK) {
          if (prev === CHAR_ASTERISK) isGlobstar = token.isGlobstar = true;
          isGlob = token.isGlob = true;
          finished = true;
          if (scanToEnd === true) {
            continue;
          }
          break;
        }
        if (code === CHAR_QUESTION_MARK) {
          isGlob = token.isGlob = true;
          finished = true;
          if (scanToEnd === true) {
            continue;
          }
          break;
        }
        if (code === CHAR_LEFT_SQUARE_BRACKET) {
          while (eos() !== true && (next = advance())) {
            if (next === CHAR_BACKWARD_SLASH) {
              backslashes = token.backslashes = true;
              advance();
              continue;
            }
            if (next === CHAR_RIGHT_SQUARE_BRACKET) {
              isBracket = token.isBracket = true;
              isGlob = token.isGlob = true;
              finished = true;
              break;
            }
          }
          if (scanToEnd === true) {
            continue;
          }
          break;
        }
        if (opts.nonegate !== true && code === CHAR_EXCLAMATION_MARK && index === start) {
          negated = token.negated = true;
          start++;
          continue;
        }
        if (opts.noparen !== true && code === CHAR_LEFT_PARENTHESES) {
          isGlob = token.isGlob = true;
          if (scanToEnd === true) {
            while (eos() !== true && (code = advance())) {
              if (code === CHAR_LEFT_PARENTHESES) {
                backslashes = token.backslashes = true;
                code = advance();
                continue;
              }
              if (code === CHAR_RIGHT_PARENTHESES) {
                finished = true;
                break;
              }
            }
            continue;
          }
          break;
        }
        if (isGlob === true) {
          finished = true;
          if (scanToEnd === true) {
            continue;
          }
          break;
        }
      }
      if (opts.noext === true) {
        isExtglob = false;
        isGlob = false;
      }
      let base = str;
      let prefix = "";
      let glob = "";
      if (start > 0) {
        prefix = str.slice(0, start);
        str = str.slice(start);
        lastIndex -= start;
      }
      if (base && isGlob === true && lastIndex > 0) {
        base = str.slice(0, lastIndex);
        glob = str.slice(lastIndex);
      } else if (isGlob === true) {
        base = "";
        glob = str;
      } else {
        base = str;
      }
      if (base && base !== "" && base !== "/" && base !== str) {
        if (isPathSeparator(base.charCodeAt(base.length - 1))) {
          base = base.slice(0, -1);
        }
      }
      if (opts.unescape === true) {
        if (glob) glob = utils.removeBackslashes(glob);
        if (base && backslashes === true) {
          base = utils.removeBackslashes(base);
        }
      }
      const state = {
        prefix,
        input,
        start,
        base,
        glob,
        isBrace,
        isBracket,
        isGlob,
        isExtglob,
        isGlobstar,
        negated,
        negatedExtglob
      };
      if (opts.tokens === true) {
        state.maxDepth = 0;
        if (!isPathSeparator(code)) {
          tokens.push(token);
        }
        state.tokens = tokens;
      }
      if (opts.parts === true || opts.tokens === true) {
        let prevIndex;
        for (let idx = 0; idx < slashes.length; idx++) {
          const n = prevIndex ? prevIndex + 1 : start;
          const i = slashes[idx];
          const value = input.slice(n, i);
          if (opts.tokens) {
            if (idx === 0 && start !== 0) {
              tokens[idx].isPrefix = true;
              tokens[idx].value = prefix;
            } else {
              tokens[idx].value = value;
            }
            depth(tokens[idx]);
            state.maxDepth += tokens[idx].depth;
          }
          if (idx !== 0 || value !== "") {
            parts.push(value);
          }
          prevIndex = i;
        }
        if (prevIndex && prevIndex + 1 < input.length) {
          const value = input.slice(prevIndex + 1);
          parts.push(value);
          if (opts.tokens) {
            tokens[tokens.length - 1].value = value;
            depth(tokens[tokens.length - 1]);
            state.maxDepth += tokens[tokens.length - 1].depth;
          }
        }
        state.slashes = slashes;
        state.parts = parts;
      }
      return state;
    };
    module.exports = scan;
  }
});

// npm:picomatch/4.0.3/lib/parse.js
var require_parse = __commonJS({
  "npm:picomatch/4.0.3/lib/parse.js"(exports, module) {
    "use strict";
    var constants = require_constants();
    var utils = require_utils();
    var { MAX_LENGTH, POSIX_REGEX_SOURCE, REGEX_NON_SPECIAL_CHARS, REGEX_SPECIAL_CHARS_BACKREF, REPLACEMENTS } = constants;
    var expandRange = (args, options) => {
      if (typeof options.expandRange === "function") {
        return options.expandRange(...args, options);
      }
      args.sort();
      const value = `[${args.join("-")}]`;
      try {
        new RegExp(value);
      } catch (ex) {
        return args.map((v) => utils.escapeRegex(v)).join("..");
      }
      return value;
    };
    var syntaxError = (type, char) => {
      return `Missing ${type}: "${char}" - use "\\\\${char}" to match literal characters`;
    };
    var parse = (input, options) => {
      if (typeof input !== "string") {
        throw new TypeError("Expected a string");
      }
      input = REPLACEMENTS[input] || input;
      const opts = {
        ...options
      };
      const max = typeof opts.maxLength === "number" ? Math.min(MAX_LENGTH, opts.maxLength) : MAX_LENGTH;
      let len = input.length;
      if (len > max) {
        throw new SyntaxError(`Input length: ${len}, exceeds maximum allowed length: ${max}`);
      }
      const bos = {
        type: "bos",
        value: "",
        output: opts.prepend || ""
      };
      const tokens = [
        bos
      ];
      const capture = opts.capture ? "" : "?:";
      const PLATFORM_CHARS = constants.globChars(opts.windows);
      const EXTGLOB_CHARS = constants.extglobChars(PLATFORM_CHARS);
      const { DOT_LITERAL, PLUS_LITERAL, SLASH_LITERAL, ONE_CHAR, DOTS_SLASH, NO_DOT, NO_DOT_SLASH, NO_DOTS_SLASH, QMARK, QMARK_NO_DOT, STAR, START_ANCHOR } = PLATFORM_CHARS;
      const globstar = (opts2) => {
        return `(${capture}(?:(?!${START_ANCHOR}${opts2.dot ? DOTS_SLASH : DOT_LITERAL}).)*?)`;
      };
      const nodot = opts.dot ? "" : NO_DOT;
      const qmarkNoDot = opts.dot ? QMARK : QMARK_NO_DOT;
      let star = opts.bash === true ? globstar(opts) : STAR;
      if (opts.capture) {
        star = `(${star})`;
      }
      if (typeof opts.noext === "boolean") {
        opts.noextglob = opts.noext;
      }
      const state = {
        input,
        index: -1,
        start: 0,
        dot: opts.dot === true,
        consumed: "",
        output: "",
        prefix: "",
        backtrack: false,
        negated: false,
        brackets: 0,
        braces: 0,
        parens: 0,
        quotes: 0,
        globstar: false,
        tokens
      };
      input = utils.removePrefix(input, state);
      len = input.length;
      const extglobs = [];
      const braces = [];
      const stack = [];
      let prev = bos;
      let value;
      const eos = () => state.index === len - 1;
      const peek = state.peek = (n = 1) => input[state.index + n];
      const advance = state.advance = () => input[++state.index] || "";
      const remaining = () => input.slice(state.index + 1);
      const consume = (value2 = "", num = 0) => {
        state.consumed += value2;
        state.index += num;
      };
      const append = (token) => {
        state.output += token.output != null ? token.output : token.value;
        consume(token.value);
      };
      const negate = () => {
        let count = 1;
        while (peek() === "!" && (peek(2) !== "(" || peek(3) === "?")) {
          advance();
          state.start++;
          count++;
        }
        if (count % 2 === 0) {
          return false;
        }
        state.negated = true;
        state.start++;
        return true;
      };
      const increment = (type) => {
        state[type]++;
        stack.push(type);
      };
      const decrement = (type) => {
        state[type]--;
        stack.pop();
      };
      const push = (tok) => {
        if (prev.type === "globstar") {
          const isBrace = state.braces > 0 && (tok.type === "comma" || tok.type === "brace");
          const isExtglob = tok.extglob === true || extglobs.length && (tok.type === "pipe" || tok.type === "paren");
          if (tok.type !== "slash" && tok.type !== "paren" && !isBrace && !isExtglob) {
            state.output = state.output.slice(0, -prev.output.length);
            prev.type = "star";
            prev.value = "*";
            prev.output = star;
            state.output += prev.output;
          }
        }
        if (extglobs.length && tok.type !== "paren") {
          extglobs[extglobs.length - 1].inner += tok.value;
        }
        if (tok.value || tok.output) append(tok);
        if (prev && prev.type === "text" && tok.type === "text") {
          prev.output = (prev.output || prev.value) + tok.value;
          prev.value += tok.value;
          return;
        }
        tok.prev = prev;
        tokens.push(tok);
        prev = tok;
      };
      const extglobOpen = (type, value2) => {
        const token = {
          ...EXTGLOB_CHARS[value2],
          conditions: 1,
          inner: ""
        };
        token.prev = prev;
        token.parens = state.parens;
        token.output = state.output;
        const output = (opts.capture ? "(" : "") + token.open;
        increment("parens");
        push({
          type,
          value: value2,
          output: state.output ? "" : ONE_CHAR
        });
        push({
          type: "paren",
          extglob: true,
          value: advance(),
          output
        });
        extglobs.push(token);
      };
      const extglobClose = (token) => {
        let output = token.close + (opts.capture ? ")" : "");
        let rest;
        if (token.type === "negate") {
          let extglobStar = star;
          if (token.inner && token.inner.length > 1 && token.inner.includes("/")) {
            extglobStar = globstar(opts);
          }
          if (extglobStar !== star || eos() || /^\)+$/.test(remaining())) {
            output = token.close = `)$))${extglobStar}`;
          }
          if (token.inner.includes("*") && (rest = remaining()) && /^\.[^\\/.]+$/.test(rest)) {
            const expression = parse(rest, {
              ...options,
              fastpaths: false
            }).output;
            output = token.close = `)${expression})${extglobStar})`;
          }
          if (token.prev.type === "bos") {
            state.negatedExtglob = true;
          }
        }
        push({
          type: "paren",
          extglob: true,
          value,
          output
        });
        decrement("parens");
      };
      if (opts.fastpaths !== false && !/(^[*!]|[/()[\]{}"])/.test(input)) {
        let backslashes = false;
        let output = input.replace(REGEX_SPECIAL_CHARS_BACKREF, (m, esc, chars, first, rest, index) => {
          if (first === "\\") {
            backslashes = true;
            return m;
          }
          if (first === "?") {
            if (esc) {
              return esc + first + (rest ? QMARK.repeat(rest.length) : "");
            }
            if (index === 0) {
              return qmarkNoDot + (rest ? QMARK.repeat(rest.length) : "");
            }
            return QMARK.repeat(chars.length);
          }
          if (first === ".") {
            return DOT_LITERAL.repeat(chars.length);
          }
          if (first === "*") {
            if (esc) {
              return esc + first + (rest ? star : "");
            }
            return star;
          }
          return esc ? m : `\\${m}`;
        });
        if (backslashes === true) {
          if (opts.unescape === true) {
            output = output.replace(/\\/g, "");
          } else {
            output = output.replace(/\\+/g, (m) => {
              return m.length % 2 === 0 ? "\\\\" : m ? "\\" : "";
            });
          }
        }
        if (output === input && opts.contains === true) {
          state.output = input;
          return state;
        }
        state.output = utils.wrapOutput(output, state, options);
        return state;
      }
      while (!eos()) {
        value = advance();
        if (value === "\0") {
          continue;
        }
        if (value === "\\") {
          const next = peek();
          if (next === "/" && opts.bash !== true) {
            continue;
          }
          if (next === "." || next === ";") {
            continue;
          }
          if (!next) {
            value += "\\";
            push({
              type: "text",
              value
            });
            continue;
          }
          const match = /^\\+/.exec(remaining());
          let slashes = 0;
          if (match && match[0].length > 2) {
            slashes = match[0].length;
            state.index += slashes;
            if (slashes % 2 !== 0) {
              value += "\\";
            }
          }
          if (opts.unescape === true) {
            value = advance();
          } else {
            value += advance();
          }
          if (state.brackets === 0) {
            push({
              type: "text",
              value
            });
            continue;
          }
        }
        if (state.brackets > 0 && (value !== "]" || prev.value === "[" || prev.value === "[^")) {
          if (opts.posix !== false && value === ":") {
            const inner = prev.value.slice(1);
            if (inner.includes("[")) {
              prev.posix = true;
              if (inner.includes(":")) {
                const idx = prev.value.lastIndexOf("[");
                const pre = prev.value.slice(0, idx);
                const rest2 = prev.value.slice(idx + 2);
                const posix = POSIX_REGEX_SOURCE[rest2];
                if (posix) {
                  prev.value = pre + posix;
                  state.backtrack = true;
                  advance();
                  if (!bos.output && tokens.indexOf(prev) === 1) {
                    bos.output = ONE_CHAR;
                  }
                  continue;
                }
              }
            }
          }
          if (value === "[" && peek() !== ":" || value === "-" && peek() === "]") {
            value = `\\${value}`;
          }
          if (value === "]" && (prev.value === "[" || prev.value === "[^")) {
            value = `\\${value}`;
          }
          if (opts.posix === true && value === "!" && prev.value === "[") {
            value = "^";
          }
          prev.value += value;
          append({
            value
          });
          continue;
        }
        if (state.quotes === 1 && value !== '"') {
          value = utils.escapeRegex(value);
          prev.value += value;
          append({
            value
          });
          continue;
        }
        if (value === '"') {
          state.quotes = state.quotes === 1 ? 0 : 1;
          if (opts.keepQuotes === true) {
            push({
              type: "text",
              value
            });
          }
          continue;
        }
        if (value === "(") {
          increment("parens");
          push({
            type: "paren",
            value
          });
          continue;
        }
        if (value === ")") {
          if (state.parens === 0 && opts.strictBrackets === true) {
            throw new SyntaxError(syntaxError("opening", "("));
          }
          const extglob = extglobs[extglobs.length - 1];
          if (extglob && state.parens === extglob.parens + 1) {
            extglobClose(extglobs.pop());
            continue;
          }
          push({
            type: "paren",
            value,
            output: state.parens ? ")" : "\\)"
          });
          decrement("parens");
          continue;
        }
        if (value === "[") {
          if (opts.nobracket === true || !remaining().includes("]")) {
            if (opts.nobracket !== true && opts.strictBrackets === true) {
              throw new SyntaxError(syntaxError("closing", "]"));
            }
            value = `\\${value}`;
          } else {
            increment("brackets");
          }
          push({
            type: "bracket",
            value
          });
          continue;
        }
        if (value === "]") {
          if (opts.nobracket === true || prev && prev.type === "bracket" && prev.value.length === 1) {
            push({
              type: "text",
              value,
              output: `\\${value}`
            });
            continue;
          }
          if (state.brackets === 0) {
            if (opts.strictBrackets === true) {
              throw new SyntaxError(syntaxError("opening", "["));
            }
            push({
              type: "text",
              value,
              output: `\\${value}`
            });
            continue;
          }
          decrement("brackets");
          const prevValue = prev.value.slice(1);
          if (prev.posix !== true && prevValue[0] === "^" && !prevValue.includes("/")) {
            value = `/${value}`;
          }
          prev.value += value;
          append({
            value
          });
          if (opts.literalBrackets === false || utils.hasRegexChars(prevValue)) {
            continue;
          }
          const escaped = utils.escapeRegex(prev.value);
          state.output = state.output.slice(0, -prev.value.length);
          if (opts.literalBrackets === true) {
            state.output += escaped;
            prev.value = escaped;
            continue;
          }
          prev.value = `(${capture}${escaped}|${prev.value})`;
          state.output += prev.value;
          continue;
        }
        if (value === "{" && opts.nobrace !== true) {
          increment("braces");
          const open = {
            type: "brace",
            value,
            output: "(",
            outputIndex: state.output.length,
            tokensIndex: state.tokens.length
          };
          braces.push(open);
          push(open);
          continue;
        }
        if (value === "}") {
          const brace = braces[braces.length - 1];
          if (opts.nobrace === true || !brace) {
            push({
              type: "text",
              value,
              output: value
            });
            continue;
          }
          let output = ")";
          if (brace.dots === true) {
            const arr = tokens.slice();
            const range = [];
            for (let i = arr.length - 1; i >= 0; i--) {
              tokens.pop();
              if (arr[i].type === "brace") {
                break;
              }
              if (arr[i].type !== "dots") {
                range.unshift(arr[i].value);
              }
            }
            output = expandRange(range, opts);
            state.backtrack = true;
          }
          if (brace.comma !== true && brace.dots !== true) {
            const out = state.output.slice(0, brace.outputIndex);
            const toks = state.tokens.slice(brace.tokensIndex);
            brace.value = brace.output = "\\{";
            value = output = "\\}";
            state.output = out;
            for (const t of toks) {
              state.output += t.output || t.value;
            }
          }
          push({
            type: "brace",
            value,
            output
          });
          decrement("braces");
          braces.pop();
          continue;
        }
        if (value === "|") {
          if (extglobs.length > 0) {
            extglobs[extglobs.length - 1].conditions++;
          }
          push({
            type: "text",
            value
          });
          continue;
        }
        if (value === ",") {
          let output = value;
          const brace = braces[braces.length - 1];
          if (brace && stack[stack.length - 1] === "braces") {
            brace.comma = true;
            output = "|";
          }
          push({
            type: "comma",
            value,
            output
          });
          continue;
        }
        if (value === "/") {
          if (prev.type === "dot" && state.index === state.start + 1) {
            state.start = state.index + 1;
            state.consumed = "";
            state.output = "";
            tokens.pop();
            prev = bos;
            continue;
          }
          push({
            type: "slash",
            value,
            output: SLASH_LITERAL
          });
          continue;
        }
        if (value === ".") {
          if (state.braces > 0 && prev.type === "dot") {
            if (prev.value === ".") prev.output = DOT_LITERAL;
            const brace = braces[braces.length - 1];
            prev.type = "dots";
            prev.output += value;
            prev.value += value;
            brace.dots = true;
            continue;
          }
          if (state.braces + state.parens === 0 && prev.type !== "bos" && prev.type !== "slash") {
            push({
              type: "text",
              value,
              output: DOT_LITERAL
            });
            continue;
          }
          push({
            type: "dot",
            value,
            output: DOT_LITERAL
          });
          continue;
        }
        if (value === "?") {
          const isGroup = prev && prev.value === "(";
          if (!isGroup && opts.noextglob !== true && peek() === "(" && peek(2) !== "?") {
            extglobOpen("qmark", value);
            continue;
          }
          if (prev && prev.type === "paren") {
            const next = peek();
            let output = value;
            if (prev.value === "(" && !/[!=<:]/.test(next) || next === "<" && !/<([!=]|\w+>)/.test(remaining())) {
              output = `\\${value}`;
            }
            push({
              type: "text",
              value,
              output
            });
            continue;
          }
          if (opts.dot !== true && (prev.type === "slash" || prev.type === "bos")) {
            push({
              type: "qmark",
              value,
              output: QMARK_NO_DOT
            });
            continue;
          }
          push({
            type: "qmark",
            value,
            output: QMARK
          });
          continue;
        }
        if (value === "!") {
          if (opts.noextglob !== true && peek() === "(") {
            if (peek(2) !== "?" || !/[!=<:]/.test(peek(3))) {
              extglobOpen("negate", value);
              continue;
            }
          }
          if (opts.nonegate !== true && state.index === 0) {
            negate();
            continue;
          }
        }
        if (value === "+") {
          if (opts.noextglob !== true && peek() === "(" && peek(2) !== "?") {
            extglobOpen("plus", value);
            continue;
          }
          if (prev && prev.value === "(" || opts.regex === false) {
            push({
              type: "plus",
              value,
              output: PLUS_LITERAL
            });
            continue;
          }
          if (prev && (prev.type === "bracket" || prev.type === "paren" || prev.type === "brace") || state.parens > 0) {
            push({
              type: "plus",
              value
            });
            continue;
          }
          push({
            type: "plus",
            value: PLUS_LITERAL
          });
          continue;
        }
        if (value === "@") {
          if (opts.noextglob !== true && peek() === "(" && peek(2) !== "?") {
            push({
              type: "at",
              extglob: true,
              value,
              output: ""
            });
            continue;
          }
          push({
            type: "text",
            value
          });
          continue;
        }
        if (value !== "*") {
          if (value === "$" || value === "^") {
            value = `\\${value}`;
          }
          const match = REGEX_NON_SPECIAL_CHARS.exec(remaining());
          if (match) {
            value += match[0];
            state.index += match[0].length;
          }
          push({
            type: "text",
            value
          });
          continue;
        }
        if (prev && (prev.type === "globstar" || prev.star === true)) {
          prev.type = "star";
          prev.star = true;
          prev.value += value;
          prev.output = star;
          state.backtrack = true;
          state.globstar = true;
          consume(value);
          continue;
        }
        let rest = remaining();
        if (opts.noextglob !== true && /^\([^?]/.test(rest)) {
          extglobOpen("star", value);
          continue;
        }
        if (prev.type === "star") {
          if (opts.noglobstar === true) {
            consume(value);
            continue;
          }
          const prior = prev.prev;
          const before = prior.prev;
          const isStart = prior.type === "slash" || prior.type === "bos";
          const afterStar = before && (before.type === "star" || before.type === "globstar");
          if (opts.bash === true && (!isStart || rest[0] && rest[0] !== "/")) {
            push({
              type: "star",
              value,
              output: ""
            });
            continue;
          }
          const isBrace = state.braces > 0 && (prior.type === "comma" || prior.type === "brace");
          const isExtglob = extglobs.length && (prior.type === "pipe" || prior.type === "paren");
          if (!isStart && prior.type !== "paren" && !isBrace && !isExtglob) {
            push({
              type: "star",
              value,
              output: ""
            });
            continue;
          }
          while (rest.slice(0, 3) === "/**") {
            const after = input[state.index + 4];
            if (after && after !== "/") {
              break;
            }
            rest = rest.slice(3);
            consume("/**", 3);
          }
          if (prior.type === "bos" && eos()) {
            prev.type = "globstar";
            prev.value += value;
            prev.output = globstar(opts);
            state.output = prev.output;
            state.globstar = true;
            consume(value);
            continue;
          }
          if (prior.type === "slash" && prior.prev.type !== "bos" && !afterStar && eos()) {
            state.output = state.output.slice(0, -(prior.output + prev.output).length);
            prior.output = `(?:${prior.output}`;
            prev.type = "globstar";
            prev.output = globstar(opts) + (opts.strictSlashes ? ")" : "|$)");
            prev.value += value;
            state.globstar = true;
            state.output += prior.output + prev.output;
            consume(value);
            continue;
          }
          if (prior.type === "slash" && prior.prev.type !== "bos" && rest[0] === "/") {
            const end = rest[1] !== void 0 ? "|$" : "";
            state.output = state.output.slice(0, -(prior.output + prev.output).length);
            prior.output = `(?:${prior.output}`;
            prev.type = "globstar";
            prev.output = `${globstar(opts)}${SLASH_LITERAL}|${SLASH_LITERAL}${end})`;
            prev.value += value;
            state.output += prior.output + prev.output;
            state.globstar = true;
            consume(value + advance());
            push({
              type: "slash",
              value: "/",
              output: ""
            });
            continue;
          }
          if (prior.type === "bos" && rest[0] === "/") {
            prev.type = "globstar";
            prev.value += value;
            prev.output = `(?:^|${SLASH_LITERAL}|${globstar(opts)}${SLASH_LITERAL})`;
            state.output = prev.output;
            state.globstar = true;
            consume(value + advance());
            push({
              type: "slash",
              value: "/",
              output: ""
            });
            continue;
          }
          state.output = state.output.slice(0, -prev.output.length);
          prev.type = "globstar";
          prev.output = globstar(opts);
          prev.value += value;
          state.output += prev.output;
          state.globstar = true;
          consume(value);
          continue;
        }
        const token = {
          type: "star",
          value,
          output: star
        };
        if (opts.bash === true) {
          token.output = ".*?";
          if (prev.type === "bos" || prev.type === "slash") {
            token.output = nodot + token.output;
          }
          push(token);
          continue;
        }
        if (prev && (prev.type === "bracket" || prev.type === "paren") && opts.regex === true) {
          token.output = value;
          push(token);
          continue;
        }
        if (state.index === state.start || prev.type === "slash" || prev.type === "dot") {
          if (prev.type === "dot") {
            state.output += NO_DOT_SLASH;
            prev.output += NO_DOT_SLASH;
          } else if (opts.dot === true) {
            state.output += NO_DOTS_SLASH;
            prev.output += NO_DOTS_SLASH;
          } else {
            state.output += nodot;
            prev.output += nodot;
          }
          if (peek() !== "*") {
            state.output += ONE_CHAR;
            prev.output += ONE_CHAR;
          }
        }
        push(token);
      }
      while (state.brackets > 0) {
        if (opts.strictBrackets === true) throw new SyntaxError(syntaxError("closing", "]"));
        state.output = utils.escapeLast(state.output, "[");
        decrement("brackets");
      }
      while (state.parens > 0) {
        if (opts.strictBrackets === true) throw new SyntaxError(syntaxError("closing", ")"));
        state.output = utils.escapeLast(state.output, "(");
        decrement("parens");
      }
      while (state.braces > 0) {
        if (opts.strictBrackets === true) throw new SyntaxError(syntaxError("closing", "}"));
        state.output = utils.escapeLast(state.output, "{");
        decrement("braces");
      }
      if (opts.strictSlashes !== true && (prev.type === "star" || prev.type === "bracket")) {
        push({
          type: "maybe_slash",
          value: "",
          output: `${SLASH_LITERAL}?`
        });
      }
      if (state.backtrack === true) {
        state.output = "";
        for (const token of state.tokens) {
          state.output += token.output != null ? token.output : token.value;
          if (token.suffix) {
            state.output += token.suffix;
          }
        }
      }
      return state;
    };
    parse.fastpaths = (input, options) => {
      const opts = {
        ...options
      };
      const max = typeof opts.maxLength === "number" ? Math.min(MAX_LENGTH, opts.maxLength) : MAX_LENGTH;
      const len = input.length;
      if (len > max) {
        throw new SyntaxError(`Input length: ${len}, exceeds maximum allowed length: ${max}`);
      }
      input = REPLACEMENTS[input] || input;
      const { DOT_LITERAL, SLASH_LITERAL, ONE_CHAR, DOTS_SLASH, NO_DOT, NO_DOTS, NO_DOTS_SLASH, STAR, START_ANCHOR } = constants.globChars(opts.windows);
      const nodot = opts.dot ? NO_DOTS : NO_DOT;
      const slashDot = opts.dot ? NO_DOTS_SLASH : NO_DOT;
      const capture = opts.capture ? "" : "?:";
      const state = {
        negated: false,
        prefix: ""
      };
      let star = opts.bash === true ? ".*?" : STAR;
      if (opts.capture) {
        star = `(${star})`;
      }
      const globstar = (opts2) => {
        if (opts2.noglobstar === true) return star;
        return `(${capture}(?:(?!${START_ANCHOR}${opts2.dot ? DOTS_SLASH : DOT_LITERAL}).)*?)`;
      };
      const create = (str) => {
        switch (str) {
          case "*":
            return `${nodot}${ONE_CHAR}${star}`;
          case ".*":
            return `${DOT_LITERAL}${ONE_CHAR}${star}`;
          case "*.*":
            return `${nodot}${star}${DOT_LITERAL}${ONE_CHAR}${star}`;
          case "*/*":
            return `${nodot}${star}${SLASH_LITERAL}${ONE_CHAR}${slashDot}${star}`;
          case "**":
            return nodot + globstar(opts);
          case "**/*":
            return `(?:${nodot}${globstar(opts)}${SLASH_LITERAL})?${slashDot}${ONE_CHAR}${star}`;
          case "**/*.*":
            return `(?:${nodot}${globstar(opts)}${SLASH_LITERAL})?${slashDot}${star}${DOT_LITERAL}${ONE_CHAR}${star}`;
          case "**/.*":
            return `(?:${nodot}${globstar(opts)}${SLASH_LITERAL})?${DOT_LITERAL}${ONE_CHAR}${star}`;
          default: {
            const match = /^(.*?)\.(\w+)$/.exec(str);
            if (!match) return;
            const source2 = create(match[1]);
            if (!source2) return;
            return source2 + DOT_LITERAL + match[2];
          }
        }
      };
      const output = utils.removePrefix(input, state);
      let source = create(output);
      if (source && opts.strictSlashes !== true) {
        source += `${SLASH_LITERAL}?`;
      }
      return source;
    };
    module.exports = parse;
  }
});

// npm:picomatch/4.0.3/lib/picomatch.js
var require_picomatch = __commonJS({
  "npm:picomatch/4.0.3/lib/picomatch.js"(exports, module) {
    "use strict";
    var scan = require_scan();
    var parse = require_parse();
    var utils = require_utils();
    var constants = require_constants();
    var isObject = (val) => val && typeof val === "object" && !Array.isArray(val);
    var picomatch2 = (glob, options, returnState = false) => {
      if (Array.isArray(glob)) {
        const fns = glob.map((input) => picomatch2(input, options, returnState));
        const arrayMatcher = (str) => {
          for (const isMatch of fns) {
            const state2 = isMatch(str);
            if (state2) return state2;
          }
          return false;
        };
        return arrayMatcher;
      }
      const isState = isObject(glob) && glob.tokens && glob.input;
      if (glob === "" || typeof glob !== "string" && !isState) {
        throw new TypeError("Expected pattern to be a non-empty string");
      }
      const opts = options || {};
      const posix = opts.windows;
      const regex = isState ? picomatch2.compileRe(glob, options) : picomatch2.makeRe(glob, options, false, true);
      const state = regex.state;
      delete regex.state;
      let isIgnored2 = () => false;
      if (opts.ignore) {
        const ignoreOpts = {
          ...options,
          ignore: null,
          onMatch: null,
          onResult: null
        };
        isIgnored2 = picomatch2(opts.ignore, ignoreOpts, returnState);
      }
      const matcher = (input, returnObject = false) => {
        const { isMatch, match, output } = picomatch2.test(input, regex, options, {
          glob,
          posix
        });
        const result = {
          glob,
          state,
          regex,
          posix,
          input,
          output,
          match,
          isMatch
        };
        if (typeof opts.onResult === "function") {
          opts.onResult(result);
        }
        if (isMatch === false) {
          result.isMatch = false;
          return returnObject ? result : false;
        }
        if (isIgnored2(input)) {
          if (typeof opts.onIgnore === "function") {
            opts.onIgnore(result);
          }
          result.isMatch = false;
          return returnObject ? result : false;
        }
        if (typeof opts.onMatch === "function") {
          opts.onMatch(result);
        }
        return returnObject ? result : true;
      };
      if (returnState) {
        matcher.state = state;
      }
      return matcher;
    };
    picomatch2.test = (input, regex, options, { glob, posix } = {}) => {
      if (typeof input !== "string") {
        throw new TypeError("Expected input to be a string");
      }
      if (input === "") {
        return {
          isMatch: false,
          output: ""
        };
      }
      const opts = options || {};
      const format = opts.format || (posix ? utils.toPosixSlashes : null);
      let match = input === glob;
      let output = match && format ? format(input) : input;
      if (match === false) {
        output = format ? format(input) : input;
        match = output === glob;
      }
      if (match === false || opts.capture === true) {
        if (opts.matchBase === true || opts.basename === true) {
          match = picomatch2.matchBase(input, regex, options, posix);
        } else {
          match = regex.exec(output);
        }
      }
      return {
        isMatch: Boolean(match),
        match,
        output
      };
    };
    picomatch2.matchBase = (input, glob, options) => {
      const regex = glob instanceof RegExp ? glob : picomatch2.makeRe(glob, options);
      return regex.test(utils.basename(input));
    };
    picomatch2.isMatch = (str, patterns, options) => picomatch2(patterns, options)(str);
    picomatch2.parse = (pattern, options) => {
      if (Array.isArray(pattern)) return pattern.map((p) => picomatch2.parse(p, options));
      return parse(pattern, {
        ...options,
        fastpaths: false
      });
    };
    picomatch2.scan = (input, options) => scan(input, options);
    picomatch2.compileRe = (state, options, returnOutput = false, returnState = false) => {
      if (returnOutput === true) {
        return state.output;
      }
      const opts = options || {};
      const prepend = opts.contains ? "" : "^";
      const append = opts.contains ? "" : "$";
      let source = `${prepend}(?:${state.output})${append}`;
      if (state && state.negated === true) {
        source = `^(?!${source}).*$`;
      }
      const regex = picomatch2.toRegex(source, options);
      if (returnState === true) {
        regex.state = state;
      }
      return regex;
    };
    picomatch2.makeRe = (input, options = {}, returnOutput = false, returnState = false) => {
      if (!input || typeof input !== "string") {
        throw new TypeError("Expected a non-empty string");
      }
      let parsed = {
        negated: false,
        fastpaths: true
      };
      if (options.fastpaths !== false && (input[0] === "." || input[0] === "*")) {
        parsed.output = parse.fastpaths(input, options);
      }
      if (!parsed.output) {
        parsed = parse(input, options);
      }
      return picomatch2.compileRe(parsed, options, returnOutput, returnState);
    };
    picomatch2.toRegex = (source, options) => {
      try {
        const opts = options || {};
        return new RegExp(source, opts.flags || (opts.nocase ? "i" : ""));
      } catch (err) {
        if (options && options.debug === true) throw err;
        return /$^/;
      }
    };
    picomatch2.constants = constants;
    module.exports = picomatch2;
  }
});

// npm:picomatch/4.0.3/index.js
var require__2 = __commonJS({
  "npm:picomatch/4.0.3/index.js"(exports, module) {
    "use strict";
    var pico = require_picomatch();
    var utils = require_utils();
    function picomatch2(glob, options, returnState = false) {
      if (options && (options.windows === null || options.windows === void 0)) {
        options = {
          ...options,
          windows: utils.isWindows()
        };
      }
      return pico(glob, options, returnState);
    }
    Object.assign(picomatch2, pico);
    module.exports = picomatch2;
  }
});

// npm:damerau-levenshtein/1.0.8/index.js
var require__3 = __commonJS({
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
        var relative5 = length === 0 ? 0 : steps / length;
        var similarity = 1 - relative5;
        return {
          steps,
          relative: relative5,
          similarity
        };
      }
    };
  }
});

// src/policy/_grant_typos.ts
import { basename as basename3, dirname as dirname5, join as join9 } from "node:path";
var import_damerau_levenshtein;
var init_grant_typos = __esm({
  "src/policy/_grant_typos.ts"() {
    import_damerau_levenshtein = __toESM(require__3());
  }
});

// src/policy/net_deny.ts
var init_net_deny = __esm({
  "src/policy/net_deny.ts"() {
  }
});

// src/policy/tool_env.ts
var init_tool_env = __esm({
  "src/policy/tool_env.ts"() {
  }
});

// src/policy/grants.ts
import { basename as basename4, dirname as dirname6, isAbsolute as isAbsolute4, join as join10, resolve as resolve3 } from "node:path";
var init_grants = __esm({
  "src/policy/grants.ts"() {
    init_home();
    init_grant_typos();
    init_net_deny();
    init_tool_env();
  }
});

// src/policy/grant_hints.ts
import { isAbsolute as isAbsolute5, relative as relative3 } from "node:path";
function flagWith(kind, grant, item, cwd) {
  const paths = kind === "read" || kind === "write";
  const shown = (p) => {
    if (!paths) return p;
    const rel = relative3(cwd, p);
    return rel === "" ? "." : rel === ".." || rel.startsWith("../") || isAbsolute5(rel) ? p : rel;
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
var init_grant_hints = __esm({
  "src/policy/grant_hints.ts"() {
  }
});

// src/policy/approve.ts
import { dirname as dirname7 } from "node:path";
var init_approve = __esm({
  "src/policy/approve.ts"() {
  }
});

// src/policy/check.ts
var init_check = __esm({
  "src/policy/check.ts"() {
    init_approve();
  }
});

// src/policy/_git_config.ts
import { dirname as dirname8, isAbsolute as isAbsolute6, join as join11, resolve as resolve4 } from "node:path";
var MAX_CONFIG_BYTES;
var init_git_config = __esm({
  "src/policy/_git_config.ts"() {
    MAX_CONFIG_BYTES = 1 << 20;
  }
});

// src/policy/_run_later.ts
function runLaterEntry(name) {
  return BY_NAME.get(name);
}
var AGENT, RUN_LATER, BY_NAME;
var init_run_later = __esm({
  "src/policy/_run_later.ts"() {
    AGENT = "whose hooks and MCP servers run outside the sandbox once the project is trusted";
    RUN_LATER = [
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
    BY_NAME = new Map(RUN_LATER.map((entry) => [
      entry.name,
      entry
    ]));
  }
});

// src/policy/_within.ts
function isWithin(p, base) {
  if (base === "/") return true;
  return p === base || p.startsWith(base + "/");
}
var init_within = __esm({
  "src/policy/_within.ts"() {
  }
});

// src/policy/protected.ts
import { basename as basename5, dirname as dirname9, isAbsolute as isAbsolute7, join as join12, resolve as resolve5 } from "node:path";
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
  const moat = join12(workspace, ".moat");
  return isWithin(path, moat) ? {
    path: moat,
    why: "moat_project"
  } : void 0;
}
function protectedDetail(protection, hit) {
  const why = hit.why in WHY ? WHY[hit.why] : runLaterEntry(basename5(hit.path))?.sentence ?? "it makes programs run outside the sandbox";
  return `"${hit.path}" is protected because ${why}; to allow it, add it to --allow-write (e.g. ${allowHint(protection, hit.path)})`;
}
function allowHint(protection, path) {
  const { allowAll, write } = protection.flags;
  return flagWith("write", {
    allowAll,
    current: write
  }, path, protection.workspace);
}
var WHY, GIT_PATTERN, MODULE_DATA;
var init_protected = __esm({
  "src/policy/protected.ts"() {
    init_git_config();
    init_run_later();
    init_within();
    init_grant_hints();
    init_grants();
    WHY = {
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
    GIT_PATTERN = /* @__PURE__ */ new Map([
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
    MODULE_DATA = /* @__PURE__ */ new Set([
      "refs",
      "logs",
      "objects",
      "info",
      "worktrees"
    ]);
  }
});

// src/policy/ops.ts
var init_ops = __esm({
  "src/policy/ops.ts"() {
  }
});

// src/policy/git_excludes.ts
import { dirname as dirname10, join as join13, relative as relative4, resolve as resolve6 } from "node:path";
var MAX_EXCLUDES_BYTES, MAX_CONFIG_BYTES2;
var init_git_excludes = __esm({
  "src/policy/git_excludes.ts"() {
    init_git_config();
    init_within();
    MAX_EXCLUDES_BYTES = 256 * 1024;
    MAX_CONFIG_BYTES2 = 1 << 20;
  }
});

// src/policy/mod.ts
var init_mod = __esm({
  "src/policy/mod.ts"() {
    init_grants();
    init_home();
    init_grant_hints();
    init_check();
    init_approve();
    init_protected();
    init_ops();
    init_net_deny();
    init_within();
    init_git_excludes();
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

// src/sys/process.ts
import { dirname as dirname2 } from "node:path";
var DEFAULT_PATH = "/usr/bin:/bin";
function childEnv(env) {
  return env.PATH === void 0 ? {
    ...env,
    PATH: DEFAULT_PATH
  } : {
    ...env
  };
}
function createDenoProcessOps() {
  return {
    spawn(program, args, options) {
      return spawnGroup(program, args, options);
    },
    async createSpillFile(path) {
      let file;
      try {
        await Deno.mkdir(dirname2(path), {
          recursive: true
        });
        file = await Deno.open(path, {
          write: true,
          createNew: true,
          mode: 384
        });
      } catch (e) {
        throw toFsError(e, path);
      }
      return denoSpillFile(path, file);
    }
  };
}
function spawnGroup(program, args, options) {
  const env = childEnv(options.env);
  let child;
  try {
    child = new Deno.Command(program, {
      args,
      cwd: options.cwd,
      env,
      clearEnv: true,
      // A new session: the child leads its own process group, so the group can be killed whole.
      detached: true,
      stdin: "null",
      stdout: "piped",
      stderr: "piped"
    }).spawn();
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) {
      return {
        ok: false,
        reason: "not_found",
        message: e.message
      };
    }
    if (e instanceof Deno.errors.NotCapable || e instanceof Deno.errors.PermissionDenied) {
      return {
        ok: false,
        reason: "permission_denied",
        message: e.message
      };
    }
    if (e instanceof Error) return {
      ok: false,
      reason: "failed",
      message: e.message
    };
    throw e;
  }
  const pid = child.pid;
  let exited = false;
  const status = child.status.then((s) => {
    exited = true;
    return s.signal !== null ? {
      code: null,
      signal: s.signal
    } : {
      code: s.code,
      signal: null
    };
  }, () => {
    exited = true;
    return {
      code: null,
      signal: null
    };
  });
  const handle = {
    pid,
    stdout: child.stdout,
    stderr: child.stderr,
    status,
    killGroup: () => killGroup(pid, {
      child,
      hasExited: () => exited,
      env
    })
  };
  return {
    ok: true,
    child: handle
  };
}
async function killGroup(pgid, options) {
  try {
    Deno.kill(-pgid, "SIGKILL");
    return;
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return;
    if (!(e instanceof Deno.errors.NotCapable || e instanceof Deno.errors.PermissionDenied)) {
      return;
    }
  }
  if (!options.hasExited()) {
    try {
      options.child.kill("SIGKILL");
    } catch (e) {
      if (!(e instanceof TypeError)) return;
    }
  }
  await killGroupWithBash(pgid, options.env);
}
async function killGroupWithBash(pgid, env) {
  try {
    const helper = new Deno.Command("bash", {
      args: [
        "-c",
        `kill -KILL -- -${pgid} 2>/dev/null; exit 0`
      ],
      env,
      clearEnv: true,
      stdin: "null",
      stdout: "null",
      stderr: "null"
    }).spawn();
    await helper.status;
  } catch (e) {
    if (!(e instanceof Error)) throw e;
  }
}
function denoSpillFile(path, file) {
  let closed = false;
  return {
    path,
    async write(bytes) {
      try {
        await writeAll(file, bytes);
      } catch (e) {
        throw toFsError(e, path);
      }
    },
    close() {
      if (closed) return Promise.resolve();
      closed = true;
      try {
        file.close();
      } catch (e) {
        return Promise.reject(toFsError(e, path));
      }
      return Promise.resolve();
    }
  };
}
function createProcessRegistry() {
  const live = /* @__PURE__ */ new Set();
  return {
    add(group) {
      live.add(group);
      return () => {
        live.delete(group);
      };
    },
    pids() {
      return [
        ...live
      ].map((g) => g.pid);
    },
    async killAll() {
      const groups = [
        ...live
      ];
      live.clear();
      await Promise.allSettled(groups.map((g) => g.killGroup()));
    }
  };
}

// npm:@sinclair/typebox/0.34.52/build/esm/type/guard/value.mjs
var value_exports = {};
__export(value_exports, {
  HasPropertyKey: () => HasPropertyKey,
  IsArray: () => IsArray,
  IsAsyncIterator: () => IsAsyncIterator,
  IsBigInt: () => IsBigInt,
  IsBoolean: () => IsBoolean,
  IsDate: () => IsDate,
  IsFunction: () => IsFunction,
  IsIterator: () => IsIterator,
  IsNull: () => IsNull,
  IsNumber: () => IsNumber,
  IsObject: () => IsObject,
  IsRegExp: () => IsRegExp,
  IsString: () => IsString,
  IsSymbol: () => IsSymbol,
  IsUint8Array: () => IsUint8Array,
  IsUndefined: () => IsUndefined
});
function HasPropertyKey(value, key) {
  return key in value;
}
function IsAsyncIterator(value) {
  return IsObject(value) && !IsArray(value) && !IsUint8Array(value) && Symbol.asyncIterator in value;
}
function IsArray(value) {
  return Array.isArray(value);
}
function IsBigInt(value) {
  return typeof value === "bigint";
}
function IsBoolean(value) {
  return typeof value === "boolean";
}
function IsDate(value) {
  return value instanceof globalThis.Date;
}
function IsFunction(value) {
  return typeof value === "function";
}
function IsIterator(value) {
  return IsObject(value) && !IsArray(value) && !IsUint8Array(value) && Symbol.iterator in value;
}
function IsNull(value) {
  return value === null;
}
function IsNumber(value) {
  return typeof value === "number";
}
function IsObject(value) {
  return typeof value === "object" && value !== null;
}
function IsRegExp(value) {
  return value instanceof globalThis.RegExp;
}
function IsString(value) {
  return typeof value === "string";
}
function IsSymbol(value) {
  return typeof value === "symbol";
}
function IsUint8Array(value) {
  return value instanceof globalThis.Uint8Array;
}
function IsUndefined(value) {
  return value === void 0;
}

// npm:@sinclair/typebox/0.34.52/build/esm/type/clone/value.mjs
function ArrayType(value) {
  return value.map((value2) => Visit(value2));
}
function DateType(value) {
  return new Date(value.getTime());
}
function Uint8ArrayType(value) {
  return new Uint8Array(value);
}
function RegExpType(value) {
  return new RegExp(value.source, value.flags);
}
function ObjectType(value) {
  const result = {};
  for (const key of Object.getOwnPropertyNames(value)) {
    result[key] = Visit(value[key]);
  }
  for (const key of Object.getOwnPropertySymbols(value)) {
    result[key] = Visit(value[key]);
  }
  return result;
}
function Visit(value) {
  return IsArray(value) ? ArrayType(value) : IsDate(value) ? DateType(value) : IsUint8Array(value) ? Uint8ArrayType(value) : IsRegExp(value) ? RegExpType(value) : IsObject(value) ? ObjectType(value) : value;
}
function Clone(value) {
  return Visit(value);
}

// npm:@sinclair/typebox/0.34.52/build/esm/type/clone/type.mjs
function CloneType(schema, options) {
  return options === void 0 ? Clone(schema) : Clone({
    ...options,
    ...schema
  });
}

// npm:@sinclair/typebox/0.34.52/build/esm/value/guard/guard.mjs
function IsObject2(value) {
  return value !== null && typeof value === "object";
}
function IsArray2(value) {
  return globalThis.Array.isArray(value) && !globalThis.ArrayBuffer.isView(value);
}
function IsUndefined2(value) {
  return value === void 0;
}
function IsNumber2(value) {
  return typeof value === "number";
}

// npm:@sinclair/typebox/0.34.52/build/esm/system/policy.mjs
var TypeSystemPolicy;
(function(TypeSystemPolicy2) {
  TypeSystemPolicy2.InstanceMode = "default";
  TypeSystemPolicy2.ExactOptionalPropertyTypes = false;
  TypeSystemPolicy2.AllowArrayObject = false;
  TypeSystemPolicy2.AllowNaN = false;
  TypeSystemPolicy2.AllowNullVoid = false;
  function IsExactOptionalProperty(value, key) {
    return TypeSystemPolicy2.ExactOptionalPropertyTypes ? key in value : value[key] !== void 0;
  }
  TypeSystemPolicy2.IsExactOptionalProperty = IsExactOptionalProperty;
  function IsObjectLike(value) {
    const isObject = IsObject2(value);
    return TypeSystemPolicy2.AllowArrayObject ? isObject : isObject && !IsArray2(value);
  }
  TypeSystemPolicy2.IsObjectLike = IsObjectLike;
  function IsRecordLike(value) {
    return IsObjectLike(value) && !(value instanceof Date) && !(value instanceof Uint8Array);
  }
  TypeSystemPolicy2.IsRecordLike = IsRecordLike;
  function IsNumberLike(value) {
    return TypeSystemPolicy2.AllowNaN ? IsNumber2(value) : Number.isFinite(value);
  }
  TypeSystemPolicy2.IsNumberLike = IsNumberLike;
  function IsVoidLike(value) {
    const isUndefined = IsUndefined2(value);
    return TypeSystemPolicy2.AllowNullVoid ? isUndefined || value === null : isUndefined;
  }
  TypeSystemPolicy2.IsVoidLike = IsVoidLike;
})(TypeSystemPolicy || (TypeSystemPolicy = {}));

// npm:@sinclair/typebox/0.34.52/build/esm/type/create/immutable.mjs
function ImmutableArray(value) {
  return globalThis.Object.freeze(value).map((value2) => Immutable(value2));
}
function ImmutableDate(value) {
  return value;
}
function ImmutableUint8Array(value) {
  return value;
}
function ImmutableRegExp(value) {
  return value;
}
function ImmutableObject(value) {
  const result = {};
  for (const key of Object.getOwnPropertyNames(value)) {
    result[key] = Immutable(value[key]);
  }
  for (const key of Object.getOwnPropertySymbols(value)) {
    result[key] = Immutable(value[key]);
  }
  return globalThis.Object.freeze(result);
}
function Immutable(value) {
  return IsArray(value) ? ImmutableArray(value) : IsDate(value) ? ImmutableDate(value) : IsUint8Array(value) ? ImmutableUint8Array(value) : IsRegExp(value) ? ImmutableRegExp(value) : IsObject(value) ? ImmutableObject(value) : value;
}

// npm:@sinclair/typebox/0.34.52/build/esm/type/create/type.mjs
function CreateType(schema, options) {
  const result = options !== void 0 ? {
    ...options,
    ...schema
  } : schema;
  switch (TypeSystemPolicy.InstanceMode) {
    case "freeze":
      return Immutable(result);
    case "clone":
      return Clone(result);
    default:
      return result;
  }
}

// npm:@sinclair/typebox/0.34.52/build/esm/type/error/error.mjs
var TypeBoxError = class extends Error {
  constructor(message) {
    super(message);
  }
};

// npm:@sinclair/typebox/0.34.52/build/esm/type/symbols/symbols.mjs
var TransformKind = Symbol.for("TypeBox.Transform");
var ReadonlyKind = Symbol.for("TypeBox.Readonly");
var OptionalKind = Symbol.for("TypeBox.Optional");
var Hint = Symbol.for("TypeBox.Hint");
var Kind = Symbol.for("TypeBox.Kind");

// npm:@sinclair/typebox/0.34.52/build/esm/type/guard/kind.mjs
function IsReadonly(value) {
  return IsObject(value) && value[ReadonlyKind] === "Readonly";
}
function IsOptional(value) {
  return IsObject(value) && value[OptionalKind] === "Optional";
}
function IsAny(value) {
  return IsKindOf(value, "Any");
}
function IsArgument(value) {
  return IsKindOf(value, "Argument");
}
function IsArray3(value) {
  return IsKindOf(value, "Array");
}
function IsAsyncIterator2(value) {
  return IsKindOf(value, "AsyncIterator");
}
function IsBigInt2(value) {
  return IsKindOf(value, "BigInt");
}
function IsBoolean2(value) {
  return IsKindOf(value, "Boolean");
}
function IsComputed(value) {
  return IsKindOf(value, "Computed");
}
function IsConstructor(value) {
  return IsKindOf(value, "Constructor");
}
function IsDate2(value) {
  return IsKindOf(value, "Date");
}
function IsFunction2(value) {
  return IsKindOf(value, "Function");
}
function IsInteger(value) {
  return IsKindOf(value, "Integer");
}
function IsIntersect(value) {
  return IsKindOf(value, "Intersect");
}
function IsIterator2(value) {
  return IsKindOf(value, "Iterator");
}
function IsKindOf(value, kind) {
  return IsObject(value) && Kind in value && value[Kind] === kind;
}
function IsLiteralValue(value) {
  return IsBoolean(value) || IsNumber(value) || IsString(value);
}
function IsLiteral(value) {
  return IsKindOf(value, "Literal");
}
function IsMappedKey(value) {
  return IsKindOf(value, "MappedKey");
}
function IsMappedResult(value) {
  return IsKindOf(value, "MappedResult");
}
function IsNever(value) {
  return IsKindOf(value, "Never");
}
function IsNot(value) {
  return IsKindOf(value, "Not");
}
function IsNull2(value) {
  return IsKindOf(value, "Null");
}
function IsNumber3(value) {
  return IsKindOf(value, "Number");
}
function IsObject3(value) {
  return IsKindOf(value, "Object");
}
function IsPromise(value) {
  return IsKindOf(value, "Promise");
}
function IsRecord(value) {
  return IsKindOf(value, "Record");
}
function IsRef(value) {
  return IsKindOf(value, "Ref");
}
function IsRegExp2(value) {
  return IsKindOf(value, "RegExp");
}
function IsString2(value) {
  return IsKindOf(value, "String");
}
function IsSymbol2(value) {
  return IsKindOf(value, "Symbol");
}
function IsTemplateLiteral(value) {
  return IsKindOf(value, "TemplateLiteral");
}
function IsThis(value) {
  return IsKindOf(value, "This");
}
function IsTransform(value) {
  return IsObject(value) && TransformKind in value;
}
function IsTuple(value) {
  return IsKindOf(value, "Tuple");
}
function IsUndefined3(value) {
  return IsKindOf(value, "Undefined");
}
function IsUnion(value) {
  return IsKindOf(value, "Union");
}
function IsUint8Array2(value) {
  return IsKindOf(value, "Uint8Array");
}
function IsUnknown(value) {
  return IsKindOf(value, "Unknown");
}
function IsUnsafe(value) {
  return IsKindOf(value, "Unsafe");
}
function IsVoid(value) {
  return IsKindOf(value, "Void");
}
function IsKind(value) {
  return IsObject(value) && Kind in value && IsString(value[Kind]);
}
function IsSchema(value) {
  return IsAny(value) || IsArgument(value) || IsArray3(value) || IsBoolean2(value) || IsBigInt2(value) || IsAsyncIterator2(value) || IsComputed(value) || IsConstructor(value) || IsDate2(value) || IsFunction2(value) || IsInteger(value) || IsIntersect(value) || IsIterator2(value) || IsLiteral(value) || IsMappedKey(value) || IsMappedResult(value) || IsNever(value) || IsNot(value) || IsNull2(value) || IsNumber3(value) || IsObject3(value) || IsPromise(value) || IsRecord(value) || IsRef(value) || IsRegExp2(value) || IsString2(value) || IsSymbol2(value) || IsTemplateLiteral(value) || IsThis(value) || IsTuple(value) || IsUndefined3(value) || IsUnion(value) || IsUint8Array2(value) || IsUnknown(value) || IsUnsafe(value) || IsVoid(value) || IsKind(value);
}

// npm:@sinclair/typebox/0.34.52/build/esm/type/guard/type.mjs
var type_exports = {};
__export(type_exports, {
  IsAny: () => IsAny2,
  IsArgument: () => IsArgument2,
  IsArray: () => IsArray4,
  IsAsyncIterator: () => IsAsyncIterator3,
  IsBigInt: () => IsBigInt3,
  IsBoolean: () => IsBoolean3,
  IsComputed: () => IsComputed2,
  IsConstructor: () => IsConstructor2,
  IsDate: () => IsDate3,
  IsFunction: () => IsFunction3,
  IsImport: () => IsImport,
  IsInteger: () => IsInteger2,
  IsIntersect: () => IsIntersect2,
  IsIterator: () => IsIterator3,
  IsKind: () => IsKind2,
  IsKindOf: () => IsKindOf2,
  IsLiteral: () => IsLiteral2,
  IsLiteralBoolean: () => IsLiteralBoolean,
  IsLiteralNumber: () => IsLiteralNumber,
  IsLiteralString: () => IsLiteralString,
  IsLiteralValue: () => IsLiteralValue2,
  IsMappedKey: () => IsMappedKey2,
  IsMappedResult: () => IsMappedResult2,
  IsNever: () => IsNever2,
  IsNot: () => IsNot2,
  IsNull: () => IsNull3,
  IsNumber: () => IsNumber4,
  IsObject: () => IsObject4,
  IsOptional: () => IsOptional2,
  IsPromise: () => IsPromise2,
  IsProperties: () => IsProperties,
  IsReadonly: () => IsReadonly2,
  IsRecord: () => IsRecord2,
  IsRecursive: () => IsRecursive,
  IsRef: () => IsRef2,
  IsRegExp: () => IsRegExp3,
  IsSchema: () => IsSchema2,
  IsString: () => IsString3,
  IsSymbol: () => IsSymbol3,
  IsTemplateLiteral: () => IsTemplateLiteral2,
  IsThis: () => IsThis2,
  IsTransform: () => IsTransform2,
  IsTuple: () => IsTuple2,
  IsUint8Array: () => IsUint8Array3,
  IsUndefined: () => IsUndefined4,
  IsUnion: () => IsUnion2,
  IsUnionLiteral: () => IsUnionLiteral,
  IsUnknown: () => IsUnknown2,
  IsUnsafe: () => IsUnsafe2,
  IsVoid: () => IsVoid2,
  TypeGuardUnknownTypeError: () => TypeGuardUnknownTypeError
});
var TypeGuardUnknownTypeError = class extends TypeBoxError {
};
var KnownTypes = [
  "Argument",
  "Any",
  "Array",
  "AsyncIterator",
  "BigInt",
  "Boolean",
  "Computed",
  "Constructor",
  "Date",
  "Enum",
  "Function",
  "Integer",
  "Intersect",
  "Iterator",
  "Literal",
  "MappedKey",
  "MappedResult",
  "Not",
  "Null",
  "Number",
  "Object",
  "Promise",
  "Record",
  "Ref",
  "RegExp",
  "String",
  "Symbol",
  "TemplateLiteral",
  "This",
  "Tuple",
  "Undefined",
  "Union",
  "Uint8Array",
  "Unknown",
  "Void"
];
function IsPattern(value) {
  try {
    new RegExp(value);
    return true;
  } catch {
    return false;
  }
}
function IsControlCharacterFree(value) {
  if (!IsString(value)) return false;
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code >= 7 && code <= 13 || code === 27 || code === 127) {
      return false;
    }
  }
  return true;
}
function IsAdditionalProperties(value) {
  return IsOptionalBoolean(value) || IsSchema2(value);
}
function IsOptionalBigInt(value) {
  return IsUndefined(value) || IsBigInt(value);
}
function IsOptionalNumber(value) {
  return IsUndefined(value) || IsNumber(value);
}
function IsOptionalBoolean(value) {
  return IsUndefined(value) || IsBoolean(value);
}
function IsOptionalString(value) {
  return IsUndefined(value) || IsString(value);
}
function IsOptionalPattern(value) {
  return IsUndefined(value) || IsString(value) && IsControlCharacterFree(value) && IsPattern(value);
}
function IsOptionalFormat(value) {
  return IsUndefined(value) || IsString(value) && IsControlCharacterFree(value);
}
function IsOptionalSchema(value) {
  return IsUndefined(value) || IsSchema2(value);
}
function IsReadonly2(value) {
  return IsObject(value) && value[ReadonlyKind] === "Readonly";
}
function IsOptional2(value) {
  return IsObject(value) && value[OptionalKind] === "Optional";
}
function IsAny2(value) {
  return IsKindOf2(value, "Any") && IsOptionalString(value.$id);
}
function IsArgument2(value) {
  return IsKindOf2(value, "Argument") && IsNumber(value.index);
}
function IsArray4(value) {
  return IsKindOf2(value, "Array") && value.type === "array" && IsOptionalString(value.$id) && IsSchema2(value.items) && IsOptionalNumber(value.minItems) && IsOptionalNumber(value.maxItems) && IsOptionalBoolean(value.uniqueItems) && IsOptionalSchema(value.contains) && IsOptionalNumber(value.minContains) && IsOptionalNumber(value.maxContains);
}
function IsAsyncIterator3(value) {
  return IsKindOf2(value, "AsyncIterator") && value.type === "AsyncIterator" && IsOptionalString(value.$id) && IsSchema2(value.items);
}
function IsBigInt3(value) {
  return IsKindOf2(value, "BigInt") && value.type === "bigint" && IsOptionalString(value.$id) && IsOptionalBigInt(value.exclusiveMaximum) && IsOptionalBigInt(value.exclusiveMinimum) && IsOptionalBigInt(value.maximum) && IsOptionalBigInt(value.minimum) && IsOptionalBigInt(value.multipleOf);
}
function IsBoolean3(value) {
  return IsKindOf2(value, "Boolean") && value.type === "boolean" && IsOptionalString(value.$id);
}
function IsComputed2(value) {
  return IsKindOf2(value, "Computed") && IsString(value.target) && IsArray(value.parameters) && value.parameters.every((schema) => IsSchema2(schema));
}
function IsConstructor2(value) {
  return IsKindOf2(value, "Constructor") && value.type === "Constructor" && IsOptionalString(value.$id) && IsArray(value.parameters) && value.parameters.every((schema) => IsSchema2(schema)) && IsSchema2(value.returns);
}
function IsDate3(value) {
  return IsKindOf2(value, "Date") && value.type === "Date" && IsOptionalString(value.$id) && IsOptionalNumber(value.exclusiveMaximumTimestamp) && IsOptionalNumber(value.exclusiveMinimumTimestamp) && IsOptionalNumber(value.maximumTimestamp) && IsOptionalNumber(value.minimumTimestamp) && IsOptionalNumber(value.multipleOfTimestamp);
}
function IsFunction3(value) {
  return IsKindOf2(value, "Function") && value.type === "Function" && IsOptionalString(value.$id) && IsArray(value.parameters) && value.parameters.every((schema) => IsSchema2(schema)) && IsSchema2(value.returns);
}
function IsImport(value) {
  return IsKindOf2(value, "Import") && HasPropertyKey(value, "$defs") && IsObject(value.$defs) && IsProperties(value.$defs) && HasPropertyKey(value, "$ref") && IsString(value.$ref) && value.$ref in value.$defs;
}
function IsInteger2(value) {
  return IsKindOf2(value, "Integer") && value.type === "integer" && IsOptionalString(value.$id) && IsOptionalNumber(value.exclusiveMaximum) && IsOptionalNumber(value.exclusiveMinimum) && IsOptionalNumber(value.maximum) && IsOptionalNumber(value.minimum) && IsOptionalNumber(value.multipleOf);
}
function IsProperties(value) {
  return IsObject(value) && Object.entries(value).every(([key, schema]) => IsControlCharacterFree(key) && IsSchema2(schema));
}
function IsIntersect2(value) {
  return IsKindOf2(value, "Intersect") && (IsString(value.type) && value.type !== "object" ? false : true) && IsArray(value.allOf) && value.allOf.every((schema) => IsSchema2(schema) && !IsTransform2(schema)) && IsOptionalString(value.type) && (IsOptionalBoolean(value.unevaluatedProperties) || IsOptionalSchema(value.unevaluatedProperties)) && IsOptionalString(value.$id);
}
function IsIterator3(value) {
  return IsKindOf2(value, "Iterator") && value.type === "Iterator" && IsOptionalString(value.$id) && IsSchema2(value.items);
}
function IsKindOf2(value, kind) {
  return IsObject(value) && Kind in value && value[Kind] === kind;
}
function IsLiteralString(value) {
  return IsLiteral2(value) && IsString(value.const);
}
function IsLiteralNumber(value) {
  return IsLiteral2(value) && IsNumber(value.const);
}
function IsLiteralBoolean(value) {
  return IsLiteral2(value) && IsBoolean(value.const);
}
function IsLiteral2(value) {
  return IsKindOf2(value, "Literal") && IsOptionalString(value.$id) && IsLiteralValue2(value.const);
}
function IsLiteralValue2(value) {
  return IsBoolean(value) || IsNumber(value) || IsString(value);
}
function IsMappedKey2(value) {
  return IsKindOf2(value, "MappedKey") && IsArray(value.keys) && value.keys.every((key) => IsNumber(key) || IsString(key));
}
function IsMappedResult2(value) {
  return IsKindOf2(value, "MappedResult") && IsProperties(value.properties);
}
function IsNever2(value) {
  return IsKindOf2(value, "Never") && IsObject(value.not) && Object.getOwnPropertyNames(value.not).length === 0;
}
function IsNot2(value) {
  return IsKindOf2(value, "Not") && IsSchema2(value.not);
}
function IsNull3(value) {
  return IsKindOf2(value, "Null") && value.type === "null" && IsOptionalString(value.$id);
}
function IsNumber4(value) {
  return IsKindOf2(value, "Number") && value.type === "number" && IsOptionalString(value.$id) && IsOptionalNumber(value.exclusiveMaximum) && IsOptionalNumber(value.exclusiveMinimum) && IsOptionalNumber(value.maximum) && IsOptionalNumber(value.minimum) && IsOptionalNumber(value.multipleOf);
}
function IsObject4(value) {
  return IsKindOf2(value, "Object") && value.type === "object" && IsOptionalString(value.$id) && IsProperties(value.properties) && IsAdditionalProperties(value.additionalProperties) && IsOptionalNumber(value.minProperties) && IsOptionalNumber(value.maxProperties);
}
function IsPromise2(value) {
  return IsKindOf2(value, "Promise") && value.type === "Promise" && IsOptionalString(value.$id) && IsSchema2(value.item);
}
function IsRecord2(value) {
  return IsKindOf2(value, "Record") && value.type === "object" && IsOptionalString(value.$id) && IsAdditionalProperties(value.additionalProperties) && IsObject(value.patternProperties) && ((schema) => {
    const keys = Object.getOwnPropertyNames(schema.patternProperties);
    return keys.length === 1 && IsPattern(keys[0]) && IsObject(schema.patternProperties) && IsSchema2(schema.patternProperties[keys[0]]);
  })(value);
}
function IsRecursive(value) {
  return IsObject(value) && Hint in value && value[Hint] === "Recursive";
}
function IsRef2(value) {
  return IsKindOf2(value, "Ref") && IsOptionalString(value.$id) && IsString(value.$ref);
}
function IsRegExp3(value) {
  return IsKindOf2(value, "RegExp") && IsOptionalString(value.$id) && IsString(value.source) && IsString(value.flags) && IsOptionalNumber(value.maxLength) && IsOptionalNumber(value.minLength);
}
function IsString3(value) {
  return IsKindOf2(value, "String") && value.type === "string" && IsOptionalString(value.$id) && IsOptionalNumber(value.minLength) && IsOptionalNumber(value.maxLength) && IsOptionalPattern(value.pattern) && IsOptionalFormat(value.format);
}
function IsSymbol3(value) {
  return IsKindOf2(value, "Symbol") && value.type === "symbol" && IsOptionalString(value.$id);
}
function IsTemplateLiteral2(value) {
  return IsKindOf2(value, "TemplateLiteral") && value.type === "string" && IsString(value.pattern) && value.pattern[0] === "^" && value.pattern[value.pattern.length - 1] === "$";
}
function IsThis2(value) {
  return IsKindOf2(value, "This") && IsOptionalString(value.$id) && IsString(value.$ref);
}
function IsTransform2(value) {
  return IsObject(value) && TransformKind in value;
}
function IsTuple2(value) {
  return IsKindOf2(value, "Tuple") && value.type === "array" && IsOptionalString(value.$id) && IsNumber(value.minItems) && IsNumber(value.maxItems) && value.minItems === value.maxItems && (IsUndefined(value.items) && IsUndefined(value.additionalItems) && value.minItems === 0 || IsArray(value.items) && value.items.every((schema) => IsSchema2(schema)));
}
function IsUndefined4(value) {
  return IsKindOf2(value, "Undefined") && value.type === "undefined" && IsOptionalString(value.$id);
}
function IsUnionLiteral(value) {
  return IsUnion2(value) && value.anyOf.every((schema) => IsLiteralString(schema) || IsLiteralNumber(schema));
}
function IsUnion2(value) {
  return IsKindOf2(value, "Union") && IsOptionalString(value.$id) && IsObject(value) && IsArray(value.anyOf) && value.anyOf.every((schema) => IsSchema2(schema));
}
function IsUint8Array3(value) {
  return IsKindOf2(value, "Uint8Array") && value.type === "Uint8Array" && IsOptionalString(value.$id) && IsOptionalNumber(value.minByteLength) && IsOptionalNumber(value.maxByteLength);
}
function IsUnknown2(value) {
  return IsKindOf2(value, "Unknown") && IsOptionalString(value.$id);
}
function IsUnsafe2(value) {
  return IsKindOf2(value, "Unsafe");
}
function IsVoid2(value) {
  return IsKindOf2(value, "Void") && value.type === "void" && IsOptionalString(value.$id);
}
function IsKind2(value) {
  return IsObject(value) && Kind in value && IsString(value[Kind]) && !KnownTypes.includes(value[Kind]);
}
function IsSchema2(value) {
  return IsObject(value) && (IsAny2(value) || IsArgument2(value) || IsArray4(value) || IsBoolean3(value) || IsBigInt3(value) || IsAsyncIterator3(value) || IsComputed2(value) || IsConstructor2(value) || IsDate3(value) || IsFunction3(value) || IsInteger2(value) || IsIntersect2(value) || IsIterator3(value) || IsLiteral2(value) || IsMappedKey2(value) || IsMappedResult2(value) || IsNever2(value) || IsNot2(value) || IsNull3(value) || IsNumber4(value) || IsObject4(value) || IsPromise2(value) || IsRecord2(value) || IsRef2(value) || IsRegExp3(value) || IsString3(value) || IsSymbol3(value) || IsTemplateLiteral2(value) || IsThis2(value) || IsTuple2(value) || IsUndefined4(value) || IsUnion2(value) || IsUint8Array3(value) || IsUnknown2(value) || IsUnsafe2(value) || IsVoid2(value) || IsKind2(value));
}

// npm:@sinclair/typebox/0.34.52/build/esm/type/patterns/patterns.mjs
var PatternBoolean = "(true|false)";
var PatternNumber = "(0|[1-9][0-9]*)";
var PatternString = "(.*)";
var PatternNever = "(?!.*)";
var PatternBooleanExact = `^${PatternBoolean}$`;
var PatternNumberExact = `^${PatternNumber}$`;
var PatternStringExact = `^${PatternString}$`;
var PatternNeverExact = `^${PatternNever}$`;

// npm:@sinclair/typebox/0.34.52/build/esm/type/sets/set.mjs
function SetIncludes(T, S) {
  return T.includes(S);
}
function SetDistinct(T) {
  return [
    ...new Set(T)
  ];
}
function SetIntersect(T, S) {
  return T.filter((L) => S.includes(L));
}
function SetIntersectManyResolve(T, Init) {
  return T.reduce((Acc, L) => {
    return SetIntersect(Acc, L);
  }, Init);
}
function SetIntersectMany(T) {
  return T.length === 1 ? T[0] : T.length > 1 ? SetIntersectManyResolve(T.slice(1), T[0]) : [];
}
function SetUnionMany(T) {
  const Acc = [];
  for (const L of T) Acc.push(...L);
  return Acc;
}

// npm:@sinclair/typebox/0.34.52/build/esm/type/any/any.mjs
function Any(options) {
  return CreateType({
    [Kind]: "Any"
  }, options);
}

// npm:@sinclair/typebox/0.34.52/build/esm/type/array/array.mjs
function Array2(items, options) {
  return CreateType({
    [Kind]: "Array",
    type: "array",
    items
  }, options);
}

// npm:@sinclair/typebox/0.34.52/build/esm/type/argument/argument.mjs
function Argument(index) {
  return CreateType({
    [Kind]: "Argument",
    index
  });
}

// npm:@sinclair/typebox/0.34.52/build/esm/type/async-iterator/async-iterator.mjs
function AsyncIterator(items, options) {
  return CreateType({
    [Kind]: "AsyncIterator",
    type: "AsyncIterator",
    items
  }, options);
}

// npm:@sinclair/typebox/0.34.52/build/esm/type/computed/computed.mjs
function Computed(target, parameters, options) {
  return CreateType({
    [Kind]: "Computed",
    target,
    parameters
  }, options);
}

// npm:@sinclair/typebox/0.34.52/build/esm/type/discard/discard.mjs
function DiscardKey(value, key) {
  const { [key]: _, ...rest } = value;
  return rest;
}
function Discard(value, keys) {
  return keys.reduce((acc, key) => DiscardKey(acc, key), value);
}

// npm:@sinclair/typebox/0.34.52/build/esm/type/never/never.mjs
function Never(options) {
  return CreateType({
    [Kind]: "Never",
    not: {}
  }, options);
}

// npm:@sinclair/typebox/0.34.52/build/esm/type/mapped/mapped-result.mjs
function MappedResult(properties) {
  return CreateType({
    [Kind]: "MappedResult",
    properties
  });
}

// npm:@sinclair/typebox/0.34.52/build/esm/type/constructor/constructor.mjs
function Constructor(parameters, returns, options) {
  return CreateType({
    [Kind]: "Constructor",
    type: "Constructor",
    parameters,
    returns
  }, options);
}

// npm:@sinclair/typebox/0.34.52/build/esm/type/function/function.mjs
function Function(parameters, returns, options) {
  return CreateType({
    [Kind]: "Function",
    type: "Function",
    parameters,
    returns
  }, options);
}

// npm:@sinclair/typebox/0.34.52/build/esm/type/union/union-create.mjs
function UnionCreate(T, options) {
  return CreateType({
    [Kind]: "Union",
    anyOf: T
  }, options);
}

// npm:@sinclair/typebox/0.34.52/build/esm/type/union/union-evaluated.mjs
function IsUnionOptional(types) {
  return types.some((type) => IsOptional(type));
}
function RemoveOptionalFromRest(types) {
  return types.map((left) => IsOptional(left) ? RemoveOptionalFromType(left) : left);
}
function RemoveOptionalFromType(T) {
  return Discard(T, [
    OptionalKind
  ]);
}
function ResolveUnion(types, options) {
  const isOptional = IsUnionOptional(types);
  return isOptional ? Optional(UnionCreate(RemoveOptionalFromRest(types), options)) : UnionCreate(RemoveOptionalFromRest(types), options);
}
function UnionEvaluated(T, options) {
  return T.length === 1 ? CreateType(T[0], options) : T.length === 0 ? Never(options) : ResolveUnion(T, options);
}

// npm:@sinclair/typebox/0.34.52/build/esm/type/union/union.mjs
function Union(types, options) {
  return types.length === 0 ? Never(options) : types.length === 1 ? CreateType(types[0], options) : UnionCreate(types, options);
}

// npm:@sinclair/typebox/0.34.52/build/esm/type/template-literal/parse.mjs
var TemplateLiteralParserError = class extends TypeBoxError {
};
function Unescape(pattern) {
  return pattern.replace(/\\\$/g, "$").replace(/\\\*/g, "*").replace(/\\\^/g, "^").replace(/\\\|/g, "|").replace(/\\\(/g, "(").replace(/\\\)/g, ")");
}
function IsNonEscaped(pattern, index, char) {
  return pattern[index] === char && pattern.charCodeAt(index - 1) !== 92;
}
function IsOpenParen(pattern, index) {
  return IsNonEscaped(pattern, index, "(");
}
function IsCloseParen(pattern, index) {
  return IsNonEscaped(pattern, index, ")");
}
function IsSeparator(pattern, index) {
  return IsNonEscaped(pattern, index, "|");
}
function IsGroup(pattern) {
  if (!(IsOpenParen(pattern, 0) && IsCloseParen(pattern, pattern.length - 1))) return false;
  let count = 0;
  for (let index = 0; index < pattern.length; index++) {
    if (IsOpenParen(pattern, index)) count += 1;
    if (IsCloseParen(pattern, index)) count -= 1;
    if (count === 0 && index !== pattern.length - 1) return false;
  }
  return true;
}
function InGroup(pattern) {
  return pattern.slice(1, pattern.length - 1);
}
function IsPrecedenceOr(pattern) {
  let count = 0;
  for (let index = 0; index < pattern.length; index++) {
    if (IsOpenParen(pattern, index)) count += 1;
    if (IsCloseParen(pattern, index)) count -= 1;
    if (IsSeparator(pattern, index) && count === 0) return true;
  }
  return false;
}
function IsPrecedenceAnd(pattern) {
  for (let index = 0; index < pattern.length; index++) {
    if (IsOpenParen(pattern, index)) return true;
  }
  return false;
}
function Or(pattern) {
  let [count, start] = [
    0,
    0
  ];
  const expressions = [];
  for (let index = 0; index < pattern.length; index++) {
    if (IsOpenParen(pattern, index)) count += 1;
    if (IsCloseParen(pattern, index)) count -= 1;
    if (IsSeparator(pattern, index) && count === 0) {
      const range2 = pattern.slice(start, index);
      if (range2.length > 0) expressions.push(TemplateLiteralParse(range2));
      start = index + 1;
    }
  }
  const range = pattern.slice(start);
  if (range.length > 0) expressions.push(TemplateLiteralParse(range));
  if (expressions.length === 0) return {
    type: "const",
    const: ""
  };
  if (expressions.length === 1) return expressions[0];
  return {
    type: "or",
    expr: expressions
  };
}
function And(pattern) {
  function Group(value, index) {
    if (!IsOpenParen(value, index)) throw new TemplateLiteralParserError(`TemplateLiteralParser: Index must point to open parens`);
    let count = 0;
    for (let scan = index; scan < value.length; scan++) {
      if (IsOpenParen(value, scan)) count += 1;
      if (IsCloseParen(value, scan)) count -= 1;
      if (count === 0) return [
        index,
        scan
      ];
    }
    throw new TemplateLiteralParserError(`TemplateLiteralParser: Unclosed group parens in expression`);
  }
  function Range(pattern2, index) {
    for (let scan = index; scan < pattern2.length; scan++) {
      if (IsOpenParen(pattern2, scan)) return [
        index,
        scan
      ];
    }
    return [
      index,
      pattern2.length
    ];
  }
  const expressions = [];
  for (let index = 0; index < pattern.length; index++) {
    if (IsOpenParen(pattern, index)) {
      const [start, end] = Group(pattern, index);
      const range = pattern.slice(start, end + 1);
      expressions.push(TemplateLiteralParse(range));
      index = end;
    } else {
      const [start, end] = Range(pattern, index);
      const range = pattern.slice(start, end);
      if (range.length > 0) expressions.push(TemplateLiteralParse(range));
      index = end - 1;
    }
  }
  return expressions.length === 0 ? {
    type: "const",
    const: ""
  } : expressions.length === 1 ? expressions[0] : {
    type: "and",
    expr: expressions
  };
}
function TemplateLiteralParse(pattern) {
  return IsGroup(pattern) ? TemplateLiteralParse(InGroup(pattern)) : IsPrecedenceOr(pattern) ? Or(pattern) : IsPrecedenceAnd(pattern) ? And(pattern) : {
    type: "const",
    const: Unescape(pattern)
  };
}
function TemplateLiteralParseExact(pattern) {
  return TemplateLiteralParse(pattern.slice(1, pattern.length - 1));
}

// npm:@sinclair/typebox/0.34.52/build/esm/type/template-literal/finite.mjs
var TemplateLiteralFiniteError = class extends TypeBoxError {
};
function IsNumberExpression(expression) {
  return expression.type === "or" && expression.expr.length === 2 && expression.expr[0].type === "const" && expression.expr[0].const === "0" && expression.expr[1].type === "const" && expression.expr[1].const === "[1-9][0-9]*";
}
function IsBooleanExpression(expression) {
  return expression.type === "or" && expression.expr.length === 2 && expression.expr[0].type === "const" && expression.expr[0].const === "true" && expression.expr[1].type === "const" && expression.expr[1].const === "false";
}
function IsStringExpression(expression) {
  return expression.type === "const" && expression.const === ".*";
}
function IsTemplateLiteralExpressionFinite(expression) {
  return IsNumberExpression(expression) || IsStringExpression(expression) ? false : IsBooleanExpression(expression) ? true : expression.type === "and" ? expression.expr.every((expr) => IsTemplateLiteralExpressionFinite(expr)) : expression.type === "or" ? expression.expr.every((expr) => IsTemplateLiteralExpressionFinite(expr)) : expression.type === "const" ? true : (() => {
    throw new TemplateLiteralFiniteError(`Unknown expression type`);
  })();
}
function IsTemplateLiteralFinite(schema) {
  const expression = TemplateLiteralParseExact(schema.pattern);
  return IsTemplateLiteralExpressionFinite(expression);
}

// npm:@sinclair/typebox/0.34.52/build/esm/type/template-literal/generate.mjs
var TemplateLiteralGenerateError = class extends TypeBoxError {
};
function* GenerateReduce(buffer) {
  if (buffer.length === 1) return yield* buffer[0];
  for (const left of buffer[0]) {
    for (const right of GenerateReduce(buffer.slice(1))) {
      yield `${left}${right}`;
    }
  }
}
function* GenerateAnd(expression) {
  return yield* GenerateReduce(expression.expr.map((expr) => [
    ...TemplateLiteralExpressionGenerate(expr)
  ]));
}
function* GenerateOr(expression) {
  for (const expr of expression.expr) yield* TemplateLiteralExpressionGenerate(expr);
}
function* GenerateConst(expression) {
  return yield expression.const;
}
function* TemplateLiteralExpressionGenerate(expression) {
  return expression.type === "and" ? yield* GenerateAnd(expression) : expression.type === "or" ? yield* GenerateOr(expression) : expression.type === "const" ? yield* GenerateConst(expression) : (() => {
    throw new TemplateLiteralGenerateError("Unknown expression");
  })();
}
function TemplateLiteralGenerate(schema) {
  const expression = TemplateLiteralParseExact(schema.pattern);
  return IsTemplateLiteralExpressionFinite(expression) ? [
    ...TemplateLiteralExpressionGenerate(expression)
  ] : [];
}

// npm:@sinclair/typebox/0.34.52/build/esm/type/literal/literal.mjs
function Literal(value, options) {
  return CreateType({
    [Kind]: "Literal",
    const: value,
    type: typeof value
  }, options);
}

// npm:@sinclair/typebox/0.34.52/build/esm/type/boolean/boolean.mjs
function Boolean2(options) {
  return CreateType({
    [Kind]: "Boolean",
    type: "boolean"
  }, options);
}

// npm:@sinclair/typebox/0.34.52/build/esm/type/bigint/bigint.mjs
function BigInt(options) {
  return CreateType({
    [Kind]: "BigInt",
    type: "bigint"
  }, options);
}

// npm:@sinclair/typebox/0.34.52/build/esm/type/number/number.mjs
function Number2(options) {
  return CreateType({
    [Kind]: "Number",
    type: "number"
  }, options);
}

// npm:@sinclair/typebox/0.34.52/build/esm/type/string/string.mjs
function String2(options) {
  return CreateType({
    [Kind]: "String",
    type: "string"
  }, options);
}

// npm:@sinclair/typebox/0.34.52/build/esm/type/template-literal/syntax.mjs
function* FromUnion(syntax) {
  const trim = syntax.trim().replace(/"|'/g, "");
  return trim === "boolean" ? yield Boolean2() : trim === "number" ? yield Number2() : trim === "bigint" ? yield BigInt() : trim === "string" ? yield String2() : yield (() => {
    const literals = trim.split("|").map((literal) => Literal(literal.trim()));
    return literals.length === 0 ? Never() : literals.length === 1 ? literals[0] : UnionEvaluated(literals);
  })();
}
function* FromTerminal(syntax) {
  if (syntax[1] !== "{") {
    const L = Literal("$");
    const R = FromSyntax(syntax.slice(1));
    return yield* [
      L,
      ...R
    ];
  }
  for (let i = 2; i < syntax.length; i++) {
    if (syntax[i] === "}") {
      const L = FromUnion(syntax.slice(2, i));
      const R = FromSyntax(syntax.slice(i + 1));
      return yield* [
        ...L,
        ...R
      ];
    }
  }
  yield Literal(syntax);
}
function* FromSyntax(syntax) {
  for (let i = 0; i < syntax.length; i++) {
    if (syntax[i] === "$") {
      const L = Literal(syntax.slice(0, i));
      const R = FromTerminal(syntax.slice(i));
      return yield* [
        L,
        ...R
      ];
    }
  }
  yield Literal(syntax);
}
function TemplateLiteralSyntax(syntax) {
  return [
    ...FromSyntax(syntax)
  ];
}

// npm:@sinclair/typebox/0.34.52/build/esm/type/template-literal/pattern.mjs
var TemplateLiteralPatternError = class extends TypeBoxError {
};
function Escape(value) {
  return value.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
function Visit2(schema, acc) {
  return IsTemplateLiteral(schema) ? schema.pattern.slice(1, schema.pattern.length - 1) : IsUnion(schema) ? `(${schema.anyOf.map((schema2) => Visit2(schema2, acc)).join("|")})` : IsNumber3(schema) ? `${acc}${PatternNumber}` : IsInteger(schema) ? `${acc}${PatternNumber}` : IsBigInt2(schema) ? `${acc}${PatternNumber}` : IsString2(schema) ? `${acc}${PatternString}` : IsLiteral(schema) ? `${acc}${Escape(schema.const.toString())}` : IsBoolean2(schema) ? `${acc}${PatternBoolean}` : (() => {
    throw new TemplateLiteralPatternError(`Unexpected Kind '${schema[Kind]}'`);
  })();
}
function TemplateLiteralPattern(kinds) {
  return `^${kinds.map((schema) => Visit2(schema, "")).join("")}$`;
}

// npm:@sinclair/typebox/0.34.52/build/esm/type/template-literal/union.mjs
function TemplateLiteralToUnion(schema) {
  const R = TemplateLiteralGenerate(schema);
  const L = R.map((S) => Literal(S));
  return UnionEvaluated(L);
}

// npm:@sinclair/typebox/0.34.52/build/esm/type/template-literal/template-literal.mjs
function TemplateLiteral(unresolved, options) {
  const pattern = IsString(unresolved) ? TemplateLiteralPattern(TemplateLiteralSyntax(unresolved)) : TemplateLiteralPattern(unresolved);
  return CreateType({
    [Kind]: "TemplateLiteral",
    type: "string",
    pattern
  }, options);
}

// npm:@sinclair/typebox/0.34.52/build/esm/type/indexed/indexed-property-keys.mjs
function FromTemplateLiteral(templateLiteral) {
  const keys = TemplateLiteralGenerate(templateLiteral);
  return keys.map((key) => key.toString());
}
function FromUnion2(types) {
  const result = [];
  for (const type of types) result.push(...IndexPropertyKeys(type));
  return result;
}
function FromLiteral(literalValue) {
  return [
    literalValue.toString()
  ];
}
function IndexPropertyKeys(type) {
  return [
    ...new Set(IsTemplateLiteral(type) ? FromTemplateLiteral(type) : IsUnion(type) ? FromUnion2(type.anyOf) : IsLiteral(type) ? FromLiteral(type.const) : IsNumber3(type) ? [
      "[number]"
    ] : IsInteger(type) ? [
      "[number]"
    ] : [])
  ];
}

// npm:@sinclair/typebox/0.34.52/build/esm/type/indexed/indexed-from-mapped-result.mjs
function FromProperties(type, properties, options) {
  const result = {};
  for (const K2 of Object.getOwnPropertyNames(properties)) {
    result[K2] = Index(type, IndexPropertyKeys(properties[K2]), options);
  }
  return result;
}
function FromMappedResult(type, mappedResult, options) {
  return FromProperties(type, mappedResult.properties, options);
}
function IndexFromMappedResult(type, mappedResult, options) {
  const properties = FromMappedResult(type, mappedResult, options);
  return MappedResult(properties);
}

// npm:@sinclair/typebox/0.34.52/build/esm/type/indexed/indexed.mjs
function FromRest(types, key) {
  return types.map((type) => IndexFromPropertyKey(type, key));
}
function FromIntersectRest(types) {
  return types.filter((type) => !IsNever(type));
}
function FromIntersect(types, key) {
  return IntersectEvaluated(FromIntersectRest(FromRest(types, key)));
}
function FromUnionRest(types) {
  return types.some((L) => IsNever(L)) ? [] : types;
}
function FromUnion3(types, key) {
  return UnionEvaluated(FromUnionRest(FromRest(types, key)));
}
function FromTuple(types, key) {
  return key in types ? types[key] : key === "[number]" ? UnionEvaluated(types) : Never();
}
function FromArray(type, key) {
  return key === "[number]" ? type : Never();
}
function FromProperty(properties, propertyKey) {
  return propertyKey in properties ? properties[propertyKey] : Never();
}
function IndexFromPropertyKey(type, propertyKey) {
  return IsIntersect(type) ? FromIntersect(type.allOf, propertyKey) : IsUnion(type) ? FromUnion3(type.anyOf, propertyKey) : IsTuple(type) ? FromTuple(type.items ?? [], propertyKey) : IsArray3(type) ? FromArray(type.items, propertyKey) : IsObject3(type) ? FromProperty(type.properties, propertyKey) : Never();
}
function IndexFromPropertyKeys(type, propertyKeys) {
  return propertyKeys.map((propertyKey) => IndexFromPropertyKey(type, propertyKey));
}
function FromSchema(type, propertyKeys) {
  return UnionEvaluated(IndexFromPropertyKeys(type, propertyKeys));
}
function Index(type, key, options) {
  if (IsRef(type) || IsRef(key)) {
    const error = `Index types using Ref parameters require both Type and Key to be of TSchema`;
    if (!IsSchema(type) || !IsSchema(key)) throw new TypeBoxError(error);
    return Computed("Index", [
      type,
      key
    ]);
  }
  if (IsMappedResult(key)) return IndexFromMappedResult(type, key, options);
  if (IsMappedKey(key)) return IndexFromMappedKey(type, key, options);
  return CreateType(IsSchema(key) ? FromSchema(type, IndexPropertyKeys(key)) : FromSchema(type, key), options);
}

// npm:@sinclair/typebox/0.34.52/build/esm/type/indexed/indexed-from-mapped-key.mjs
function MappedIndexPropertyKey(type, key, options) {
  return {
    [key]: Index(type, [
      key
    ], Clone(options))
  };
}
function MappedIndexPropertyKeys(type, propertyKeys, options) {
  return propertyKeys.reduce((result, left) => {
    return {
      ...result,
      ...MappedIndexPropertyKey(type, left, options)
    };
  }, {});
}
function MappedIndexProperties(type, mappedKey, options) {
  return MappedIndexPropertyKeys(type, mappedKey.keys, options);
}
function IndexFromMappedKey(type, mappedKey, options) {
  const properties = MappedIndexProperties(type, mappedKey, options);
  return MappedResult(properties);
}

// npm:@sinclair/typebox/0.34.52/build/esm/type/iterator/iterator.mjs
function Iterator(items, options) {
  return CreateType({
    [Kind]: "Iterator",
    type: "Iterator",
    items
  }, options);
}

// npm:@sinclair/typebox/0.34.52/build/esm/type/object/object.mjs
function RequiredArray(properties) {
  return globalThis.Object.keys(properties).filter((key) => !IsOptional(properties[key]));
}
function _Object_(properties, options) {
  const required = RequiredArray(properties);
  const schema = required.length > 0 ? {
    [Kind]: "Object",
    type: "object",
    required,
    properties
  } : {
    [Kind]: "Object",
    type: "object",
    properties
  };
  return CreateType(schema, options);
}
var Object2 = _Object_;

// npm:@sinclair/typebox/0.34.52/build/esm/type/promise/promise.mjs
function Promise2(item, options) {
  return CreateType({
    [Kind]: "Promise",
    type: "Promise",
    item
  }, options);
}

// npm:@sinclair/typebox/0.34.52/build/esm/type/readonly/readonly.mjs
function RemoveReadonly(schema) {
  return CreateType(Discard(schema, [
    ReadonlyKind
  ]));
}
function AddReadonly(schema) {
  return CreateType({
    ...schema,
    [ReadonlyKind]: "Readonly"
  });
}
function ReadonlyWithFlag(schema, F) {
  return F === false ? RemoveReadonly(schema) : AddReadonly(schema);
}
function Readonly(schema, enable) {
  const F = enable ?? true;
  return IsMappedResult(schema) ? ReadonlyFromMappedResult(schema, F) : ReadonlyWithFlag(schema, F);
}

// npm:@sinclair/typebox/0.34.52/build/esm/type/readonly/readonly-from-mapped-result.mjs
function FromProperties2(K, F) {
  const Acc = {};
  for (const K2 of globalThis.Object.getOwnPropertyNames(K)) Acc[K2] = Readonly(K[K2], F);
  return Acc;
}
function FromMappedResult2(R, F) {
  return FromProperties2(R.properties, F);
}
function ReadonlyFromMappedResult(R, F) {
  const P = FromMappedResult2(R, F);
  return MappedResult(P);
}

// npm:@sinclair/typebox/0.34.52/build/esm/type/tuple/tuple.mjs
function Tuple(types, options) {
  return CreateType(types.length > 0 ? {
    [Kind]: "Tuple",
    type: "array",
    items: types,
    additionalItems: false,
    minItems: types.length,
    maxItems: types.length
  } : {
    [Kind]: "Tuple",
    type: "array",
    minItems: types.length,
    maxItems: types.length
  }, options);
}

// npm:@sinclair/typebox/0.34.52/build/esm/type/mapped/mapped.mjs
function FromMappedResult3(K, P) {
  return K in P ? FromSchemaType(K, P[K]) : MappedResult(P);
}
function MappedKeyToKnownMappedResultProperties(K) {
  return {
    [K]: Literal(K)
  };
}
function MappedKeyToUnknownMappedResultProperties(P) {
  const Acc = {};
  for (const L of P) Acc[L] = Literal(L);
  return Acc;
}
function MappedKeyToMappedResultProperties(K, P) {
  return SetIncludes(P, K) ? MappedKeyToKnownMappedResultProperties(K) : MappedKeyToUnknownMappedResultProperties(P);
}
function FromMappedKey(K, P) {
  const R = MappedKeyToMappedResultProperties(K, P);
  return FromMappedResult3(K, R);
}
function FromRest2(K, T) {
  return T.map((L) => FromSchemaType(K, L));
}
function FromProperties3(K, T) {
  const Acc = {};
  for (const K2 of globalThis.Object.getOwnPropertyNames(T)) Acc[K2] = FromSchemaType(K, T[K2]);
  return Acc;
}
function FromSchemaType(K, T) {
  const options = {
    ...T
  };
  return (
    // unevaluated modifier types
    IsOptional(T) ? Optional(FromSchemaType(K, Discard(T, [
      OptionalKind
    ]))) : IsReadonly(T) ? Readonly(FromSchemaType(K, Discard(T, [
      ReadonlyKind
    ]))) : (
      // unevaluated mapped types
      IsMappedResult(T) ? FromMappedResult3(K, T.properties) : IsMappedKey(T) ? FromMappedKey(K, T.keys) : (
        // unevaluated types
        IsConstructor(T) ? Constructor(FromRest2(K, T.parameters), FromSchemaType(K, T.returns), options) : IsFunction2(T) ? Function(FromRest2(K, T.parameters), FromSchemaType(K, T.returns), options) : IsAsyncIterator2(T) ? AsyncIterator(FromSchemaType(K, T.items), options) : IsIterator2(T) ? Iterator(FromSchemaType(K, T.items), options) : IsIntersect(T) ? Intersect(FromRest2(K, T.allOf), options) : IsUnion(T) ? Union(FromRest2(K, T.anyOf), options) : IsTuple(T) ? Tuple(FromRest2(K, T.items ?? []), options) : IsObject3(T) ? Object2(FromProperties3(K, T.properties), options) : IsArray3(T) ? Array2(FromSchemaType(K, T.items), options) : IsPromise(T) ? Promise2(FromSchemaType(K, T.item), options) : T
      )
    )
  );
}
function MappedFunctionReturnType(K, T) {
  const Acc = {};
  for (const L of K) Acc[L] = FromSchemaType(L, T);
  return Acc;
}
function Mapped(key, map, options) {
  const K = IsSchema(key) ? IndexPropertyKeys(key) : key;
  const RT = map({
    [Kind]: "MappedKey",
    keys: K
  });
  const R = MappedFunctionReturnType(K, RT);
  return Object2(R, options);
}

// npm:@sinclair/typebox/0.34.52/build/esm/type/optional/optional.mjs
function RemoveOptional(schema) {
  return CreateType(Discard(schema, [
    OptionalKind
  ]));
}
function AddOptional(schema) {
  return CreateType({
    ...schema,
    [OptionalKind]: "Optional"
  });
}
function OptionalWithFlag(schema, F) {
  return F === false ? RemoveOptional(schema) : AddOptional(schema);
}
function Optional(schema, enable) {
  const F = enable ?? true;
  return IsMappedResult(schema) ? OptionalFromMappedResult(schema, F) : OptionalWithFlag(schema, F);
}

// npm:@sinclair/typebox/0.34.52/build/esm/type/optional/optional-from-mapped-result.mjs
function FromProperties4(P, F) {
  const Acc = {};
  for (const K2 of globalThis.Object.getOwnPropertyNames(P)) Acc[K2] = Optional(P[K2], F);
  return Acc;
}
function FromMappedResult4(R, F) {
  return FromProperties4(R.properties, F);
}
function OptionalFromMappedResult(R, F) {
  const P = FromMappedResult4(R, F);
  return MappedResult(P);
}

// npm:@sinclair/typebox/0.34.52/build/esm/type/intersect/intersect-create.mjs
function IntersectCreate(T, options = {}) {
  const allObjects = T.every((schema) => IsObject3(schema));
  const clonedUnevaluatedProperties = IsSchema(options.unevaluatedProperties) ? {
    unevaluatedProperties: options.unevaluatedProperties
  } : {};
  return CreateType(options.unevaluatedProperties === false || IsSchema(options.unevaluatedProperties) || allObjects ? {
    ...clonedUnevaluatedProperties,
    [Kind]: "Intersect",
    type: "object",
    allOf: T
  } : {
    ...clonedUnevaluatedProperties,
    [Kind]: "Intersect",
    allOf: T
  }, options);
}

// npm:@sinclair/typebox/0.34.52/build/esm/type/intersect/intersect-evaluated.mjs
function IsIntersectOptional(types) {
  return types.every((left) => IsOptional(left));
}
function RemoveOptionalFromType2(type) {
  return Discard(type, [
    OptionalKind
  ]);
}
function RemoveOptionalFromRest2(types) {
  return types.map((left) => IsOptional(left) ? RemoveOptionalFromType2(left) : left);
}
function ResolveIntersect(types, options) {
  return IsIntersectOptional(types) ? Optional(IntersectCreate(RemoveOptionalFromRest2(types), options)) : IntersectCreate(RemoveOptionalFromRest2(types), options);
}
function IntersectEvaluated(types, options = {}) {
  if (types.length === 1) return CreateType(types[0], options);
  if (types.length === 0) return Never(options);
  if (types.some((schema) => IsTransform(schema))) throw new Error("Cannot intersect transform types");
  return ResolveIntersect(types, options);
}

// npm:@sinclair/typebox/0.34.52/build/esm/type/intersect/intersect.mjs
function Intersect(types, options) {
  if (types.length === 1) return CreateType(types[0], options);
  if (types.length === 0) return Never(options);
  if (types.some((schema) => IsTransform(schema))) throw new Error("Cannot intersect transform types");
  return IntersectCreate(types, options);
}

// npm:@sinclair/typebox/0.34.52/build/esm/type/ref/ref.mjs
function Ref(...args) {
  const [$ref, options] = typeof args[0] === "string" ? [
    args[0],
    args[1]
  ] : [
    args[0].$id,
    args[1]
  ];
  if (typeof $ref !== "string") throw new TypeBoxError("Ref: $ref must be a string");
  return CreateType({
    [Kind]: "Ref",
    $ref
  }, options);
}

// npm:@sinclair/typebox/0.34.52/build/esm/type/awaited/awaited.mjs
function FromComputed(target, parameters) {
  return Computed("Awaited", [
    Computed(target, parameters)
  ]);
}
function FromRef($ref) {
  return Computed("Awaited", [
    Ref($ref)
  ]);
}
function FromIntersect2(types) {
  return Intersect(FromRest3(types));
}
function FromUnion4(types) {
  return Union(FromRest3(types));
}
function FromPromise(type) {
  return Awaited(type);
}
function FromRest3(types) {
  return types.map((type) => Awaited(type));
}
function Awaited(type, options) {
  return CreateType(IsComputed(type) ? FromComputed(type.target, type.parameters) : IsIntersect(type) ? FromIntersect2(type.allOf) : IsUnion(type) ? FromUnion4(type.anyOf) : IsPromise(type) ? FromPromise(type.item) : IsRef(type) ? FromRef(type.$ref) : type, options);
}

// npm:@sinclair/typebox/0.34.52/build/esm/type/keyof/keyof-property-keys.mjs
function FromRest4(types) {
  const result = [];
  for (const L of types) result.push(KeyOfPropertyKeys(L));
  return result;
}
function FromIntersect3(types) {
  const propertyKeysArray = FromRest4(types);
  const propertyKeys = SetUnionMany(propertyKeysArray);
  return propertyKeys;
}
function FromUnion5(types) {
  const propertyKeysArray = FromRest4(types);
  const propertyKeys = SetIntersectMany(propertyKeysArray);
  return propertyKeys;
}
function FromTuple2(types) {
  return types.map((_, indexer) => indexer.toString());
}
function FromArray2(_) {
  return [
    "[number]"
  ];
}
function FromProperties5(T) {
  return globalThis.Object.getOwnPropertyNames(T);
}
function FromPatternProperties(patternProperties) {
  if (!includePatternProperties) return [];
  const patternPropertyKeys = globalThis.Object.getOwnPropertyNames(patternProperties);
  return patternPropertyKeys.map((key) => {
    return key[0] === "^" && key[key.length - 1] === "$" ? key.slice(1, key.length - 1) : key;
  });
}
function KeyOfPropertyKeys(type) {
  return IsIntersect(type) ? FromIntersect3(type.allOf) : IsUnion(type) ? FromUnion5(type.anyOf) : IsTuple(type) ? FromTuple2(type.items ?? []) : IsArray3(type) ? FromArray2(type.items) : IsObject3(type) ? FromProperties5(type.properties) : IsRecord(type) ? FromPatternProperties(type.patternProperties) : [];
}
var includePatternProperties = false;

// npm:@sinclair/typebox/0.34.52/build/esm/type/keyof/keyof.mjs
function FromComputed2(target, parameters) {
  return Computed("KeyOf", [
    Computed(target, parameters)
  ]);
}
function FromRef2($ref) {
  return Computed("KeyOf", [
    Ref($ref)
  ]);
}
function KeyOfFromType(type, options) {
  const propertyKeys = KeyOfPropertyKeys(type);
  const propertyKeyTypes = KeyOfPropertyKeysToRest(propertyKeys);
  const result = UnionEvaluated(propertyKeyTypes);
  return CreateType(result, options);
}
function KeyOfPropertyKeysToRest(propertyKeys) {
  return propertyKeys.map((L) => L === "[number]" ? Number2() : Literal(L));
}
function KeyOf(type, options) {
  return IsComputed(type) ? FromComputed2(type.target, type.parameters) : IsRef(type) ? FromRef2(type.$ref) : IsMappedResult(type) ? KeyOfFromMappedResult(type, options) : KeyOfFromType(type, options);
}

// npm:@sinclair/typebox/0.34.52/build/esm/type/keyof/keyof-from-mapped-result.mjs
function FromProperties6(properties, options) {
  const result = {};
  for (const K2 of globalThis.Object.getOwnPropertyNames(properties)) result[K2] = KeyOf(properties[K2], Clone(options));
  return result;
}
function FromMappedResult5(mappedResult, options) {
  return FromProperties6(mappedResult.properties, options);
}
function KeyOfFromMappedResult(mappedResult, options) {
  const properties = FromMappedResult5(mappedResult, options);
  return MappedResult(properties);
}

// npm:@sinclair/typebox/0.34.52/build/esm/type/composite/composite.mjs
function CompositeKeys(T) {
  const Acc = [];
  for (const L of T) Acc.push(...KeyOfPropertyKeys(L));
  return SetDistinct(Acc);
}
function FilterNever(T) {
  return T.filter((L) => !IsNever(L));
}
function CompositeProperty(T, K) {
  const Acc = [];
  for (const L of T) Acc.push(...IndexFromPropertyKeys(L, [
    K
  ]));
  return FilterNever(Acc);
}
function CompositeProperties(T, K) {
  const Acc = {};
  for (const L of K) {
    Acc[L] = IntersectEvaluated(CompositeProperty(T, L));
  }
  return Acc;
}
function Composite(T, options) {
  const K = CompositeKeys(T);
  const P = CompositeProperties(T, K);
  const R = Object2(P, options);
  return R;
}

// npm:@sinclair/typebox/0.34.52/build/esm/type/date/date.mjs
function Date2(options) {
  return CreateType({
    [Kind]: "Date",
    type: "Date"
  }, options);
}

// npm:@sinclair/typebox/0.34.52/build/esm/type/null/null.mjs
function Null(options) {
  return CreateType({
    [Kind]: "Null",
    type: "null"
  }, options);
}

// npm:@sinclair/typebox/0.34.52/build/esm/type/symbol/symbol.mjs
function Symbol2(options) {
  return CreateType({
    [Kind]: "Symbol",
    type: "symbol"
  }, options);
}

// npm:@sinclair/typebox/0.34.52/build/esm/type/undefined/undefined.mjs
function Undefined(options) {
  return CreateType({
    [Kind]: "Undefined",
    type: "undefined"
  }, options);
}

// npm:@sinclair/typebox/0.34.52/build/esm/type/uint8array/uint8array.mjs
function Uint8Array2(options) {
  return CreateType({
    [Kind]: "Uint8Array",
    type: "Uint8Array"
  }, options);
}

// npm:@sinclair/typebox/0.34.52/build/esm/type/unknown/unknown.mjs
function Unknown(options) {
  return CreateType({
    [Kind]: "Unknown"
  }, options);
}

// npm:@sinclair/typebox/0.34.52/build/esm/type/const/const.mjs
function FromArray3(T) {
  return T.map((L) => FromValue(L, false));
}
function FromProperties7(value) {
  const Acc = {};
  for (const K of globalThis.Object.getOwnPropertyNames(value)) Acc[K] = Readonly(FromValue(value[K], false));
  return Acc;
}
function ConditionalReadonly(T, root) {
  return root === true ? T : Readonly(T);
}
function FromValue(value, root) {
  return IsAsyncIterator(value) ? ConditionalReadonly(Any(), root) : IsIterator(value) ? ConditionalReadonly(Any(), root) : IsArray(value) ? Readonly(Tuple(FromArray3(value))) : IsUint8Array(value) ? Uint8Array2() : IsDate(value) ? Date2() : IsObject(value) ? ConditionalReadonly(Object2(FromProperties7(value)), root) : IsFunction(value) ? ConditionalReadonly(Function([], Unknown()), root) : IsUndefined(value) ? Undefined() : IsNull(value) ? Null() : IsSymbol(value) ? Symbol2() : IsBigInt(value) ? BigInt() : IsNumber(value) ? Literal(value) : IsBoolean(value) ? Literal(value) : IsString(value) ? Literal(value) : Object2({});
}
function Const(T, options) {
  return CreateType(FromValue(T, true), options);
}

// npm:@sinclair/typebox/0.34.52/build/esm/type/constructor-parameters/constructor-parameters.mjs
function ConstructorParameters(schema, options) {
  return IsConstructor(schema) ? Tuple(schema.parameters, options) : Never(options);
}

// npm:@sinclair/typebox/0.34.52/build/esm/type/enum/enum.mjs
function Enum(item, options) {
  if (IsUndefined(item)) throw new Error("Enum undefined or empty");
  const values1 = globalThis.Object.getOwnPropertyNames(item).filter((key) => isNaN(key)).map((key) => item[key]);
  const values2 = [
    ...new Set(values1)
  ];
  const anyOf = values2.map((value) => Literal(value));
  return Union(anyOf, {
    ...options,
    [Hint]: "Enum"
  });
}

// npm:@sinclair/typebox/0.34.52/build/esm/type/extends/extends-check.mjs
var ExtendsResolverError = class extends TypeBoxError {
};
var ExtendsResult;
(function(ExtendsResult2) {
  ExtendsResult2[ExtendsResult2["Union"] = 0] = "Union";
  ExtendsResult2[ExtendsResult2["True"] = 1] = "True";
  ExtendsResult2[ExtendsResult2["False"] = 2] = "False";
})(ExtendsResult || (ExtendsResult = {}));
function IntoBooleanResult(result) {
  return result === ExtendsResult.False ? result : ExtendsResult.True;
}
function Throw(message) {
  throw new ExtendsResolverError(message);
}
function IsStructuralRight(right) {
  return type_exports.IsNever(right) || type_exports.IsIntersect(right) || type_exports.IsUnion(right) || type_exports.IsUnknown(right) || type_exports.IsAny(right);
}
function StructuralRight(left, right) {
  return type_exports.IsNever(right) ? FromNeverRight(left, right) : type_exports.IsIntersect(right) ? FromIntersectRight(left, right) : type_exports.IsUnion(right) ? FromUnionRight(left, right) : type_exports.IsUnknown(right) ? FromUnknownRight(left, right) : type_exports.IsAny(right) ? FromAnyRight(left, right) : Throw("StructuralRight");
}
function FromAnyRight(left, right) {
  return ExtendsResult.True;
}
function FromAny(left, right) {
  return type_exports.IsIntersect(right) ? FromIntersectRight(left, right) : type_exports.IsUnion(right) && right.anyOf.some((schema) => type_exports.IsAny(schema) || type_exports.IsUnknown(schema)) ? ExtendsResult.True : type_exports.IsUnion(right) ? ExtendsResult.Union : type_exports.IsUnknown(right) ? ExtendsResult.True : type_exports.IsAny(right) ? ExtendsResult.True : ExtendsResult.Union;
}
function FromArrayRight(left, right) {
  return type_exports.IsUnknown(left) ? ExtendsResult.False : type_exports.IsAny(left) ? ExtendsResult.Union : type_exports.IsNever(left) ? ExtendsResult.True : ExtendsResult.False;
}
function FromArray4(left, right) {
  return type_exports.IsObject(right) && IsObjectArrayLike(right) ? ExtendsResult.True : IsStructuralRight(right) ? StructuralRight(left, right) : !type_exports.IsArray(right) ? ExtendsResult.False : IntoBooleanResult(Visit3(left.items, right.items));
}
function FromAsyncIterator(left, right) {
  return IsStructuralRight(right) ? StructuralRight(left, right) : !type_exports.IsAsyncIterator(right) ? ExtendsResult.False : IntoBooleanResult(Visit3(left.items, right.items));
}
function FromBigInt(left, right) {
  return IsStructuralRight(right) ? StructuralRight(left, right) : type_exports.IsObject(right) ? FromObjectRight(left, right) : type_exports.IsRecord(right) ? FromRecordRight(left, right) : type_exports.IsBigInt(right) ? ExtendsResult.True : ExtendsResult.False;
}
function FromBooleanRight(left, right) {
  return type_exports.IsLiteralBoolean(left) ? ExtendsResult.True : type_exports.IsBoolean(left) ? ExtendsResult.True : ExtendsResult.False;
}
function FromBoolean(left, right) {
  return IsStructuralRight(right) ? StructuralRight(left, right) : type_exports.IsObject(right) ? FromObjectRight(left, right) : type_exports.IsRecord(right) ? FromRecordRight(left, right) : type_exports.IsBoolean(right) ? ExtendsResult.True : ExtendsResult.False;
}
function FromConstructor(left, right) {
  return IsStructuralRight(right) ? StructuralRight(left, right) : type_exports.IsObject(right) ? FromObjectRight(left, right) : !type_exports.IsConstructor(right) ? ExtendsResult.False : left.parameters.length > right.parameters.length ? ExtendsResult.False : !left.parameters.every((schema, index) => IntoBooleanResult(Visit3(right.parameters[index], schema)) === ExtendsResult.True) ? ExtendsResult.False : IntoBooleanResult(Visit3(left.returns, right.returns));
}
function FromDate(left, right) {
  return IsStructuralRight(right) ? StructuralRight(left, right) : type_exports.IsObject(right) ? FromObjectRight(left, right) : type_exports.IsRecord(right) ? FromRecordRight(left, right) : type_exports.IsDate(right) ? ExtendsResult.True : ExtendsResult.False;
}
function FromFunction(left, right) {
  return IsStructuralRight(right) ? StructuralRight(left, right) : type_exports.IsObject(right) ? FromObjectRight(left, right) : !type_exports.IsFunction(right) ? ExtendsResult.False : left.parameters.length > right.parameters.length ? ExtendsResult.False : !left.parameters.every((schema, index) => IntoBooleanResult(Visit3(right.parameters[index], schema)) === ExtendsResult.True) ? ExtendsResult.False : IntoBooleanResult(Visit3(left.returns, right.returns));
}
function FromIntegerRight(left, right) {
  return type_exports.IsLiteral(left) && value_exports.IsNumber(left.const) ? ExtendsResult.True : type_exports.IsNumber(left) || type_exports.IsInteger(left) ? ExtendsResult.True : ExtendsResult.False;
}
function FromInteger(left, right) {
  return type_exports.IsInteger(right) || type_exports.IsNumber(right) ? ExtendsResult.True : IsStructuralRight(right) ? StructuralRight(left, right) : type_exports.IsObject(right) ? FromObjectRight(left, right) : type_exports.IsRecord(right) ? FromRecordRight(left, right) : ExtendsResult.False;
}
function FromIntersectRight(left, right) {
  return right.allOf.every((schema) => Visit3(left, schema) === ExtendsResult.True) ? ExtendsResult.True : ExtendsResult.False;
}
function FromIntersect4(left, right) {
  return left.allOf.some((schema) => Visit3(schema, right) === ExtendsResult.True) ? ExtendsResult.True : ExtendsResult.False;
}
function FromIterator(left, right) {
  return IsStructuralRight(right) ? StructuralRight(left, right) : !type_exports.IsIterator(right) ? ExtendsResult.False : IntoBooleanResult(Visit3(left.items, right.items));
}
function FromLiteral2(left, right) {
  return type_exports.IsLiteral(right) && right.const === left.const ? ExtendsResult.True : IsStructuralRight(right) ? StructuralRight(left, right) : type_exports.IsObject(right) ? FromObjectRight(left, right) : type_exports.IsRecord(right) ? FromRecordRight(left, right) : type_exports.IsString(right) ? FromStringRight(left, right) : type_exports.IsNumber(right) ? FromNumberRight(left, right) : type_exports.IsInteger(right) ? FromIntegerRight(left, right) : type_exports.IsBoolean(right) ? FromBooleanRight(left, right) : ExtendsResult.False;
}
function FromNeverRight(left, right) {
  return ExtendsResult.False;
}
function FromNever(left, right) {
  return ExtendsResult.True;
}
function UnwrapTNot(schema) {
  let [current, depth] = [
    schema,
    0
  ];
  while (true) {
    if (!type_exports.IsNot(current)) break;
    current = current.not;
    depth += 1;
  }
  return depth % 2 === 0 ? current : Unknown();
}
function FromNot(left, right) {
  return type_exports.IsNot(left) ? Visit3(UnwrapTNot(left), right) : type_exports.IsNot(right) ? Visit3(left, UnwrapTNot(right)) : Throw("Invalid fallthrough for Not");
}
function FromNull(left, right) {
  return IsStructuralRight(right) ? StructuralRight(left, right) : type_exports.IsObject(right) ? FromObjectRight(left, right) : type_exports.IsRecord(right) ? FromRecordRight(left, right) : type_exports.IsNull(right) ? ExtendsResult.True : ExtendsResult.False;
}
function FromNumberRight(left, right) {
  return type_exports.IsLiteralNumber(left) ? ExtendsResult.True : type_exports.IsNumber(left) || type_exports.IsInteger(left) ? ExtendsResult.True : ExtendsResult.False;
}
function FromNumber(left, right) {
  return IsStructuralRight(right) ? StructuralRight(left, right) : type_exports.IsObject(right) ? FromObjectRight(left, right) : type_exports.IsRecord(right) ? FromRecordRight(left, right) : type_exports.IsInteger(right) || type_exports.IsNumber(right) ? ExtendsResult.True : ExtendsResult.False;
}
function IsObjectPropertyCount(schema, count) {
  return Object.getOwnPropertyNames(schema.properties).length === count;
}
function IsObjectStringLike(schema) {
  return IsObjectArrayLike(schema);
}
function IsObjectSymbolLike(schema) {
  return IsObjectPropertyCount(schema, 0) || IsObjectPropertyCount(schema, 1) && "description" in schema.properties && type_exports.IsUnion(schema.properties.description) && schema.properties.description.anyOf.length === 2 && (type_exports.IsString(schema.properties.description.anyOf[0]) && type_exports.IsUndefined(schema.properties.description.anyOf[1]) || type_exports.IsString(schema.properties.description.anyOf[1]) && type_exports.IsUndefined(schema.properties.description.anyOf[0]));
}
function IsObjectNumberLike(schema) {
  return IsObjectPropertyCount(schema, 0);
}
function IsObjectBooleanLike(schema) {
  return IsObjectPropertyCount(schema, 0);
}
function IsObjectBigIntLike(schema) {
  return IsObjectPropertyCount(schema, 0);
}
function IsObjectDateLike(schema) {
  return IsObjectPropertyCount(schema, 0);
}
function IsObjectUint8ArrayLike(schema) {
  return IsObjectArrayLike(schema);
}
function IsObjectFunctionLike(schema) {
  const length = Number2();
  return IsObjectPropertyCount(schema, 0) || IsObjectPropertyCount(schema, 1) && "length" in schema.properties && IntoBooleanResult(Visit3(schema.properties["length"], length)) === ExtendsResult.True;
}
function IsObjectConstructorLike(schema) {
  return IsObjectPropertyCount(schema, 0);
}
function IsObjectArrayLike(schema) {
  const length = Number2();
  return IsObjectPropertyCount(schema, 0) || IsObjectPropertyCount(schema, 1) && "length" in schema.properties && IntoBooleanResult(Visit3(schema.properties["length"], length)) === ExtendsResult.True;
}
function IsObjectPromiseLike(schema) {
  const then = Function([
    Any()
  ], Any());
  return IsObjectPropertyCount(schema, 0) || IsObjectPropertyCount(schema, 1) && "then" in schema.properties && IntoBooleanResult(Visit3(schema.properties["then"], then)) === ExtendsResult.True;
}
function Property(left, right) {
  return Visit3(left, right) === ExtendsResult.False ? ExtendsResult.False : type_exports.IsOptional(left) && !type_exports.IsOptional(right) ? ExtendsResult.False : ExtendsResult.True;
}
function FromObjectRight(left, right) {
  return type_exports.IsUnknown(left) ? ExtendsResult.False : type_exports.IsAny(left) ? ExtendsResult.Union : type_exports.IsNever(left) || type_exports.IsLiteralString(left) && IsObjectStringLike(right) || type_exports.IsLiteralNumber(left) && IsObjectNumberLike(right) || type_exports.IsLiteralBoolean(left) && IsObjectBooleanLike(right) || type_exports.IsSymbol(left) && IsObjectSymbolLike(right) || type_exports.IsBigInt(left) && IsObjectBigIntLike(right) || type_exports.IsString(left) && IsObjectStringLike(right) || type_exports.IsSymbol(left) && IsObjectSymbolLike(right) || type_exports.IsNumber(left) && IsObjectNumberLike(right) || type_exports.IsInteger(left) && IsObjectNumberLike(right) || type_exports.IsBoolean(left) && IsObjectBooleanLike(right) || type_exports.IsUint8Array(left) && IsObjectUint8ArrayLike(right) || type_exports.IsDate(left) && IsObjectDateLike(right) || type_exports.IsConstructor(left) && IsObjectConstructorLike(right) || type_exports.IsFunction(left) && IsObjectFunctionLike(right) ? ExtendsResult.True : type_exports.IsRecord(left) && type_exports.IsString(RecordKey(left)) ? (() => {
    return right[Hint] === "Record" ? ExtendsResult.True : ExtendsResult.False;
  })() : type_exports.IsRecord(left) && type_exports.IsNumber(RecordKey(left)) ? (() => {
    return IsObjectPropertyCount(right, 0) ? ExtendsResult.True : ExtendsResult.False;
  })() : ExtendsResult.False;
}
function FromObject(left, right) {
  return IsStructuralRight(right) ? StructuralRight(left, right) : type_exports.IsRecord(right) ? FromRecordRight(left, right) : !type_exports.IsObject(right) ? ExtendsResult.False : (() => {
    for (const key of Object.getOwnPropertyNames(right.properties)) {
      if (!(key in left.properties) && !type_exports.IsOptional(right.properties[key])) {
        return ExtendsResult.False;
      }
      if (type_exports.IsOptional(right.properties[key])) {
        return ExtendsResult.True;
      }
      if (Property(left.properties[key], right.properties[key]) === ExtendsResult.False) {
        return ExtendsResult.False;
      }
    }
    return ExtendsResult.True;
  })();
}
function FromPromise2(left, right) {
  return IsStructuralRight(right) ? StructuralRight(left, right) : type_exports.IsObject(right) && IsObjectPromiseLike(right) ? ExtendsResult.True : !type_exports.IsPromise(right) ? ExtendsResult.False : IntoBooleanResult(Visit3(left.item, right.item));
}
function RecordKey(schema) {
  return PatternNumberExact in schema.patternProperties ? Number2() : PatternStringExact in schema.patternProperties ? String2() : Throw("Unknown record key pattern");
}
function RecordValue(schema) {
  return PatternNumberExact in schema.patternProperties ? schema.patternProperties[PatternNumberExact] : PatternStringExact in schema.patternProperties ? schema.patternProperties[PatternStringExact] : Throw("Unable to get record value schema");
}
function FromRecordRight(left, right) {
  const [Key, Value] = [
    RecordKey(right),
    RecordValue(right)
  ];
  return type_exports.IsLiteralString(left) && type_exports.IsNumber(Key) && IntoBooleanResult(Visit3(left, Value)) === ExtendsResult.True ? ExtendsResult.True : type_exports.IsUint8Array(left) && type_exports.IsNumber(Key) ? Visit3(left, Value) : type_exports.IsString(left) && type_exports.IsNumber(Key) ? Visit3(left, Value) : type_exports.IsArray(left) && type_exports.IsNumber(Key) ? Visit3(left, Value) : type_exports.IsObject(left) ? (() => {
    for (const key of Object.getOwnPropertyNames(left.properties)) {
      if (Property(Value, left.properties[key]) === ExtendsResult.False) {
        return ExtendsResult.False;
      }
    }
    return ExtendsResult.True;
  })() : ExtendsResult.False;
}
function FromRecord(left, right) {
  return IsStructuralRight(right) ? StructuralRight(left, right) : type_exports.IsObject(right) ? FromObjectRight(left, right) : !type_exports.IsRecord(right) ? ExtendsResult.False : Visit3(RecordValue(left), RecordValue(right));
}
function FromRegExp(left, right) {
  const L = type_exports.IsRegExp(left) ? String2() : left;
  const R = type_exports.IsRegExp(right) ? String2() : right;
  return Visit3(L, R);
}
function FromStringRight(left, right) {
  return type_exports.IsLiteral(left) && value_exports.IsString(left.const) ? ExtendsResult.True : type_exports.IsString(left) ? ExtendsResult.True : ExtendsResult.False;
}
function FromString(left, right) {
  return IsStructuralRight(right) ? StructuralRight(left, right) : type_exports.IsObject(right) ? FromObjectRight(left, right) : type_exports.IsRecord(right) ? FromRecordRight(left, right) : type_exports.IsString(right) ? ExtendsResult.True : ExtendsResult.False;
}
function FromSymbol(left, right) {
  return IsStructuralRight(right) ? StructuralRight(left, right) : type_exports.IsObject(right) ? FromObjectRight(left, right) : type_exports.IsRecord(right) ? FromRecordRight(left, right) : type_exports.IsSymbol(right) ? ExtendsResult.True : ExtendsResult.False;
}
function FromTemplateLiteral2(left, right) {
  return type_exports.IsTemplateLiteral(left) ? Visit3(TemplateLiteralToUnion(left), right) : type_exports.IsTemplateLiteral(right) ? Visit3(left, TemplateLiteralToUnion(right)) : Throw("Invalid fallthrough for TemplateLiteral");
}
function IsArrayOfTuple(left, right) {
  return type_exports.IsArray(right) && left.items !== void 0 && left.items.every((schema) => Visit3(schema, right.items) === ExtendsResult.True);
}
function FromTupleRight(left, right) {
  return type_exports.IsNever(left) ? ExtendsResult.True : type_exports.IsUnknown(left) ? ExtendsResult.False : type_exports.IsAny(left) ? ExtendsResult.Union : ExtendsResult.False;
}
function FromTuple3(left, right) {
  return IsStructuralRight(right) ? StructuralRight(left, right) : type_exports.IsObject(right) && IsObjectArrayLike(right) ? ExtendsResult.True : type_exports.IsArray(right) && IsArrayOfTuple(left, right) ? ExtendsResult.True : !type_exports.IsTuple(right) ? ExtendsResult.False : value_exports.IsUndefined(left.items) && !value_exports.IsUndefined(right.items) || !value_exports.IsUndefined(left.items) && value_exports.IsUndefined(right.items) ? ExtendsResult.False : value_exports.IsUndefined(left.items) && !value_exports.IsUndefined(right.items) ? ExtendsResult.True : left.items.every((schema, index) => Visit3(schema, right.items[index]) === ExtendsResult.True) ? ExtendsResult.True : ExtendsResult.False;
}
function FromUint8Array(left, right) {
  return IsStructuralRight(right) ? StructuralRight(left, right) : type_exports.IsObject(right) ? FromObjectRight(left, right) : type_exports.IsRecord(right) ? FromRecordRight(left, right) : type_exports.IsUint8Array(right) ? ExtendsResult.True : ExtendsResult.False;
}
function FromUndefined(left, right) {
  return IsStructuralRight(right) ? StructuralRight(left, right) : type_exports.IsObject(right) ? FromObjectRight(left, right) : type_exports.IsRecord(right) ? FromRecordRight(left, right) : type_exports.IsVoid(right) ? FromVoidRight(left, right) : type_exports.IsUndefined(right) ? ExtendsResult.True : ExtendsResult.False;
}
function FromUnionRight(left, right) {
  return right.anyOf.some((schema) => Visit3(left, schema) === ExtendsResult.True) ? ExtendsResult.True : ExtendsResult.False;
}
function FromUnion6(left, right) {
  return left.anyOf.every((schema) => Visit3(schema, right) === ExtendsResult.True) ? ExtendsResult.True : ExtendsResult.False;
}
function FromUnknownRight(left, right) {
  return ExtendsResult.True;
}
function FromUnknown(left, right) {
  return type_exports.IsNever(right) ? FromNeverRight(left, right) : type_exports.IsIntersect(right) ? FromIntersectRight(left, right) : type_exports.IsUnion(right) ? FromUnionRight(left, right) : type_exports.IsAny(right) ? FromAnyRight(left, right) : type_exports.IsString(right) ? FromStringRight(left, right) : type_exports.IsNumber(right) ? FromNumberRight(left, right) : type_exports.IsInteger(right) ? FromIntegerRight(left, right) : type_exports.IsBoolean(right) ? FromBooleanRight(left, right) : type_exports.IsArray(right) ? FromArrayRight(left, right) : type_exports.IsTuple(right) ? FromTupleRight(left, right) : type_exports.IsObject(right) ? FromObjectRight(left, right) : type_exports.IsUnknown(right) ? ExtendsResult.True : ExtendsResult.False;
}
function FromVoidRight(left, right) {
  return type_exports.IsUndefined(left) ? ExtendsResult.True : type_exports.IsUndefined(left) ? ExtendsResult.True : ExtendsResult.False;
}
function FromVoid(left, right) {
  return type_exports.IsIntersect(right) ? FromIntersectRight(left, right) : type_exports.IsUnion(right) ? FromUnionRight(left, right) : type_exports.IsUnknown(right) ? FromUnknownRight(left, right) : type_exports.IsAny(right) ? FromAnyRight(left, right) : type_exports.IsObject(right) ? FromObjectRight(left, right) : type_exports.IsVoid(right) ? ExtendsResult.True : ExtendsResult.False;
}
function Visit3(left, right) {
  return (
    // resolvable
    type_exports.IsTemplateLiteral(left) || type_exports.IsTemplateLiteral(right) ? FromTemplateLiteral2(left, right) : type_exports.IsRegExp(left) || type_exports.IsRegExp(right) ? FromRegExp(left, right) : type_exports.IsNot(left) || type_exports.IsNot(right) ? FromNot(left, right) : (
      // standard
      type_exports.IsAny(left) ? FromAny(left, right) : type_exports.IsArray(left) ? FromArray4(left, right) : type_exports.IsBigInt(left) ? FromBigInt(left, right) : type_exports.IsBoolean(left) ? FromBoolean(left, right) : type_exports.IsAsyncIterator(left) ? FromAsyncIterator(left, right) : type_exports.IsConstructor(left) ? FromConstructor(left, right) : type_exports.IsDate(left) ? FromDate(left, right) : type_exports.IsFunction(left) ? FromFunction(left, right) : type_exports.IsInteger(left) ? FromInteger(left, right) : type_exports.IsIntersect(left) ? FromIntersect4(left, right) : type_exports.IsIterator(left) ? FromIterator(left, right) : type_exports.IsLiteral(left) ? FromLiteral2(left, right) : type_exports.IsNever(left) ? FromNever(left, right) : type_exports.IsNull(left) ? FromNull(left, right) : type_exports.IsNumber(left) ? FromNumber(left, right) : type_exports.IsObject(left) ? FromObject(left, right) : type_exports.IsRecord(left) ? FromRecord(left, right) : type_exports.IsString(left) ? FromString(left, right) : type_exports.IsSymbol(left) ? FromSymbol(left, right) : type_exports.IsTuple(left) ? FromTuple3(left, right) : type_exports.IsPromise(left) ? FromPromise2(left, right) : type_exports.IsUint8Array(left) ? FromUint8Array(left, right) : type_exports.IsUndefined(left) ? FromUndefined(left, right) : type_exports.IsUnion(left) ? FromUnion6(left, right) : type_exports.IsUnknown(left) ? FromUnknown(left, right) : type_exports.IsVoid(left) ? FromVoid(left, right) : Throw(`Unknown left type operand '${left[Kind]}'`)
    )
  );
}
function ExtendsCheck(left, right) {
  return Visit3(left, right);
}

// npm:@sinclair/typebox/0.34.52/build/esm/type/extends/extends-from-mapped-result.mjs
function FromProperties8(P, Right, True, False, options) {
  const Acc = {};
  for (const K2 of globalThis.Object.getOwnPropertyNames(P)) Acc[K2] = Extends(P[K2], Right, True, False, Clone(options));
  return Acc;
}
function FromMappedResult6(Left, Right, True, False, options) {
  return FromProperties8(Left.properties, Right, True, False, options);
}
function ExtendsFromMappedResult(Left, Right, True, False, options) {
  const P = FromMappedResult6(Left, Right, True, False, options);
  return MappedResult(P);
}

// npm:@sinclair/typebox/0.34.52/build/esm/type/extends/extends.mjs
function ExtendsResolve(left, right, trueType, falseType) {
  const R = ExtendsCheck(left, right);
  return R === ExtendsResult.Union ? Union([
    trueType,
    falseType
  ]) : R === ExtendsResult.True ? trueType : falseType;
}
function Extends(L, R, T, F, options) {
  return IsMappedResult(L) ? ExtendsFromMappedResult(L, R, T, F, options) : IsMappedKey(L) ? CreateType(ExtendsFromMappedKey(L, R, T, F, options)) : CreateType(ExtendsResolve(L, R, T, F), options);
}

// npm:@sinclair/typebox/0.34.52/build/esm/type/extends/extends-from-mapped-key.mjs
function FromPropertyKey(K, U, L, R, options) {
  return {
    [K]: Extends(Literal(K), U, L, R, Clone(options))
  };
}
function FromPropertyKeys(K, U, L, R, options) {
  return K.reduce((Acc, LK) => {
    return {
      ...Acc,
      ...FromPropertyKey(LK, U, L, R, options)
    };
  }, {});
}
function FromMappedKey2(K, U, L, R, options) {
  return FromPropertyKeys(K.keys, U, L, R, options);
}
function ExtendsFromMappedKey(T, U, L, R, options) {
  const P = FromMappedKey2(T, U, L, R, options);
  return MappedResult(P);
}

// npm:@sinclair/typebox/0.34.52/build/esm/type/exclude/exclude-from-template-literal.mjs
function ExcludeFromTemplateLiteral(L, R) {
  return Exclude(TemplateLiteralToUnion(L), R);
}

// npm:@sinclair/typebox/0.34.52/build/esm/type/exclude/exclude.mjs
function ExcludeRest(L, R) {
  const excluded = L.filter((inner) => ExtendsCheck(inner, R) === ExtendsResult.False);
  return excluded.length === 1 ? excluded[0] : Union(excluded);
}
function Exclude(L, R, options = {}) {
  if (IsTemplateLiteral(L)) return CreateType(ExcludeFromTemplateLiteral(L, R), options);
  if (IsMappedResult(L)) return CreateType(ExcludeFromMappedResult(L, R), options);
  return CreateType(IsUnion(L) ? ExcludeRest(L.anyOf, R) : ExtendsCheck(L, R) !== ExtendsResult.False ? Never() : L, options);
}

// npm:@sinclair/typebox/0.34.52/build/esm/type/exclude/exclude-from-mapped-result.mjs
function FromProperties9(P, U) {
  const Acc = {};
  for (const K2 of globalThis.Object.getOwnPropertyNames(P)) Acc[K2] = Exclude(P[K2], U);
  return Acc;
}
function FromMappedResult7(R, T) {
  return FromProperties9(R.properties, T);
}
function ExcludeFromMappedResult(R, T) {
  const P = FromMappedResult7(R, T);
  return MappedResult(P);
}

// npm:@sinclair/typebox/0.34.52/build/esm/type/extract/extract-from-template-literal.mjs
function ExtractFromTemplateLiteral(L, R) {
  return Extract(TemplateLiteralToUnion(L), R);
}

// npm:@sinclair/typebox/0.34.52/build/esm/type/extract/extract.mjs
function ExtractRest(L, R) {
  const extracted = L.filter((inner) => ExtendsCheck(inner, R) !== ExtendsResult.False);
  return extracted.length === 1 ? extracted[0] : Union(extracted);
}
function Extract(L, R, options) {
  if (IsTemplateLiteral(L)) return CreateType(ExtractFromTemplateLiteral(L, R), options);
  if (IsMappedResult(L)) return CreateType(ExtractFromMappedResult(L, R), options);
  return CreateType(IsUnion(L) ? ExtractRest(L.anyOf, R) : ExtendsCheck(L, R) !== ExtendsResult.False ? L : Never(), options);
}

// npm:@sinclair/typebox/0.34.52/build/esm/type/extract/extract-from-mapped-result.mjs
function FromProperties10(P, T) {
  const Acc = {};
  for (const K2 of globalThis.Object.getOwnPropertyNames(P)) Acc[K2] = Extract(P[K2], T);
  return Acc;
}
function FromMappedResult8(R, T) {
  return FromProperties10(R.properties, T);
}
function ExtractFromMappedResult(R, T) {
  const P = FromMappedResult8(R, T);
  return MappedResult(P);
}

// npm:@sinclair/typebox/0.34.52/build/esm/type/instance-type/instance-type.mjs
function InstanceType(schema, options) {
  return IsConstructor(schema) ? CreateType(schema.returns, options) : Never(options);
}

// npm:@sinclair/typebox/0.34.52/build/esm/type/readonly-optional/readonly-optional.mjs
function ReadonlyOptional(schema) {
  return Readonly(Optional(schema));
}

// npm:@sinclair/typebox/0.34.52/build/esm/type/record/record.mjs
function RecordCreateFromPattern(pattern, T, options) {
  return CreateType({
    [Kind]: "Record",
    type: "object",
    patternProperties: {
      [pattern]: T
    }
  }, options);
}
function RecordCreateFromKeys(K, T, options) {
  const result = {};
  for (const K2 of K) result[K2] = T;
  return Object2(result, {
    ...options,
    [Hint]: "Record"
  });
}
function FromTemplateLiteralKey(K, T, options) {
  return IsTemplateLiteralFinite(K) ? RecordCreateFromKeys(IndexPropertyKeys(K), T, options) : RecordCreateFromPattern(K.pattern, T, options);
}
function FromUnionKey(key, type, options) {
  return RecordCreateFromKeys(IndexPropertyKeys(Union(key)), type, options);
}
function FromLiteralKey(key, type, options) {
  return RecordCreateFromKeys([
    key.toString()
  ], type, options);
}
function FromRegExpKey(key, type, options) {
  return RecordCreateFromPattern(key.source, type, options);
}
function FromStringKey(key, type, options) {
  const pattern = IsUndefined(key.pattern) ? PatternStringExact : key.pattern;
  return RecordCreateFromPattern(pattern, type, options);
}
function FromAnyKey(_, type, options) {
  return RecordCreateFromPattern(PatternStringExact, type, options);
}
function FromNeverKey(_key, type, options) {
  return RecordCreateFromPattern(PatternNeverExact, type, options);
}
function FromBooleanKey(_key, type, options) {
  return Object2({
    true: type,
    false: type
  }, options);
}
function FromIntegerKey(_key, type, options) {
  return RecordCreateFromPattern(PatternNumberExact, type, options);
}
function FromNumberKey(_, type, options) {
  return RecordCreateFromPattern(PatternNumberExact, type, options);
}
function Record(key, type, options = {}) {
  return IsUnion(key) ? FromUnionKey(key.anyOf, type, options) : IsTemplateLiteral(key) ? FromTemplateLiteralKey(key, type, options) : IsLiteral(key) ? FromLiteralKey(key.const, type, options) : IsBoolean2(key) ? FromBooleanKey(key, type, options) : IsInteger(key) ? FromIntegerKey(key, type, options) : IsNumber3(key) ? FromNumberKey(key, type, options) : IsRegExp2(key) ? FromRegExpKey(key, type, options) : IsString2(key) ? FromStringKey(key, type, options) : IsAny(key) ? FromAnyKey(key, type, options) : IsNever(key) ? FromNeverKey(key, type, options) : Never(options);
}
function RecordPattern(record) {
  return globalThis.Object.getOwnPropertyNames(record.patternProperties)[0];
}
function RecordKey2(type) {
  const pattern = RecordPattern(type);
  return pattern === PatternStringExact ? String2() : pattern === PatternNumberExact ? Number2() : String2({
    pattern
  });
}
function RecordValue2(type) {
  return type.patternProperties[RecordPattern(type)];
}

// npm:@sinclair/typebox/0.34.52/build/esm/type/instantiate/instantiate.mjs
function FromConstructor2(args, type) {
  type.parameters = FromTypes(args, type.parameters);
  type.returns = FromType(args, type.returns);
  return type;
}
function FromFunction2(args, type) {
  type.parameters = FromTypes(args, type.parameters);
  type.returns = FromType(args, type.returns);
  return type;
}
function FromIntersect5(args, type) {
  type.allOf = FromTypes(args, type.allOf);
  return type;
}
function FromUnion7(args, type) {
  type.anyOf = FromTypes(args, type.anyOf);
  return type;
}
function FromTuple4(args, type) {
  if (IsUndefined(type.items)) return type;
  type.items = FromTypes(args, type.items);
  return type;
}
function FromArray5(args, type) {
  type.items = FromType(args, type.items);
  return type;
}
function FromAsyncIterator2(args, type) {
  type.items = FromType(args, type.items);
  return type;
}
function FromIterator2(args, type) {
  type.items = FromType(args, type.items);
  return type;
}
function FromPromise3(args, type) {
  type.item = FromType(args, type.item);
  return type;
}
function FromObject2(args, type) {
  const mappedProperties = FromProperties11(args, type.properties);
  return {
    ...type,
    ...Object2(mappedProperties)
  };
}
function FromRecord2(args, type) {
  const mappedKey = FromType(args, RecordKey2(type));
  const mappedValue = FromType(args, RecordValue2(type));
  const result = Record(mappedKey, mappedValue);
  return {
    ...type,
    ...result
  };
}
function FromArgument(args, argument) {
  return argument.index in args ? args[argument.index] : Unknown();
}
function FromProperty2(args, type) {
  const isReadonly = IsReadonly(type);
  const isOptional = IsOptional(type);
  const mapped = FromType(args, type);
  return isReadonly && isOptional ? ReadonlyOptional(mapped) : isReadonly && !isOptional ? Readonly(mapped) : !isReadonly && isOptional ? Optional(mapped) : mapped;
}
function FromProperties11(args, properties) {
  return globalThis.Object.getOwnPropertyNames(properties).reduce((result, key) => {
    return {
      ...result,
      [key]: FromProperty2(args, properties[key])
    };
  }, {});
}
function FromTypes(args, types) {
  return types.map((type) => FromType(args, type));
}
function FromType(args, type) {
  return IsConstructor(type) ? FromConstructor2(args, type) : IsFunction2(type) ? FromFunction2(args, type) : IsIntersect(type) ? FromIntersect5(args, type) : IsUnion(type) ? FromUnion7(args, type) : IsTuple(type) ? FromTuple4(args, type) : IsArray3(type) ? FromArray5(args, type) : IsAsyncIterator2(type) ? FromAsyncIterator2(args, type) : IsIterator2(type) ? FromIterator2(args, type) : IsPromise(type) ? FromPromise3(args, type) : IsObject3(type) ? FromObject2(args, type) : IsRecord(type) ? FromRecord2(args, type) : IsArgument(type) ? FromArgument(args, type) : type;
}
function Instantiate(type, args) {
  return FromType(args, CloneType(type));
}

// npm:@sinclair/typebox/0.34.52/build/esm/type/integer/integer.mjs
function Integer(options) {
  return CreateType({
    [Kind]: "Integer",
    type: "integer"
  }, options);
}

// npm:@sinclair/typebox/0.34.52/build/esm/type/intrinsic/intrinsic-from-mapped-key.mjs
function MappedIntrinsicPropertyKey(K, M, options) {
  return {
    [K]: Intrinsic(Literal(K), M, Clone(options))
  };
}
function MappedIntrinsicPropertyKeys(K, M, options) {
  const result = K.reduce((Acc, L) => {
    return {
      ...Acc,
      ...MappedIntrinsicPropertyKey(L, M, options)
    };
  }, {});
  return result;
}
function MappedIntrinsicProperties(T, M, options) {
  return MappedIntrinsicPropertyKeys(T["keys"], M, options);
}
function IntrinsicFromMappedKey(T, M, options) {
  const P = MappedIntrinsicProperties(T, M, options);
  return MappedResult(P);
}

// npm:@sinclair/typebox/0.34.52/build/esm/type/intrinsic/intrinsic.mjs
function ApplyUncapitalize(value) {
  const [first, rest] = [
    value.slice(0, 1),
    value.slice(1)
  ];
  return [
    first.toLowerCase(),
    rest
  ].join("");
}
function ApplyCapitalize(value) {
  const [first, rest] = [
    value.slice(0, 1),
    value.slice(1)
  ];
  return [
    first.toUpperCase(),
    rest
  ].join("");
}
function ApplyUppercase(value) {
  return value.toUpperCase();
}
function ApplyLowercase(value) {
  return value.toLowerCase();
}
function FromTemplateLiteral3(schema, mode, options) {
  const expression = TemplateLiteralParseExact(schema.pattern);
  const finite = IsTemplateLiteralExpressionFinite(expression);
  if (!finite) return {
    ...schema,
    pattern: FromLiteralValue(schema.pattern, mode)
  };
  const strings = [
    ...TemplateLiteralExpressionGenerate(expression)
  ];
  const literals = strings.map((value) => Literal(value));
  const mapped = FromRest5(literals, mode);
  const union = Union(mapped);
  return TemplateLiteral([
    union
  ], options);
}
function FromLiteralValue(value, mode) {
  return typeof value === "string" ? mode === "Uncapitalize" ? ApplyUncapitalize(value) : mode === "Capitalize" ? ApplyCapitalize(value) : mode === "Uppercase" ? ApplyUppercase(value) : mode === "Lowercase" ? ApplyLowercase(value) : value : value.toString();
}
function FromRest5(T, M) {
  return T.map((L) => Intrinsic(L, M));
}
function Intrinsic(schema, mode, options = {}) {
  return (
    // Intrinsic-Mapped-Inference
    IsMappedKey(schema) ? IntrinsicFromMappedKey(schema, mode, options) : (
      // Standard-Inference
      IsTemplateLiteral(schema) ? FromTemplateLiteral3(schema, mode, options) : IsUnion(schema) ? Union(FromRest5(schema.anyOf, mode), options) : IsLiteral(schema) ? Literal(FromLiteralValue(schema.const, mode), options) : (
        // Default Type
        CreateType(schema, options)
      )
    )
  );
}

// npm:@sinclair/typebox/0.34.52/build/esm/type/intrinsic/capitalize.mjs
function Capitalize(T, options = {}) {
  return Intrinsic(T, "Capitalize", options);
}

// npm:@sinclair/typebox/0.34.52/build/esm/type/intrinsic/lowercase.mjs
function Lowercase(T, options = {}) {
  return Intrinsic(T, "Lowercase", options);
}

// npm:@sinclair/typebox/0.34.52/build/esm/type/intrinsic/uncapitalize.mjs
function Uncapitalize(T, options = {}) {
  return Intrinsic(T, "Uncapitalize", options);
}

// npm:@sinclair/typebox/0.34.52/build/esm/type/intrinsic/uppercase.mjs
function Uppercase(T, options = {}) {
  return Intrinsic(T, "Uppercase", options);
}

// npm:@sinclair/typebox/0.34.52/build/esm/type/omit/omit-from-mapped-result.mjs
function FromProperties12(properties, propertyKeys, options) {
  const result = {};
  for (const K2 of globalThis.Object.getOwnPropertyNames(properties)) result[K2] = Omit(properties[K2], propertyKeys, Clone(options));
  return result;
}
function FromMappedResult9(mappedResult, propertyKeys, options) {
  return FromProperties12(mappedResult.properties, propertyKeys, options);
}
function OmitFromMappedResult(mappedResult, propertyKeys, options) {
  const properties = FromMappedResult9(mappedResult, propertyKeys, options);
  return MappedResult(properties);
}

// npm:@sinclair/typebox/0.34.52/build/esm/type/omit/omit.mjs
function FromIntersect6(types, propertyKeys) {
  return types.map((type) => OmitResolve(type, propertyKeys));
}
function FromUnion8(types, propertyKeys) {
  return types.map((type) => OmitResolve(type, propertyKeys));
}
function FromProperty3(properties, key) {
  const { [key]: _, ...R } = properties;
  return R;
}
function FromProperties13(properties, propertyKeys) {
  return propertyKeys.reduce((T, K2) => FromProperty3(T, K2), properties);
}
function FromObject3(type, propertyKeys, properties) {
  const options = Discard(type, [
    TransformKind,
    "$id",
    "required",
    "properties"
  ]);
  const mappedProperties = FromProperties13(properties, propertyKeys);
  return Object2(mappedProperties, options);
}
function UnionFromPropertyKeys(propertyKeys) {
  const result = propertyKeys.reduce((result2, key) => IsLiteralValue(key) ? [
    ...result2,
    Literal(key)
  ] : result2, []);
  return Union(result);
}
function OmitResolve(type, propertyKeys) {
  return IsIntersect(type) ? Intersect(FromIntersect6(type.allOf, propertyKeys)) : IsUnion(type) ? Union(FromUnion8(type.anyOf, propertyKeys)) : IsObject3(type) ? FromObject3(type, propertyKeys, type.properties) : Object2({});
}
function Omit(type, key, options) {
  const typeKey = IsArray(key) ? UnionFromPropertyKeys(key) : key;
  const propertyKeys = IsSchema(key) ? IndexPropertyKeys(key) : key;
  const isTypeRef = IsRef(type);
  const isKeyRef = IsRef(key);
  return IsMappedResult(type) ? OmitFromMappedResult(type, propertyKeys, options) : IsMappedKey(key) ? OmitFromMappedKey(type, key, options) : isTypeRef && isKeyRef ? Computed("Omit", [
    type,
    typeKey
  ], options) : !isTypeRef && isKeyRef ? Computed("Omit", [
    type,
    typeKey
  ], options) : isTypeRef && !isKeyRef ? Computed("Omit", [
    type,
    typeKey
  ], options) : CreateType({
    ...OmitResolve(type, propertyKeys),
    ...options
  });
}

// npm:@sinclair/typebox/0.34.52/build/esm/type/omit/omit-from-mapped-key.mjs
function FromPropertyKey2(type, key, options) {
  return {
    [key]: Omit(type, [
      key
    ], Clone(options))
  };
}
function FromPropertyKeys2(type, propertyKeys, options) {
  return propertyKeys.reduce((Acc, LK) => {
    return {
      ...Acc,
      ...FromPropertyKey2(type, LK, options)
    };
  }, {});
}
function FromMappedKey3(type, mappedKey, options) {
  return FromPropertyKeys2(type, mappedKey.keys, options);
}
function OmitFromMappedKey(type, mappedKey, options) {
  const properties = FromMappedKey3(type, mappedKey, options);
  return MappedResult(properties);
}

// npm:@sinclair/typebox/0.34.52/build/esm/type/pick/pick-from-mapped-result.mjs
function FromProperties14(properties, propertyKeys, options) {
  const result = {};
  for (const K2 of globalThis.Object.getOwnPropertyNames(properties)) result[K2] = Pick(properties[K2], propertyKeys, Clone(options));
  return result;
}
function FromMappedResult10(mappedResult, propertyKeys, options) {
  return FromProperties14(mappedResult.properties, propertyKeys, options);
}
function PickFromMappedResult(mappedResult, propertyKeys, options) {
  const properties = FromMappedResult10(mappedResult, propertyKeys, options);
  return MappedResult(properties);
}

// npm:@sinclair/typebox/0.34.52/build/esm/type/pick/pick.mjs
function FromIntersect7(types, propertyKeys) {
  return types.map((type) => PickResolve(type, propertyKeys));
}
function FromUnion9(types, propertyKeys) {
  return types.map((type) => PickResolve(type, propertyKeys));
}
function FromProperties15(properties, propertyKeys) {
  const result = {};
  for (const K2 of propertyKeys) if (K2 in properties) result[K2] = properties[K2];
  return result;
}
function FromObject4(Type2, keys, properties) {
  const options = Discard(Type2, [
    TransformKind,
    "$id",
    "required",
    "properties"
  ]);
  const mappedProperties = FromProperties15(properties, keys);
  return Object2(mappedProperties, options);
}
function UnionFromPropertyKeys2(propertyKeys) {
  const result = propertyKeys.reduce((result2, key) => IsLiteralValue(key) ? [
    ...result2,
    Literal(key)
  ] : result2, []);
  return Union(result);
}
function PickResolve(type, propertyKeys) {
  return IsIntersect(type) ? Intersect(FromIntersect7(type.allOf, propertyKeys)) : IsUnion(type) ? Union(FromUnion9(type.anyOf, propertyKeys)) : IsObject3(type) ? FromObject4(type, propertyKeys, type.properties) : Object2({});
}
function Pick(type, key, options) {
  const typeKey = IsArray(key) ? UnionFromPropertyKeys2(key) : key;
  const propertyKeys = IsSchema(key) ? IndexPropertyKeys(key) : key;
  const isTypeRef = IsRef(type);
  const isKeyRef = IsRef(key);
  return IsMappedResult(type) ? PickFromMappedResult(type, propertyKeys, options) : IsMappedKey(key) ? PickFromMappedKey(type, key, options) : isTypeRef && isKeyRef ? Computed("Pick", [
    type,
    typeKey
  ], options) : !isTypeRef && isKeyRef ? Computed("Pick", [
    type,
    typeKey
  ], options) : isTypeRef && !isKeyRef ? Computed("Pick", [
    type,
    typeKey
  ], options) : CreateType({
    ...PickResolve(type, propertyKeys),
    ...options
  });
}

// npm:@sinclair/typebox/0.34.52/build/esm/type/pick/pick-from-mapped-key.mjs
function FromPropertyKey3(type, key, options) {
  return {
    [key]: Pick(type, [
      key
    ], Clone(options))
  };
}
function FromPropertyKeys3(type, propertyKeys, options) {
  return propertyKeys.reduce((result, leftKey) => {
    return {
      ...result,
      ...FromPropertyKey3(type, leftKey, options)
    };
  }, {});
}
function FromMappedKey4(type, mappedKey, options) {
  return FromPropertyKeys3(type, mappedKey.keys, options);
}
function PickFromMappedKey(type, mappedKey, options) {
  const properties = FromMappedKey4(type, mappedKey, options);
  return MappedResult(properties);
}

// npm:@sinclair/typebox/0.34.52/build/esm/type/partial/partial.mjs
function FromComputed3(target, parameters) {
  return Computed("Partial", [
    Computed(target, parameters)
  ]);
}
function FromRef3($ref) {
  return Computed("Partial", [
    Ref($ref)
  ]);
}
function FromProperties16(properties) {
  const partialProperties = {};
  for (const K of globalThis.Object.getOwnPropertyNames(properties)) partialProperties[K] = Optional(properties[K]);
  return partialProperties;
}
function FromObject5(type, properties) {
  const options = Discard(type, [
    TransformKind,
    "$id",
    "required",
    "properties"
  ]);
  const mappedProperties = FromProperties16(properties);
  return Object2(mappedProperties, options);
}
function FromRest6(types) {
  return types.map((type) => PartialResolve(type));
}
function PartialResolve(type) {
  return (
    // Mappable
    IsComputed(type) ? FromComputed3(type.target, type.parameters) : IsRef(type) ? FromRef3(type.$ref) : IsIntersect(type) ? Intersect(FromRest6(type.allOf)) : IsUnion(type) ? Union(FromRest6(type.anyOf)) : IsObject3(type) ? FromObject5(type, type.properties) : (
      // Intrinsic
      IsBigInt2(type) ? type : IsBoolean2(type) ? type : IsInteger(type) ? type : IsLiteral(type) ? type : IsNull2(type) ? type : IsNumber3(type) ? type : IsString2(type) ? type : IsSymbol2(type) ? type : IsUndefined3(type) ? type : (
        // Passthrough
        Object2({})
      )
    )
  );
}
function Partial(type, options) {
  if (IsMappedResult(type)) {
    return PartialFromMappedResult(type, options);
  } else {
    return CreateType({
      ...PartialResolve(type),
      ...options
    });
  }
}

// npm:@sinclair/typebox/0.34.52/build/esm/type/partial/partial-from-mapped-result.mjs
function FromProperties17(K, options) {
  const Acc = {};
  for (const K2 of globalThis.Object.getOwnPropertyNames(K)) Acc[K2] = Partial(K[K2], Clone(options));
  return Acc;
}
function FromMappedResult11(R, options) {
  return FromProperties17(R.properties, options);
}
function PartialFromMappedResult(R, options) {
  const P = FromMappedResult11(R, options);
  return MappedResult(P);
}

// npm:@sinclair/typebox/0.34.52/build/esm/type/required/required.mjs
function FromComputed4(target, parameters) {
  return Computed("Required", [
    Computed(target, parameters)
  ]);
}
function FromRef4($ref) {
  return Computed("Required", [
    Ref($ref)
  ]);
}
function FromProperties18(properties) {
  const requiredProperties = {};
  for (const K of globalThis.Object.getOwnPropertyNames(properties)) requiredProperties[K] = Discard(properties[K], [
    OptionalKind
  ]);
  return requiredProperties;
}
function FromObject6(type, properties) {
  const options = Discard(type, [
    TransformKind,
    "$id",
    "required",
    "properties"
  ]);
  const mappedProperties = FromProperties18(properties);
  return Object2(mappedProperties, options);
}
function FromRest7(types) {
  return types.map((type) => RequiredResolve(type));
}
function RequiredResolve(type) {
  return (
    // Mappable
    IsComputed(type) ? FromComputed4(type.target, type.parameters) : IsRef(type) ? FromRef4(type.$ref) : IsIntersect(type) ? Intersect(FromRest7(type.allOf)) : IsUnion(type) ? Union(FromRest7(type.anyOf)) : IsObject3(type) ? FromObject6(type, type.properties) : (
      // Intrinsic
      IsBigInt2(type) ? type : IsBoolean2(type) ? type : IsInteger(type) ? type : IsLiteral(type) ? type : IsNull2(type) ? type : IsNumber3(type) ? type : IsString2(type) ? type : IsSymbol2(type) ? type : IsUndefined3(type) ? type : (
        // Passthrough
        Object2({})
      )
    )
  );
}
function Required(type, options) {
  if (IsMappedResult(type)) {
    return RequiredFromMappedResult(type, options);
  } else {
    return CreateType({
      ...RequiredResolve(type),
      ...options
    });
  }
}

// npm:@sinclair/typebox/0.34.52/build/esm/type/required/required-from-mapped-result.mjs
function FromProperties19(P, options) {
  const Acc = {};
  for (const K2 of globalThis.Object.getOwnPropertyNames(P)) Acc[K2] = Required(P[K2], options);
  return Acc;
}
function FromMappedResult12(R, options) {
  return FromProperties19(R.properties, options);
}
function RequiredFromMappedResult(R, options) {
  const P = FromMappedResult12(R, options);
  return MappedResult(P);
}

// npm:@sinclair/typebox/0.34.52/build/esm/type/module/compute.mjs
function DereferenceParameters(moduleProperties, types) {
  return types.map((type) => {
    return IsRef(type) ? Dereference(moduleProperties, type.$ref) : FromType2(moduleProperties, type);
  });
}
function Dereference(moduleProperties, ref) {
  return ref in moduleProperties ? IsRef(moduleProperties[ref]) ? Dereference(moduleProperties, moduleProperties[ref].$ref) : FromType2(moduleProperties, moduleProperties[ref]) : Never();
}
function FromAwaited(parameters) {
  return Awaited(parameters[0]);
}
function FromIndex(parameters) {
  return Index(parameters[0], parameters[1]);
}
function FromKeyOf(parameters) {
  return KeyOf(parameters[0]);
}
function FromPartial(parameters) {
  return Partial(parameters[0]);
}
function FromOmit(parameters) {
  return Omit(parameters[0], parameters[1]);
}
function FromPick(parameters) {
  return Pick(parameters[0], parameters[1]);
}
function FromRequired(parameters) {
  return Required(parameters[0]);
}
function FromComputed5(moduleProperties, target, parameters) {
  const dereferenced = DereferenceParameters(moduleProperties, parameters);
  return target === "Awaited" ? FromAwaited(dereferenced) : target === "Index" ? FromIndex(dereferenced) : target === "KeyOf" ? FromKeyOf(dereferenced) : target === "Partial" ? FromPartial(dereferenced) : target === "Omit" ? FromOmit(dereferenced) : target === "Pick" ? FromPick(dereferenced) : target === "Required" ? FromRequired(dereferenced) : Never();
}
function FromArray6(moduleProperties, type) {
  return Array2(FromType2(moduleProperties, type));
}
function FromAsyncIterator3(moduleProperties, type) {
  return AsyncIterator(FromType2(moduleProperties, type));
}
function FromConstructor3(moduleProperties, parameters, instanceType) {
  return Constructor(FromTypes2(moduleProperties, parameters), FromType2(moduleProperties, instanceType));
}
function FromFunction3(moduleProperties, parameters, returnType) {
  return Function(FromTypes2(moduleProperties, parameters), FromType2(moduleProperties, returnType));
}
function FromIntersect8(moduleProperties, types) {
  return Intersect(FromTypes2(moduleProperties, types));
}
function FromIterator3(moduleProperties, type) {
  return Iterator(FromType2(moduleProperties, type));
}
function FromObject7(moduleProperties, properties) {
  return Object2(globalThis.Object.keys(properties).reduce((result, key) => {
    return {
      ...result,
      [key]: FromType2(moduleProperties, properties[key])
    };
  }, {}));
}
function FromRecord3(moduleProperties, type) {
  const [value, pattern] = [
    FromType2(moduleProperties, RecordValue2(type)),
    RecordPattern(type)
  ];
  const result = CloneType(type);
  result.patternProperties[pattern] = value;
  return result;
}
function FromTransform(moduleProperties, transform) {
  return IsRef(transform) ? {
    ...Dereference(moduleProperties, transform.$ref),
    [TransformKind]: transform[TransformKind]
  } : transform;
}
function FromTuple5(moduleProperties, types) {
  return Tuple(FromTypes2(moduleProperties, types));
}
function FromUnion10(moduleProperties, types) {
  return Union(FromTypes2(moduleProperties, types));
}
function FromTypes2(moduleProperties, types) {
  return types.map((type) => FromType2(moduleProperties, type));
}
function FromType2(moduleProperties, type) {
  return (
    // Modifiers
    IsOptional(type) ? CreateType(FromType2(moduleProperties, Discard(type, [
      OptionalKind
    ])), type) : IsReadonly(type) ? CreateType(FromType2(moduleProperties, Discard(type, [
      ReadonlyKind
    ])), type) : (
      // Transform
      IsTransform(type) ? CreateType(FromTransform(moduleProperties, type), type) : (
        // Types
        IsArray3(type) ? CreateType(FromArray6(moduleProperties, type.items), type) : IsAsyncIterator2(type) ? CreateType(FromAsyncIterator3(moduleProperties, type.items), type) : IsComputed(type) ? CreateType(FromComputed5(moduleProperties, type.target, type.parameters)) : IsConstructor(type) ? CreateType(FromConstructor3(moduleProperties, type.parameters, type.returns), type) : IsFunction2(type) ? CreateType(FromFunction3(moduleProperties, type.parameters, type.returns), type) : IsIntersect(type) ? CreateType(FromIntersect8(moduleProperties, type.allOf), type) : IsIterator2(type) ? CreateType(FromIterator3(moduleProperties, type.items), type) : IsObject3(type) ? CreateType(FromObject7(moduleProperties, type.properties), type) : IsRecord(type) ? CreateType(FromRecord3(moduleProperties, type)) : IsTuple(type) ? CreateType(FromTuple5(moduleProperties, type.items || []), type) : IsUnion(type) ? CreateType(FromUnion10(moduleProperties, type.anyOf), type) : type
      )
    )
  );
}
function ComputeType(moduleProperties, key) {
  return key in moduleProperties ? FromType2(moduleProperties, moduleProperties[key]) : Never();
}
function ComputeModuleProperties(moduleProperties) {
  return globalThis.Object.getOwnPropertyNames(moduleProperties).reduce((result, key) => {
    return {
      ...result,
      [key]: ComputeType(moduleProperties, key)
    };
  }, {});
}

// npm:@sinclair/typebox/0.34.52/build/esm/type/module/module.mjs
var TModule = class {
  constructor($defs) {
    const computed = ComputeModuleProperties($defs);
    const identified = this.WithIdentifiers(computed);
    this.$defs = identified;
  }
  /** `[Json]` Imports a Type by Key. */
  Import(key, options) {
    const $defs = {
      ...this.$defs,
      [key]: CreateType(this.$defs[key], options)
    };
    return CreateType({
      [Kind]: "Import",
      $defs,
      $ref: key
    });
  }
  // prettier-ignore
  WithIdentifiers($defs) {
    return globalThis.Object.getOwnPropertyNames($defs).reduce((result, key) => {
      return {
        ...result,
        [key]: {
          ...$defs[key],
          $id: key
        }
      };
    }, {});
  }
};
function Module(properties) {
  return new TModule(properties);
}

// npm:@sinclair/typebox/0.34.52/build/esm/type/not/not.mjs
function Not(type, options) {
  return CreateType({
    [Kind]: "Not",
    not: type
  }, options);
}

// npm:@sinclair/typebox/0.34.52/build/esm/type/parameters/parameters.mjs
function Parameters(schema, options) {
  return IsFunction2(schema) ? Tuple(schema.parameters, options) : Never();
}

// npm:@sinclair/typebox/0.34.52/build/esm/type/recursive/recursive.mjs
var Ordinal = 0;
function Recursive(callback, options = {}) {
  if (IsUndefined(options.$id)) options.$id = `T${Ordinal++}`;
  const thisType = CloneType(callback({
    [Kind]: "This",
    $ref: `${options.$id}`
  }));
  thisType.$id = options.$id;
  return CreateType({
    [Hint]: "Recursive",
    ...thisType
  }, options);
}

// npm:@sinclair/typebox/0.34.52/build/esm/type/regexp/regexp.mjs
function RegExp2(unresolved, options) {
  const expr = IsString(unresolved) ? new globalThis.RegExp(unresolved) : unresolved;
  return CreateType({
    [Kind]: "RegExp",
    type: "RegExp",
    source: expr.source,
    flags: expr.flags
  }, options);
}

// npm:@sinclair/typebox/0.34.52/build/esm/type/rest/rest.mjs
function RestResolve(T) {
  return IsIntersect(T) ? T.allOf : IsUnion(T) ? T.anyOf : IsTuple(T) ? T.items ?? [] : [];
}
function Rest(T) {
  return RestResolve(T);
}

// npm:@sinclair/typebox/0.34.52/build/esm/type/return-type/return-type.mjs
function ReturnType(schema, options) {
  return IsFunction2(schema) ? CreateType(schema.returns, options) : Never(options);
}

// npm:@sinclair/typebox/0.34.52/build/esm/type/transform/transform.mjs
var TransformDecodeBuilder = class {
  constructor(schema) {
    this.schema = schema;
  }
  Decode(decode) {
    return new TransformEncodeBuilder(this.schema, decode);
  }
};
var TransformEncodeBuilder = class {
  constructor(schema, decode) {
    this.schema = schema;
    this.decode = decode;
  }
  EncodeTransform(encode, schema) {
    const Encode = (value) => schema[TransformKind].Encode(encode(value));
    const Decode = (value) => this.decode(schema[TransformKind].Decode(value));
    const Codec = {
      Encode,
      Decode
    };
    return {
      ...schema,
      [TransformKind]: Codec
    };
  }
  EncodeSchema(encode, schema) {
    const Codec = {
      Decode: this.decode,
      Encode: encode
    };
    return {
      ...schema,
      [TransformKind]: Codec
    };
  }
  Encode(encode) {
    return IsTransform(this.schema) ? this.EncodeTransform(encode, this.schema) : this.EncodeSchema(encode, this.schema);
  }
};
function Transform(schema) {
  return new TransformDecodeBuilder(schema);
}

// npm:@sinclair/typebox/0.34.52/build/esm/type/unsafe/unsafe.mjs
function Unsafe(options = {}) {
  return CreateType({
    [Kind]: options[Kind] ?? "Unsafe"
  }, options);
}

// npm:@sinclair/typebox/0.34.52/build/esm/type/void/void.mjs
function Void(options) {
  return CreateType({
    [Kind]: "Void",
    type: "void"
  }, options);
}

// npm:@sinclair/typebox/0.34.52/build/esm/type/type/type.mjs
var type_exports2 = {};
__export(type_exports2, {
  Any: () => Any,
  Argument: () => Argument,
  Array: () => Array2,
  AsyncIterator: () => AsyncIterator,
  Awaited: () => Awaited,
  BigInt: () => BigInt,
  Boolean: () => Boolean2,
  Capitalize: () => Capitalize,
  Composite: () => Composite,
  Const: () => Const,
  Constructor: () => Constructor,
  ConstructorParameters: () => ConstructorParameters,
  Date: () => Date2,
  Enum: () => Enum,
  Exclude: () => Exclude,
  Extends: () => Extends,
  Extract: () => Extract,
  Function: () => Function,
  Index: () => Index,
  InstanceType: () => InstanceType,
  Instantiate: () => Instantiate,
  Integer: () => Integer,
  Intersect: () => Intersect,
  Iterator: () => Iterator,
  KeyOf: () => KeyOf,
  Literal: () => Literal,
  Lowercase: () => Lowercase,
  Mapped: () => Mapped,
  Module: () => Module,
  Never: () => Never,
  Not: () => Not,
  Null: () => Null,
  Number: () => Number2,
  Object: () => Object2,
  Omit: () => Omit,
  Optional: () => Optional,
  Parameters: () => Parameters,
  Partial: () => Partial,
  Pick: () => Pick,
  Promise: () => Promise2,
  Readonly: () => Readonly,
  ReadonlyOptional: () => ReadonlyOptional,
  Record: () => Record,
  Recursive: () => Recursive,
  Ref: () => Ref,
  RegExp: () => RegExp2,
  Required: () => Required,
  Rest: () => Rest,
  ReturnType: () => ReturnType,
  String: () => String2,
  Symbol: () => Symbol2,
  TemplateLiteral: () => TemplateLiteral,
  Transform: () => Transform,
  Tuple: () => Tuple,
  Uint8Array: () => Uint8Array2,
  Uncapitalize: () => Uncapitalize,
  Undefined: () => Undefined,
  Union: () => Union,
  Unknown: () => Unknown,
  Unsafe: () => Unsafe,
  Uppercase: () => Uppercase,
  Void: () => Void
});

// npm:@sinclair/typebox/0.34.52/build/esm/type/type/index.mjs
var Type = type_exports2;

// src/tools/bash/mod.ts
import { join as join2 } from "node:path";

// src/tools/truncate.ts
var DEFAULT_MAX_LINES = 2e3;
var DEFAULT_MAX_BYTES = 51200;
var encoder = new TextEncoder();
function byteLength(text) {
  return encoder.encode(text).length;
}
function splitLines(text) {
  if (text === "") return [];
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}
function truncateHead(text, limits = {}) {
  return keepLines(text, limits, "head");
}
function truncateTail(text, limits = {}) {
  return keepLines(text, limits, "tail");
}
function keepLines(text, limits, from) {
  const maxLines = limits.maxLines ?? DEFAULT_MAX_LINES;
  const maxBytes = limits.maxBytes ?? DEFAULT_MAX_BYTES;
  const lines = splitLines(text);
  const ordered = from === "head" ? lines : [
    ...lines
  ].reverse();
  const kept = [];
  let bytes = 0;
  let truncatedBy = null;
  for (const line of ordered) {
    if (kept.length >= maxLines) {
      truncatedBy = "lines";
      break;
    }
    const size = byteLength(line) + (kept.length > 0 ? 1 : 0);
    if (bytes + size > maxBytes) {
      truncatedBy = "bytes";
      break;
    }
    kept.push(line);
    bytes += size;
  }
  if (from === "tail") kept.reverse();
  const content = kept.join("\n");
  return {
    content,
    truncated: truncatedBy !== null,
    truncatedBy,
    totalLines: lines.length,
    totalBytes: byteLength(text),
    outputLines: kept.length,
    outputBytes: byteLength(content)
  };
}
function markCutLine(kept, fullLength) {
  return `${kept}\u2026 [line truncated, ${fullLength} characters in full]`;
}
function formatSize(bytes) {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  if (bytes < 1024 * 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
  return `${(bytes / (1024 * 1024 * 1024)).toFixed(1)} GB`;
}

// src/tools/bash/tail.ts
var NEWLINE = 10;
var decoder = new TextDecoder();
var encoder2 = new TextEncoder();
var DEFAULT_TAIL_CAPACITY = 64 * 1024;
var TailBuffer = class {
  /** Maximum bytes retained. */
  capacity;
  #buf = null;
  #start = 0;
  #length = 0;
  #totalBytes = 0;
  #newlines = 0;
  #lastByte = -1;
  #lastDroppedByte = -1;
  constructor(capacity = DEFAULT_TAIL_CAPACITY) {
    if (!Number.isInteger(capacity) || capacity < 1) {
      throw new RangeError(`TailBuffer capacity must be a positive integer, got ${capacity}`);
    }
    this.capacity = capacity;
  }
  /** Bytes pushed so far. */
  get totalBytes() {
    return this.#totalBytes;
  }
  /** Lines pushed so far (a final line without newline counts). */
  get totalLines() {
    if (this.#totalBytes === 0) return 0;
    return this.#newlines + (this.#lastByte === NEWLINE ? 0 : 1);
  }
  /** Bytes currently held (at most `capacity`). */
  get retainedBytes() {
    return this.#length;
  }
  /** Bytes that fell out of the buffer. */
  get droppedBytes() {
    return this.#totalBytes - this.#length;
  }
  /** Appends a chunk, dropping the oldest bytes beyond capacity. */
  push(chunk) {
    if (chunk.length === 0) return;
    this.#totalBytes += chunk.length;
    this.#newlines += countNewlines(chunk);
    this.#lastByte = chunk[chunk.length - 1];
    const buf = this.#buf ??= new Uint8Array(this.capacity);
    const cap = this.capacity;
    let data = chunk;
    if (data.length >= cap) {
      const droppedFromChunk = data.length - cap;
      this.#lastDroppedByte = droppedFromChunk > 0 ? data[droppedFromChunk - 1] : this.#length > 0 ? buf[(this.#start + this.#length - 1) % cap] : this.#lastDroppedByte;
      buf.set(data.subarray(droppedFromChunk));
      this.#start = 0;
      this.#length = cap;
      return;
    }
    const overflow = this.#length + data.length - cap;
    if (overflow > 0) {
      this.#lastDroppedByte = buf[(this.#start + overflow - 1) % cap];
      this.#start = (this.#start + overflow) % cap;
      this.#length -= overflow;
    }
    let end = (this.#start + this.#length) % cap;
    while (data.length > 0) {
      const n = Math.min(data.length, cap - end);
      buf.set(data.subarray(0, n), end);
      data = data.subarray(n);
      this.#length += n;
      end = (end + n) % cap;
    }
  }
  /** A contiguous copy of the retained bytes, oldest first. */
  bytes() {
    const out = new Uint8Array(this.#length);
    if (this.#buf === null || this.#length === 0) return out;
    const firstPart = Math.min(this.#length, this.capacity - this.#start);
    out.set(this.#buf.subarray(this.#start, this.#start + firstPart));
    if (firstPart < this.#length) {
      out.set(this.#buf.subarray(0, this.#length - firstPart), firstPart);
    }
    return out;
  }
  /** The retained tail as text, starting at a line boundary whenever one is held. */
  view() {
    const totals = {
      totalBytes: this.#totalBytes,
      totalLines: this.totalLines
    };
    let bytes = this.bytes();
    if (this.droppedBytes === 0) {
      return {
        text: decoder.decode(bytes),
        complete: true,
        lineCut: false,
        ...totals
      };
    }
    if (this.#lastDroppedByte !== NEWLINE) {
      const firstNewline = bytes.indexOf(NEWLINE);
      if (firstNewline === -1 || firstNewline === bytes.length - 1) {
        bytes = skipContinuationBytes(bytes);
        return {
          text: decoder.decode(bytes),
          complete: false,
          lineCut: true,
          ...totals
        };
      }
      bytes = bytes.subarray(firstNewline + 1);
    }
    return {
      text: decoder.decode(bytes),
      complete: false,
      lineCut: false,
      ...totals
    };
  }
};
function skipContinuationBytes(bytes) {
  let i = 0;
  while (i < bytes.length && i < 4 && (bytes[i] & 192) === 128) i++;
  return bytes.subarray(i);
}
function tailBytes(text, maxBytes) {
  const bytes = encoder2.encode(text);
  if (bytes.length <= maxBytes) return text;
  return decoder.decode(skipContinuationBytes(bytes.subarray(bytes.length - maxBytes)));
}
function countNewlines(bytes) {
  const len = bytes.length;
  let count = 0;
  let i = 0;
  const head = Math.min(len, 4 - (bytes.byteOffset & 3) & 3);
  for (; i < head; i++) if (bytes[i] === 10) count++;
  const words = len - i >>> 2;
  if (words > 0) {
    const view = new Uint32Array(bytes.buffer, bytes.byteOffset + i, words);
    for (let k = 0; k < words; k++) {
      const x = view[k] ^ 168430090;
      const zeros = ~((x & 2139062143) + 2139062143 | x | 2139062143);
      if (zeros !== 0) count += Math.imul(zeros >>> 7, 16843009) >>> 24;
    }
    i += words * 4;
  }
  for (; i < len; i++) if (bytes[i] === 10) count++;
  return count;
}

// src/tools/bash/collector.ts
var DEFAULT_SPILL_LIMIT = 10 * 1024 * 1024;
var StreamCollector = class {
  /** The stream's tail. */
  tail;
  #openSpill;
  #spillLimit;
  #threshold;
  #head = [];
  #headBytes = 0;
  #spill = null;
  #spilledBytes = 0;
  #spillError = null;
  #closed = false;
  constructor(options) {
    this.tail = new TailBuffer(options.tailCapacity ?? DEFAULT_TAIL_CAPACITY);
    this.#openSpill = options.openSpill;
    this.#spillLimit = options.spillLimit ?? DEFAULT_SPILL_LIMIT;
    this.#threshold = options.spillThreshold ?? {
      maxLines: DEFAULT_MAX_LINES,
      maxBytes: DEFAULT_MAX_BYTES
    };
  }
  /** Path of the spill file, once one was created. */
  get spillPath() {
    return this.#spill?.path ?? null;
  }
  /** True when the stream was longer than what the spill file holds. */
  get spillCapped() {
    return this.#spill !== null && this.tail.totalBytes > this.#spillLimit;
  }
  /** Bytes written to the spill file. */
  get spilledBytes() {
    return this.#spilledBytes;
  }
  /** Why the stream could not be saved, if it could not. */
  get spillError() {
    return this.#spillError;
  }
  /** Bytes of stream data held in memory right now (tail + unspilled head). */
  get retainedBytes() {
    return this.tail.retainedBytes + this.#headBytes;
  }
  /** Adds a chunk of the stream. */
  async push(chunk) {
    if (chunk.length === 0) return;
    this.tail.push(chunk);
    if (this.#closed || this.#spillError !== null) return;
    if (this.#spill !== null) {
      await this.#write(chunk);
      return;
    }
    const withinThreshold = this.tail.totalBytes <= this.#threshold.maxBytes && this.tail.totalLines <= this.#threshold.maxLines;
    if (withinThreshold) {
      this.#head.push(chunk.slice());
      this.#headBytes += chunk.length;
      return;
    }
    await this.#startSpill(chunk);
  }
  /** Makes sure the stream is saved to a spill file (e.g. when the result drops part of it). */
  async ensureSpilled() {
    if (this.#closed || this.#spill !== null || this.#spillError !== null) return;
    if (this.tail.totalBytes === 0) return;
    await this.#startSpill(null);
  }
  /** Closes the spill file; later pushes only update the tail. */
  async close() {
    if (this.#closed) return;
    this.#closed = true;
    this.#head = [];
    this.#headBytes = 0;
    const spill = this.#spill;
    if (spill === null) return;
    try {
      await spill.close();
    } catch (e) {
      if (!(e instanceof FsError)) throw e;
      this.#spillError ??= e.message;
    }
  }
  async #startSpill(chunk) {
    const head = this.#head;
    this.#head = [];
    this.#headBytes = 0;
    try {
      this.#spill = await this.#openSpill();
    } catch (e) {
      if (!(e instanceof FsError)) throw e;
      this.#spillError = e.message;
      return;
    }
    for (const part of head) await this.#write(part);
    if (chunk !== null) await this.#write(chunk);
  }
  async #write(chunk) {
    const spill = this.#spill;
    const room = this.#spillLimit - this.#spilledBytes;
    if (spill === null || room <= 0 || this.#spillError !== null) return;
    const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
    try {
      await spill.write(part);
      this.#spilledBytes += part.length;
    } catch (e) {
      if (!(e instanceof FsError)) throw e;
      this.#spillError = e.message;
    }
  }
};

// src/tools/bash/fit.ts
function splitLineCount(text) {
  if (text === "") return 0;
  const n = text.split("\n").length;
  return text.endsWith("\n") ? n - 1 : n;
}
function splitBudget(needA, needB, total) {
  if (needA + needB <= total) return [
    needA,
    needB
  ];
  const half = Math.floor(total / 2);
  if (needA <= half) return [
    needA,
    total - needA
  ];
  if (needB <= half) return [
    total - needB,
    needB
  ];
  return [
    total - half,
    half
  ];
}
function fitOne(view, maxLines, maxBytes) {
  const totals = {
    totalLines: view.totalLines,
    totalBytes: view.totalBytes
  };
  if (view.text === "") {
    return {
      text: "",
      shownLines: 0,
      truncated: !view.complete,
      lineCut: false,
      ...totals
    };
  }
  const text = view.text.endsWith("\n") ? view.text.slice(0, -1) : view.text;
  const fitted = truncateTail(text, {
    maxLines,
    maxBytes
  });
  if (fitted.outputLines > 0 || maxLines === 0 || maxBytes === 0) {
    return {
      text: fitted.content,
      shownLines: fitted.outputLines,
      truncated: !view.complete || fitted.truncated,
      lineCut: view.lineCut && fitted.outputLines === fitted.totalLines,
      ...totals
    };
  }
  const lastLine = text.slice(text.lastIndexOf("\n") + 1);
  return {
    text: tailBytes(lastLine, maxBytes),
    shownLines: 1,
    truncated: true,
    lineCut: true,
    ...totals
  };
}
function fitTails(stdout, stderr, budget = {
  maxLines: DEFAULT_MAX_LINES,
  maxBytes: DEFAULT_MAX_BYTES
}) {
  const outText = stdout.text.endsWith("\n") ? stdout.text.slice(0, -1) : stdout.text;
  const errText = stderr.text.endsWith("\n") ? stderr.text.slice(0, -1) : stderr.text;
  const [outLines, errLines] = splitBudget(splitLineCount(outText), splitLineCount(errText), budget.maxLines);
  const [outBytes, errBytes] = splitBudget(byteLength(outText), byteLength(errText), budget.maxBytes);
  return {
    stdout: fitOne(stdout, outLines, outBytes),
    stderr: fitOne(stderr, errLines, errBytes)
  };
}

// src/tools/bash/output.ts
var STDERR_HEADER = "--- stderr ---";
var ANSI_ESCAPES = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)/g;
function asTerminalShows(text) {
  if (!text.includes("\r") && !text.includes("\x1B")) return text;
  return text.replace(ANSI_ESCAPES, "").split("\n").map((line) => {
    const body = line.endsWith("\r") ? line.slice(0, -1) : line;
    if (!body.includes("\r")) return body;
    return body.split("\r").reduce((shown, frame) => frame + shown.slice(frame.length), "");
  }).join("\n");
}
function looksLikeBinaryText(text) {
  if (text.length === 0) return false;
  if (text.includes("\0")) return true;
  let odd = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 65533 || code < 32 && code !== 9 && code !== 10 && code !== 12 && code !== 13 && code !== 27) odd++;
  }
  return odd * 10 > text.length;
}
function joinStreams(stdout, stderr) {
  if (stderr.text === "") return stdout.text;
  if (stdout.text === "") return `${STDERR_HEADER}
${stderr.text}`;
  return `${stdout.text}
${STDERR_HEADER}
${stderr.text}`;
}
function streamNote(name, fitted, collector) {
  if (!fitted.truncated) return null;
  const parts = [];
  const lines = fitted.totalLines === 1 ? "1 line" : `${fitted.totalLines} lines`;
  const total = `${lines}, ${formatSize(fitted.totalBytes)}`;
  if (fitted.lineCut) {
    parts.push(`${name}: ${total}; showing only the end of its last line (the line is longer than the output budget).`);
  } else {
    parts.push(`${name}: showing the last ${fitted.shownLines} of ${total}.`);
  }
  const path = collector.spillPath;
  if (path !== null) {
    parts.push(collector.spillCapped ? `The first 10 MiB of ${name} are saved in ${path} (the rest was not kept).` : `Full ${name} saved in ${path}.`);
  } else if (collector.spillError !== null) {
    parts.push(`The full ${name} could not be saved: ${collector.spillError}`);
  }
  return `[${parts.join(" ")}]`;
}
function endingLine(ending, timeoutSec) {
  switch (ending.type) {
    case "timeout":
      return `command timed out after ${timeoutSec}s and was killed`;
    case "abort":
      return "command aborted";
    case "exit": {
      const { code, signal } = ending.status;
      if (signal !== null) return `Command was killed by signal ${signal}`;
      if (code === null) return "Command ended without an exit status";
      return code === 0 ? null : `Command exited with code ${code}`;
    }
    default: {
      const never = ending;
      return never;
    }
  }
}
async function buildResult(input) {
  const { ending, collectors, timeoutSec } = input;
  const fitted = fitTails(collectors.stdout.tail.view(), collectors.stderr.tail.view());
  if (fitted.stdout.truncated) await collectors.stdout.ensureSpilled();
  if (fitted.stderr.truncated) await collectors.stderr.ensureSpilled();
  await collectors.stdout.close();
  await collectors.stderr.close();
  const notes = [
    ...input.notes
  ];
  const outNote = streamNote("stdout", fitted.stdout, collectors.stdout);
  if (outNote !== null) notes.push(outNote);
  const errNote = streamNote("stderr", fitted.stderr, collectors.stderr);
  if (errNote !== null) notes.push(errNote);
  const last = endingLine(ending, timeoutSec);
  const body = joinStreams({
    ...fitted.stdout,
    text: shownToModel(fitted.stdout)
  }, {
    ...fitted.stderr,
    text: shownToModel(fitted.stderr)
  });
  const sections = [];
  if (body !== "") sections.push(body);
  const tail = [
    ...notes,
    ...last === null ? [] : [
      last
    ]
  ].join("\n");
  if (tail !== "") sections.push(tail);
  const output = sections.length > 0 ? sections.join("\n\n") : "(no output)";
  const details = {
    exitCode: ending.type === "exit" && ending.status.signal === null ? ending.status.code : null,
    timeoutSec,
    stdoutBytes: fitted.stdout.totalBytes,
    stderrBytes: fitted.stderr.totalBytes,
    truncated: fitted.stdout.truncated || fitted.stderr.truncated,
    retainedPeakBytes: input.peak
  };
  if (ending.type === "exit" && ending.status.signal !== null) {
    details.signal = ending.status.signal;
  }
  if (ending.type === "timeout") details.timedOut = true;
  if (ending.type === "abort") details.aborted = true;
  if (collectors.stdout.spillPath !== null) details.stdoutFile = collectors.stdout.spillPath;
  if (collectors.stderr.spillPath !== null) details.stderrFile = collectors.stderr.spillPath;
  const isError = ending.type !== "exit" || ending.status.code === null && ending.status.signal === null;
  return isError ? {
    output,
    isError: true,
    details
  } : {
    output,
    details
  };
}
function shownToModel(tail) {
  if (looksLikeBinaryText(tail.text)) {
    return `[binary output not shown (${formatSize(tail.totalBytes)}); inspect it with "xxd | head" or "od -c | head", or redirect it to a file]`;
  }
  return asTerminalShows(tail.text);
}

// src/tools/bash/job_tool.ts
var JobParams = Type.Object({
  action: Type.Union([
    Type.Literal("read"),
    Type.Literal("wait"),
    Type.Literal("stop"),
    Type.Literal("list")
  ], {
    description: "read: the job's new output since the last read; wait: block until a line matches `pattern` (or, without one, until the job exits) or `timeout` passes, then read; stop: kill the job and everything it started; list: every job and its state."
  }),
  id: Type.Optional(Type.String({
    description: "The job id bash returned (every action but list needs it)."
  })),
  pattern: Type.Optional(Type.String({
    description: 'wait: a JavaScript regular expression tested against each new output line, e.g. "Listening on|ready".'
  })),
  timeout: Type.Optional(Type.Number({
    exclusiveMinimum: 0,
    description: "wait: the longest to wait, in seconds (default 30, at most 600). The job keeps running when the wait times out."
  }))
});
var DEFAULT_WAIT_SEC = 30;
var MAX_WAIT_SEC = 600;
function createJobTool(table) {
  return {
    name: "job",
    label: "Job",
    description: "Read, wait for, or stop a background job that bash started with `background: true` (a dev server, a watcher). `read` returns the job's new output since the last read (stdout and stderr merged, the end kept when it is long; the first 10 MiB are in the log file named in the result); `wait` blocks until a new line matches `pattern` or the job exits; `stop` kills the job and everything it started. Jobs are killed when the session ends.",
    parameters: JobParams,
    kind: "read",
    concurrencySafe: false,
    locations: () => [],
    async execute(args, signal) {
      if (args.action === "list") return listResult(table.list());
      if (args.id === void 0) {
        return {
          output: `The action "${args.action}" needs the job's \`id\``,
          isError: true
        };
      }
      const job = table.get(args.id);
      if (job === void 0) {
        const ids = table.list().map((j) => `"${j.id}"`).join(", ");
        return {
          output: `No job "${args.id}": ${ids === "" ? "no job was started" : `the jobs are ${ids}`}; start one with bash (\`background: true\`)`,
          isError: true
        };
      }
      switch (args.action) {
        case "read":
          await job.logged();
          return readResult(job, []);
        case "wait": {
          let pattern;
          if (args.pattern !== void 0) {
            try {
              pattern = new RegExp(args.pattern);
            } catch (e) {
              return {
                output: `Invalid pattern "${args.pattern}": ${e.message}`,
                isError: true
              };
            }
          }
          const sec = Math.min(args.timeout ?? DEFAULT_WAIT_SEC, MAX_WAIT_SEC);
          const end = await job.wait(pattern, {
            timeoutMs: sec * 1e3,
            signal,
            clock: table.clock
          });
          await job.logged();
          return readResult(job, [
            waitLine(end, sec, args.pattern)
          ], {
            waited: end
          });
        }
        case "stop": {
          const wasRunning = job.running;
          await job.stop(table.clock);
          const out = readResult(job, wasRunning ? [] : [
            "[It had already ended.]"
          ]);
          return {
            ...out,
            details: {
              ...out.details,
              stopped: wasRunning
            }
          };
        }
        default: {
          const never = args.action;
          return never;
        }
      }
    }
  };
}
function waitLine(end, sec, pattern) {
  switch (end) {
    case "match":
      return `[A line matched ${JSON.stringify(pattern)}.]`;
    case "exit":
      return "[The job ended.]";
    case "timeout":
      return `[Waited ${sec}s: ${pattern === void 0 ? "the job is still running" : `no new line matched so far`}.]`;
    case "abort":
      return "[The wait was aborted.]";
    default: {
      const never = end;
      return never;
    }
  }
}
function stateLine(info) {
  const head = `Job "${info.id}" (\`${info.command}\`, pid ${info.pid})`;
  switch (info.state) {
    case "running":
      return `${head} is running.`;
    case "stopped":
      return `${head} was stopped.`;
    case "exited":
      return info.signal !== null ? `${head} was killed by signal ${info.signal}.` : `${head} exited with code ${info.exitCode}.`;
    default: {
      const never = info.state;
      return never;
    }
  }
}
function readResult(job, notes, options = {}) {
  const { waited } = options;
  const info = job.info();
  const body = unreadText(job.takeUnread({
    preview: options.preview === true
  }), info);
  const sections = [
    body.text,
    [
      ...notes,
      ...body.notes,
      stateLine(info)
    ].join("\n")
  ];
  const details = {
    job: info,
    ...waited === void 0 ? {} : {
      waited
    }
  };
  return {
    output: sections.filter((s) => s !== "").join("\n\n"),
    details
  };
}
function unreadText(unread, info) {
  const empty = {
    text: "",
    complete: true,
    lineCut: false,
    totalBytes: 0,
    totalLines: 0
  };
  const { stdout } = fitTails(unread.view(), empty);
  if (stdout.totalBytes === 0) return {
    text: "(no new output)",
    notes: []
  };
  const notes = [];
  if (stdout.truncated) {
    notes.push(`[Showing the last ${stdout.shownLines} of ${stdout.totalLines} new lines (${formatSize(stdout.totalBytes)}).${info.logFile === null ? "" : ` The job's output (first 10 MiB) is in ${info.logFile}: page it with the read tool.`}]`);
  }
  return {
    text: shownToModel(stdout),
    notes
  };
}
function listResult(jobs) {
  const infos = jobs.map((j) => j.info());
  const details = {
    jobs: infos
  };
  if (infos.length === 0) return {
    output: "No background jobs.",
    details
  };
  return {
    output: infos.map(stateLine).join("\n"),
    details
  };
}

// src/tools/bash/run.ts
var REAL_CLOCK = {
  now: () => performance.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle)
};
var QUIET_MS = 100;
var MAX_DRAIN_AFTER_EXIT_MS = 2e3;
var MAX_DRAIN_AFTER_KILL_MS = 500;
var UPDATE_INTERVAL_MS = 100;
var LIVE_TAIL_BUDGET = {
  maxLines: 20,
  maxBytes: 4096
};
var CallRun = class {
  #child;
  #collectors;
  #onUpdate;
  #pumps;
  #lastActivity = performance.now();
  #clock;
  #updateTimer;
  #lastUpdate;
  #finished = false;
  /** Most stream bytes retained at once. */
  peakRetained = 0;
  constructor(child, collectors, onUpdate, clock) {
    this.#child = child;
    this.#collectors = collectors;
    this.#onUpdate = onUpdate;
    this.#clock = clock;
    this.#lastUpdate = clock.now() - UPDATE_INTERVAL_MS;
    this.#pumps = [
      this.#pump(child.stdout, collectors.stdout),
      this.#pump(child.stderr, collectors.stderr)
    ];
  }
  #pump(stream, collector) {
    const read = chunkReader(stream);
    let ended = false;
    const loop = (async () => {
      try {
        while (true) {
          let chunk;
          try {
            chunk = await read.next();
          } catch (e) {
            if (e instanceof Error) break;
            throw e;
          }
          if (chunk === null) break;
          this.#lastActivity = performance.now();
          await collector.push(chunk);
          this.#lastActivity = performance.now();
          this.#trackMemory();
          this.#scheduleUpdate();
        }
      } finally {
        ended = true;
      }
    })();
    return {
      // Never rejects (which also marks `loop` handled); `cancel` rethrows a failure of `loop`.
      ended: loop.then(() => {
      }, () => {
      }),
      isEnded: () => ended,
      cancel: async () => {
        if (!ended) {
          await read.cancel().catch(() => {
          });
        }
        await loop;
      }
    };
  }
  #trackMemory() {
    const retained = this.#collectors.stdout.retainedBytes + this.#collectors.stderr.retainedBytes;
    if (retained > this.peakRetained) this.peakRetained = retained;
  }
  #scheduleUpdate() {
    if (this.#finished || this.#updateTimer !== void 0) return;
    const wait = Math.max(0, Math.ceil(this.#lastUpdate + UPDATE_INTERVAL_MS - this.#clock.now()));
    this.#updateTimer = this.#clock.setTimeout(() => {
      this.#updateTimer = void 0;
      if (this.#finished) return;
      if (this.#clock.now() - this.#lastUpdate < UPDATE_INTERVAL_MS) {
        this.#scheduleUpdate();
        return;
      }
      this.#lastUpdate = this.#clock.now();
      const { stdout, stderr } = fitTails(this.#collectors.stdout.tail.view(), this.#collectors.stderr.tail.view(), LIVE_TAIL_BUDGET);
      const details = {
        totalLines: stdout.totalLines + stderr.totalLines,
        totalBytes: stdout.totalBytes + stderr.totalBytes
      };
      try {
        this.#onUpdate({
          text: joinStreams(stdout, stderr),
          details
        });
      } catch {
      }
    }, wait);
  }
  /** Waits until the command exits, times out or is aborted, then drains its output. */
  async wait(timeoutMs, signal) {
    let timer;
    let onAbort;
    const ending = await new Promise((resolve7) => {
      timer = setTimeout(() => resolve7({
        type: "timeout"
      }), timeoutMs);
      onAbort = () => resolve7({
        type: "abort"
      });
      signal.addEventListener("abort", onAbort, {
        once: true
      });
      this.#child.status.then((status) => resolve7({
        type: "exit",
        status
      }));
    });
    clearTimeout(timer);
    if (onAbort) signal.removeEventListener("abort", onAbort);
    if (ending.type === "exit") {
      await this.#drain(MAX_DRAIN_AFTER_EXIT_MS, signal);
    } else {
      await this.#child.killGroup();
      await this.#drain(MAX_DRAIN_AFTER_KILL_MS, void 0);
    }
    return ending;
  }
  /** Resolves when both streams ended, or output was quiet QUIET_MS, or after `maxMs`. */
  async #drain(maxMs, signal) {
    const start = performance.now();
    this.#lastActivity = Math.max(this.#lastActivity, start);
    const bothEnded = Promise.all(this.#pumps.map((p) => p.ended));
    while (!this.#pumps.every((p) => p.isEnded()) && !signal?.aborted) {
      const now = performance.now();
      const quietFor = now - this.#lastActivity;
      const left = maxMs - (now - start);
      if (quietFor >= QUIET_MS || left <= 0) return;
      let timer;
      let onAbort;
      await Promise.race([
        bothEnded,
        new Promise((resolve7) => {
          timer = setTimeout(resolve7, Math.min(QUIET_MS - quietFor, left));
          if (signal) {
            onAbort = resolve7;
            signal.addEventListener("abort", onAbort, {
              once: true
            });
          }
        })
      ]);
      clearTimeout(timer);
      if (signal && onAbort) signal.removeEventListener("abort", onAbort);
    }
  }
  /** Kills the group, stops reading, and waits for the process; safe after any failure. */
  async finish() {
    this.#finished = true;
    if (this.#updateTimer !== void 0) this.#clock.clearTimeout(this.#updateTimer);
    this.#updateTimer = void 0;
    await this.#child.killGroup();
    await Promise.all(this.#pumps.map((p) => p.cancel()));
    await this.#child.status;
    this.#trackMemory();
  }
};
var READ_CHUNK_BYTES = 64 * 1024;
function chunkReader(stream) {
  let byob;
  try {
    byob = stream.getReader({
      mode: "byob"
    });
  } catch (e) {
    if (!(e instanceof TypeError)) throw e;
    const reader = stream.getReader();
    return {
      async next() {
        const r = await reader.read();
        return r.done ? null : r.value;
      },
      cancel: () => reader.cancel()
    };
  }
  let buffer = new ArrayBuffer(READ_CHUNK_BYTES);
  return {
    async next() {
      for (; ; ) {
        const r = await byob.read(new Uint8Array(buffer));
        if (r.value !== void 0) buffer = r.value.buffer;
        if (r.done) return null;
        if (r.value !== void 0 && r.value.length > 0) return r.value;
      }
    },
    cancel: () => byob.cancel()
  };
}
async function bashArgv(prefix, command) {
  try {
    const head = typeof prefix === "function" ? await prefix() : prefix ?? [];
    return {
      ok: true,
      argv: [
        ...head,
        "bash",
        "-c",
        command
      ]
    };
  } catch (e) {
    return {
      ok: false,
      message: e instanceof Error ? e.message : String(e)
    };
  }
}

// src/tools/bash/mod.ts
var BashParams = Type.Object({
  command: Type.String({
    description: "The bash command line to run (passed to `bash -c`)."
  }),
  timeout: Type.Optional(Type.Number({
    exclusiveMinimum: 0,
    description: "Timeout in seconds (default 120, capped by the configured maximum, 600 by default). On timeout the command and everything it started are killed."
  })),
  background: Type.Optional(Type.Boolean({
    description: "Run the command as a background job (a dev server, a watcher): the call returns at once with a job id and the first lines of output; read, wait for or stop the job with the job tool. No timeout applies; the job is killed when the session ends."
  }))
});
var FIRST_OUTPUT_MS = 1e3;
function createBashTool(options) {
  const defaultTimeout = options.timeoutSec ?? 120;
  const maxTimeout = options.maxTimeoutSec ?? 600;
  const env = options.env ?? {};
  const prefix = options.commandPrefix;
  const registry = options.processRegistry;
  const processOps = options.process;
  return {
    name: "bash",
    label: "Bash",
    description: `Run a shell command with \`bash -c\` in the workspace directory; stdin is empty, so interactive prompts fail. Returns the end of stdout and, separately, of stderr (together at most ${DEFAULT_MAX_LINES} lines / ${DEFAULT_MAX_BYTES / 1024} KB); when output is dropped, a note gives the files holding the full output (first 10 MiB of each stream): page them with the read tool. A non-zero exit code is reported at the end of the output, not as an error. Default timeout ${defaultTimeout}s (pass \`timeout\` in seconds, at most ${maxTimeout}s); on timeout or abort the command and everything it started are killed. Background processes (\`&\`) are killed when the command finishes: for a server or a watcher that must keep running, pass \`background: true\` instead.` + (options.privateTmp === void 0 ? "" : ` ${options.privateTmp} is private to this run and discarded at its end: keep files you need inside the workspace.`) + (options.placeholders ? " Empty read-only directories such as .vscode may appear during the run: they are moat's placeholders keeping protected paths read-only; leave them." : ""),
    parameters: BashParams,
    kind: "execute",
    concurrencySafe: false,
    // The output is already bounded by its own budget; room for the notes keeps the generic
    // cap from cutting a second hole into the middle of it.
    maxResultChars: DEFAULT_MAX_BYTES + 4e3,
    locations() {
      return [
        {
          access: "run",
          program: "bash"
        }
      ];
    },
    prunedHint(_args, result) {
      const details = result.details;
      const ended = typeof details?.exitCode === "number" ? `It exited with code ${details.exitCode}. ` : "";
      const saved = [
        details?.stdoutFile,
        details?.stderrFile
      ].filter((f) => f !== void 0);
      return saved.length > 0 ? `${ended}Its full output was saved in ${saved.map((f) => JSON.stringify(f)).join(" and ")}: page it with the read tool (offset/limit).` : `${ended}Run the command again if you need its output (mind its side effects).`;
    },
    async execute(args, signal, ctx) {
      const requested = args.timeout ?? defaultTimeout;
      const timeoutSec = Math.min(requested, maxTimeout);
      const notes = [];
      if (requested > maxTimeout) {
        notes.push(`[Timeout ${requested}s is over the maximum; used ${maxTimeout}s.]`);
      }
      const emptyDetails = {
        exitCode: null,
        timeoutSec,
        stdoutBytes: 0,
        stderrBytes: 0,
        truncated: false,
        retainedPeakBytes: 0
      };
      if (signal.aborted) {
        return {
          output: "command aborted",
          isError: true,
          details: {
            ...emptyDetails,
            aborted: true
          }
        };
      }
      if (args.background === true) return await startJob(options, args.command, internalId(args));
      const callId = newCallId();
      const collectors = {
        stdout: new StreamCollector({
          openSpill: () => processOps.createSpillFile(join2(options.spillDir, `bash-${callId}.stdout.log`))
        }),
        stderr: new StreamCollector({
          openSpill: () => processOps.createSpillFile(join2(options.spillDir, `bash-${callId}.stderr.log`))
        })
      };
      const built = await bashArgv(prefix, args.command);
      if (!built.ok) {
        return {
          output: `Cannot run the command: ${built.message}`,
          isError: true,
          details: emptyDetails
        };
      }
      const argv = built.argv;
      const spawned = processOps.spawn(argv[0], argv.slice(1), {
        cwd: options.cwd,
        env
      });
      if (!spawned.ok) {
        return {
          output: `Could not start bash in "${options.cwd}": ${spawned.message}`,
          isError: true,
          details: emptyDetails
        };
      }
      const child = spawned.child;
      const unregister = registry?.add(child) ?? (() => {
      });
      const run = new CallRun(child, collectors, ctx.onUpdate, options.updateClock ?? REAL_CLOCK);
      let ending;
      try {
        ending = await run.wait(timeoutSec * 1e3, signal);
      } finally {
        await run.finish();
        unregister();
      }
      return await buildResult({
        ending,
        collectors,
        notes,
        timeoutSec,
        peak: run.peakRetained
      });
    }
  };
}
function internalId(args) {
  const id = args[JOB_ID_ARG];
  return typeof id === "string" ? id : void 0;
}
var JOB_ID_ARG = "__job_id";
async function startJob(options, command, id) {
  const table = options.jobs;
  if (table === void 0) {
    return {
      output: "Background jobs are not available here: run the command without `background`",
      isError: true
    };
  }
  const started = await table.start(command, id);
  if (!started.ok) return {
    output: started.message,
    isError: true
  };
  const job = started.job;
  let timer;
  await Promise.race([
    job.exited,
    new Promise((resolve7) => timer = table.clock.setTimeout(resolve7, FIRST_OUTPUT_MS))
  ]);
  table.clock.clearTimeout(timer);
  await job.logged();
  const how = `Read its new output with the job tool ({"action": "read", "id": "${job.id}"}), wait for a line with {"action": "wait", "id": "${job.id}", "pattern": "\u2026"}, and stop it with {"action": "stop", "id": "${job.id}"}.`;
  return readResult(job, [
    job.running ? `[Started job "${job.id}" in the background. ${how}]` : `[Started job "${job.id}"; it has already ended.]`
  ], {
    preview: true
  });
}
function newCallId() {
  const random = new Uint8Array(4);
  crypto.getRandomValues(random);
  const hex = [
    ...random
  ].map((b) => b.toString(16).padStart(2, "0")).join("");
  return `${Date.now().toString(36)}-${hex}`;
}

// src/tools/bash/jobs.ts
import { join as join3 } from "node:path";
var DEFAULT_MAX_JOBS = 8;
var UNREAD_CAPACITY = 64 * 1024;
var RECENT_CAPACITY = 4 * 1024;
var MAX_PARTIAL_LINE = 4096;
var STOP_DRAIN_MS = 500;
var Job = class {
  id;
  command;
  #child;
  #log;
  #unread = new TailBuffer(UNREAD_CAPACITY);
  /** The start's preview, until the next read. */
  #preview = "";
  #recent = new TailBuffer(RECENT_CAPACITY);
  #decoder = new TextDecoder();
  #partial = "";
  #writing = Promise.resolve();
  #status = null;
  #stopped = false;
  #listeners = /* @__PURE__ */ new Set();
  #readers = [];
  /** Settles once both pipes ended. */
  ended;
  /** Settles once the process exited. */
  exited;
  constructor(id, command, child, log) {
    this.id = id;
    this.command = command;
    this.#child = child;
    this.#log = log;
    this.exited = child.status.then((status) => {
      this.#status = status;
      this.#notify(null);
    });
    this.ended = Promise.all([
      this.#pump(child.stdout),
      this.#pump(child.stderr)
    ]).then(() => this.#writing).then(() => this.#log.close());
  }
  async #pump(stream) {
    const reader = stream.getReader();
    this.#readers.push(reader);
    try {
      for (; ; ) {
        const r = await reader.read();
        if (r.done) return;
        this.#take(r.value.slice());
      }
    } catch (e) {
      if (!(e instanceof Error)) throw e;
    }
  }
  #take(chunk) {
    this.#unread.push(chunk);
    this.#recent.push(chunk);
    this.#writing = this.#writing.then(() => this.#log.push(chunk));
    const lines = (this.#partial + this.#decoder.decode(chunk, {
      stream: true
    })).split("\n");
    this.#partial = (lines.pop() ?? "").slice(-MAX_PARTIAL_LINE);
    for (const line of lines) this.#notify(line);
    if (this.#partial !== "") this.#notify(this.#partial);
  }
  #notify(line) {
    for (const listener of [
      ...this.#listeners
    ]) listener(line);
  }
  /**
   * Settles once the output so far is in the log file (the file exists once it printed anything),
   * so that a result names the file whenever it shows output.
   */
  async logged() {
    await this.#writing;
  }
  /** True until the process exited. */
  get running() {
    return this.#status === null;
  }
  /**
   * The output since the last read (its bounded tail), and marks it read. A `preview` (the first
   * lines the start shows) is read for `read`, but a later pattern `wait` still looks at it: a
   * server's "ready" line is often among its first.
   */
  takeUnread(options = {}) {
    const unread = this.#unread;
    this.#unread = new TailBuffer(UNREAD_CAPACITY);
    this.#preview = options.preview === true ? unread.view().text : "";
    return unread;
  }
  /**
   * Waits until a line of output matches `pattern` (lines since the last read count, and the
   * start's preview until then), the job
   * exits, `timeoutMs` pass, or `signal` aborts.
   */
  wait(pattern, options) {
    if (pattern !== void 0 && `${this.#preview}
${this.#unread.view().text}`.split("\n").some((l) => pattern.test(l))) {
      return Promise.resolve("match");
    }
    if (!this.running) return Promise.resolve("exit");
    if (options.signal.aborted) return Promise.resolve("abort");
    return new Promise((resolve7) => {
      const done = (end) => {
        this.#listeners.delete(listener);
        options.clock.clearTimeout(timer);
        options.signal.removeEventListener("abort", onAbort);
        resolve7(end);
      };
      const listener = (line) => {
        if (line === null) done("exit");
        else if (pattern?.test(line)) done("match");
      };
      const onAbort = () => done("abort");
      const timer = options.clock.setTimeout(() => done("timeout"), options.timeoutMs);
      this.#listeners.add(listener);
      options.signal.addEventListener("abort", onAbort, {
        once: true
      });
    });
  }
  /** Kills the job's whole process tree and waits for it (its pipes a short while). */
  async stop(clock) {
    if (this.running) this.#stopped = true;
    await this.#child.killGroup();
    await this.#child.status;
    let timer;
    await Promise.race([
      this.ended,
      new Promise((resolve7) => timer = clock.setTimeout(resolve7, STOP_DRAIN_MS))
    ]);
    clock.clearTimeout(timer);
    await Promise.all(this.#readers.map((r) => r.cancel().catch(() => {
    })));
    await this.ended;
  }
  /** The job's state. */
  info() {
    const status = this.#status;
    return {
      id: this.id,
      command: this.command,
      pid: this.#child.pid,
      state: status === null ? "running" : this.#stopped ? "stopped" : "exited",
      exitCode: status !== null && status.signal === null ? status.code : null,
      signal: status?.signal ?? null,
      outputBytes: this.#recent.totalBytes,
      outputLines: this.#recent.totalLines,
      logFile: this.#log.spillPath,
      lastLines: this.#recent.view().text
    };
  }
};
var JobTable = class {
  #options;
  #jobs = /* @__PURE__ */ new Map();
  #next = 1;
  /** The clock of waits. */
  clock;
  constructor(options) {
    this.#options = options;
    this.clock = options.clock ?? REAL_CLOCK;
  }
  /** Starts `command` as a job (id: `id`, else the next number). */
  async start(command, id) {
    const built = await bashArgv(this.#options.commandPrefix, command);
    if (!built.ok) return {
      ok: false,
      message: `Cannot start the job: ${built.message}`
    };
    const argv = built.argv;
    const max = this.#options.maxJobs ?? DEFAULT_MAX_JOBS;
    const running = [
      ...this.#jobs.values()
    ].filter((j) => j.running);
    if (running.length >= max) {
      return {
        ok: false,
        message: `Job limit reached: ${max} jobs are running (${running.map((j) => `"${j.id}"`).join(", ")}); stop one with the job tool (action "stop") before starting another`
      };
    }
    let jobId = id ?? String(this.#next);
    while (this.#jobs.has(jobId)) jobId = String(++this.#next);
    this.#next++;
    const { process: process2, cwd, env, spillDir } = this.#options;
    const spawned = process2.spawn(argv[0], argv.slice(1), {
      cwd,
      env
    });
    if (!spawned.ok) {
      return {
        ok: false,
        message: `Could not start bash in "${cwd}": ${spawned.message}`
      };
    }
    const log = new StreamCollector({
      openSpill: () => process2.createSpillFile(join3(spillDir, `job-${jobId}-${Date.now()}.log`)),
      spillThreshold: {
        maxBytes: 0,
        maxLines: 0
      }
    });
    const job = new Job(jobId, command, spawned.child, log);
    this.#options.processRegistry?.add(spawned.child);
    this.#jobs.set(jobId, job);
    return {
      ok: true,
      job
    };
  }
  /** The job `id`, if there is one. */
  get(id) {
    return this.#jobs.get(id);
  }
  /** Stops every running job; resolves to the states of those it stopped. */
  async stopAll() {
    const running = this.list().filter((j) => j.running);
    await Promise.all(running.map((j) => j.stop(this.clock)));
    return running.map((j) => j.info());
  }
  /** Every job, oldest first. */
  list() {
    return [
      ...this.#jobs.values()
    ];
  }
};

// npm:diff/8.0.2/libesm/diff/base.js
var Diff = class {
  diff(oldStr, newStr, options = {}) {
    let callback;
    if (typeof options === "function") {
      callback = options;
      options = {};
    } else if ("callback" in options) {
      callback = options.callback;
    }
    const oldString = this.castInput(oldStr, options);
    const newString = this.castInput(newStr, options);
    const oldTokens = this.removeEmpty(this.tokenize(oldString, options));
    const newTokens = this.removeEmpty(this.tokenize(newString, options));
    return this.diffWithOptionsObj(oldTokens, newTokens, options, callback);
  }
  diffWithOptionsObj(oldTokens, newTokens, options, callback) {
    var _a;
    const done = (value) => {
      value = this.postProcess(value, options);
      if (callback) {
        setTimeout(function() {
          callback(value);
        }, 0);
        return void 0;
      } else {
        return value;
      }
    };
    const newLen = newTokens.length, oldLen = oldTokens.length;
    let editLength = 1;
    let maxEditLength = newLen + oldLen;
    if (options.maxEditLength != null) {
      maxEditLength = Math.min(maxEditLength, options.maxEditLength);
    }
    const maxExecutionTime = (_a = options.timeout) !== null && _a !== void 0 ? _a : Infinity;
    const abortAfterTimestamp = Date.now() + maxExecutionTime;
    const bestPath = [
      {
        oldPos: -1,
        lastComponent: void 0
      }
    ];
    let newPos = this.extractCommon(bestPath[0], newTokens, oldTokens, 0, options);
    if (bestPath[0].oldPos + 1 >= oldLen && newPos + 1 >= newLen) {
      return done(this.buildValues(bestPath[0].lastComponent, newTokens, oldTokens));
    }
    let minDiagonalToConsider = -Infinity, maxDiagonalToConsider = Infinity;
    const execEditLength = () => {
      for (let diagonalPath = Math.max(minDiagonalToConsider, -editLength); diagonalPath <= Math.min(maxDiagonalToConsider, editLength); diagonalPath += 2) {
        let basePath;
        const removePath = bestPath[diagonalPath - 1], addPath = bestPath[diagonalPath + 1];
        if (removePath) {
          bestPath[diagonalPath - 1] = void 0;
        }
        let canAdd = false;
        if (addPath) {
          const addPathNewPos = addPath.oldPos - diagonalPath;
          canAdd = addPath && 0 <= addPathNewPos && addPathNewPos < newLen;
        }
        const canRemove = removePath && removePath.oldPos + 1 < oldLen;
        if (!canAdd && !canRemove) {
          bestPath[diagonalPath] = void 0;
          continue;
        }
        if (!canRemove || canAdd && removePath.oldPos < addPath.oldPos) {
          basePath = this.addToPath(addPath, true, false, 0, options);
        } else {
          basePath = this.addToPath(removePath, false, true, 1, options);
        }
        newPos = this.extractCommon(basePath, newTokens, oldTokens, diagonalPath, options);
        if (basePath.oldPos + 1 >= oldLen && newPos + 1 >= newLen) {
          return done(this.buildValues(basePath.lastComponent, newTokens, oldTokens)) || true;
        } else {
          bestPath[diagonalPath] = basePath;
          if (basePath.oldPos + 1 >= oldLen) {
            maxDiagonalToConsider = Math.min(maxDiagonalToConsider, diagonalPath - 1);
          }
          if (newPos + 1 >= newLen) {
            minDiagonalToConsider = Math.max(minDiagonalToConsider, diagonalPath + 1);
          }
        }
      }
      editLength++;
    };
    if (callback) {
      (function exec() {
        setTimeout(function() {
          if (editLength > maxEditLength || Date.now() > abortAfterTimestamp) {
            return callback(void 0);
          }
          if (!execEditLength()) {
            exec();
          }
        }, 0);
      })();
    } else {
      while (editLength <= maxEditLength && Date.now() <= abortAfterTimestamp) {
        const ret = execEditLength();
        if (ret) {
          return ret;
        }
      }
    }
  }
  addToPath(path, added, removed, oldPosInc, options) {
    const last = path.lastComponent;
    if (last && !options.oneChangePerToken && last.added === added && last.removed === removed) {
      return {
        oldPos: path.oldPos + oldPosInc,
        lastComponent: {
          count: last.count + 1,
          added,
          removed,
          previousComponent: last.previousComponent
        }
      };
    } else {
      return {
        oldPos: path.oldPos + oldPosInc,
        lastComponent: {
          count: 1,
          added,
          removed,
          previousComponent: last
        }
      };
    }
  }
  extractCommon(basePath, newTokens, oldTokens, diagonalPath, options) {
    const newLen = newTokens.length, oldLen = oldTokens.length;
    let oldPos = basePath.oldPos, newPos = oldPos - diagonalPath, commonCount = 0;
    while (newPos + 1 < newLen && oldPos + 1 < oldLen && this.equals(oldTokens[oldPos + 1], newTokens[newPos + 1], options)) {
      newPos++;
      oldPos++;
      commonCount++;
      if (options.oneChangePerToken) {
        basePath.lastComponent = {
          count: 1,
          previousComponent: basePath.lastComponent,
          added: false,
          removed: false
        };
      }
    }
    if (commonCount && !options.oneChangePerToken) {
      basePath.lastComponent = {
        count: commonCount,
        previousComponent: basePath.lastComponent,
        added: false,
        removed: false
      };
    }
    basePath.oldPos = oldPos;
    return newPos;
  }
  equals(left, right, options) {
    if (options.comparator) {
      return options.comparator(left, right);
    } else {
      return left === right || !!options.ignoreCase && left.toLowerCase() === right.toLowerCase();
    }
  }
  removeEmpty(array) {
    const ret = [];
    for (let i = 0; i < array.length; i++) {
      if (array[i]) {
        ret.push(array[i]);
      }
    }
    return ret;
  }
  // eslint-disable-next-line @typescript-eslint/no-unused-vars
  castInput(value, options) {
    return value;
  }
  // eslint-disable-next-line @typescript-eslint/no-unused-vars
  tokenize(value, options) {
    return Array.from(value);
  }
  join(chars) {
    return chars.join("");
  }
  postProcess(changeObjects, options) {
    return changeObjects;
  }
  get useLongestToken() {
    return false;
  }
  buildValues(lastComponent, newTokens, oldTokens) {
    const components = [];
    let nextComponent;
    while (lastComponent) {
      components.push(lastComponent);
      nextComponent = lastComponent.previousComponent;
      delete lastComponent.previousComponent;
      lastComponent = nextComponent;
    }
    components.reverse();
    const componentLen = components.length;
    let componentPos = 0, newPos = 0, oldPos = 0;
    for (; componentPos < componentLen; componentPos++) {
      const component = components[componentPos];
      if (!component.removed) {
        if (!component.added && this.useLongestToken) {
          let value = newTokens.slice(newPos, newPos + component.count);
          value = value.map(function(value2, i) {
            const oldValue = oldTokens[oldPos + i];
            return oldValue.length > value2.length ? oldValue : value2;
          });
          component.value = this.join(value);
        } else {
          component.value = this.join(newTokens.slice(newPos, newPos + component.count));
        }
        newPos += component.count;
        if (!component.added) {
          oldPos += component.count;
        }
      } else {
        component.value = this.join(oldTokens.slice(oldPos, oldPos + component.count));
        oldPos += component.count;
      }
    }
    return components;
  }
};

// npm:diff/8.0.2/libesm/diff/line.js
var LineDiff = class extends Diff {
  constructor() {
    super(...arguments);
    this.tokenize = tokenize;
  }
  equals(left, right, options) {
    if (options.ignoreWhitespace) {
      if (!options.newlineIsToken || !left.includes("\n")) {
        left = left.trim();
      }
      if (!options.newlineIsToken || !right.includes("\n")) {
        right = right.trim();
      }
    } else if (options.ignoreNewlineAtEof && !options.newlineIsToken) {
      if (left.endsWith("\n")) {
        left = left.slice(0, -1);
      }
      if (right.endsWith("\n")) {
        right = right.slice(0, -1);
      }
    }
    return super.equals(left, right, options);
  }
};
var lineDiff = new LineDiff();
function diffLines(oldStr, newStr, options) {
  return lineDiff.diff(oldStr, newStr, options);
}
function tokenize(value, options) {
  if (options.stripTrailingCr) {
    value = value.replace(/\r\n/g, "\n");
  }
  const retLines = [], linesAndNewlines = value.split(/(\n|\r\n)/);
  if (!linesAndNewlines[linesAndNewlines.length - 1]) {
    linesAndNewlines.pop();
  }
  for (let i = 0; i < linesAndNewlines.length; i++) {
    const line = linesAndNewlines[i];
    if (i % 2 && !options.newlineIsToken) {
      retLines[retLines.length - 1] += line;
    } else {
      retLines.push(line);
    }
  }
  return retLines;
}

// npm:diff/8.0.2/libesm/patch/create.js
function structuredPatch(oldFileName, newFileName, oldStr, newStr, oldHeader, newHeader, options) {
  let optionsObj;
  if (!options) {
    optionsObj = {};
  } else if (typeof options === "function") {
    optionsObj = {
      callback: options
    };
  } else {
    optionsObj = options;
  }
  if (typeof optionsObj.context === "undefined") {
    optionsObj.context = 4;
  }
  const context = optionsObj.context;
  if (optionsObj.newlineIsToken) {
    throw new Error("newlineIsToken may not be used with patch-generation functions, only with diffing functions");
  }
  if (!optionsObj.callback) {
    return diffLinesResultToPatch(diffLines(oldStr, newStr, optionsObj));
  } else {
    const { callback } = optionsObj;
    diffLines(oldStr, newStr, Object.assign(Object.assign({}, optionsObj), {
      callback: (diff) => {
        const patch = diffLinesResultToPatch(diff);
        callback(patch);
      }
    }));
  }
  function diffLinesResultToPatch(diff) {
    if (!diff) {
      return;
    }
    diff.push({
      value: "",
      lines: []
    });
    function contextLines(lines) {
      return lines.map(function(entry) {
        return " " + entry;
      });
    }
    const hunks = [];
    let oldRangeStart = 0, newRangeStart = 0, curRange = [], oldLine = 1, newLine = 1;
    for (let i = 0; i < diff.length; i++) {
      const current = diff[i], lines = current.lines || splitLines2(current.value);
      current.lines = lines;
      if (current.added || current.removed) {
        if (!oldRangeStart) {
          const prev = diff[i - 1];
          oldRangeStart = oldLine;
          newRangeStart = newLine;
          if (prev) {
            curRange = context > 0 ? contextLines(prev.lines.slice(-context)) : [];
            oldRangeStart -= curRange.length;
            newRangeStart -= curRange.length;
          }
        }
        for (const line of lines) {
          curRange.push((current.added ? "+" : "-") + line);
        }
        if (current.added) {
          newLine += lines.length;
        } else {
          oldLine += lines.length;
        }
      } else {
        if (oldRangeStart) {
          if (lines.length <= context * 2 && i < diff.length - 2) {
            for (const line of contextLines(lines)) {
              curRange.push(line);
            }
          } else {
            const contextSize = Math.min(lines.length, context);
            for (const line of contextLines(lines.slice(0, contextSize))) {
              curRange.push(line);
            }
            const hunk = {
              oldStart: oldRangeStart,
              oldLines: oldLine - oldRangeStart + contextSize,
              newStart: newRangeStart,
              newLines: newLine - newRangeStart + contextSize,
              lines: curRange
            };
            hunks.push(hunk);
            oldRangeStart = 0;
            newRangeStart = 0;
            curRange = [];
          }
        }
        oldLine += lines.length;
        newLine += lines.length;
      }
    }
    for (const hunk of hunks) {
      for (let i = 0; i < hunk.lines.length; i++) {
        if (hunk.lines[i].endsWith("\n")) {
          hunk.lines[i] = hunk.lines[i].slice(0, -1);
        } else {
          hunk.lines.splice(i + 1, 0, "\\ No newline at end of file");
          i++;
        }
      }
    }
    return {
      oldFileName,
      newFileName,
      oldHeader,
      newHeader,
      hunks
    };
  }
}
function formatPatch(patch) {
  if (Array.isArray(patch)) {
    return patch.map(formatPatch).join("\n");
  }
  const ret = [];
  if (patch.oldFileName == patch.newFileName) {
    ret.push("Index: " + patch.oldFileName);
  }
  ret.push("===================================================================");
  ret.push("--- " + patch.oldFileName + (typeof patch.oldHeader === "undefined" ? "" : "	" + patch.oldHeader));
  ret.push("+++ " + patch.newFileName + (typeof patch.newHeader === "undefined" ? "" : "	" + patch.newHeader));
  for (let i = 0; i < patch.hunks.length; i++) {
    const hunk = patch.hunks[i];
    if (hunk.oldLines === 0) {
      hunk.oldStart -= 1;
    }
    if (hunk.newLines === 0) {
      hunk.newStart -= 1;
    }
    ret.push("@@ -" + hunk.oldStart + "," + hunk.oldLines + " +" + hunk.newStart + "," + hunk.newLines + " @@");
    for (const line of hunk.lines) {
      ret.push(line);
    }
  }
  return ret.join("\n") + "\n";
}
function createTwoFilesPatch(oldFileName, newFileName, oldStr, newStr, oldHeader, newHeader, options) {
  if (typeof options === "function") {
    options = {
      callback: options
    };
  }
  if (!(options === null || options === void 0 ? void 0 : options.callback)) {
    const patchObj = structuredPatch(oldFileName, newFileName, oldStr, newStr, oldHeader, newHeader, options);
    if (!patchObj) {
      return;
    }
    return formatPatch(patchObj);
  } else {
    const { callback } = options;
    structuredPatch(oldFileName, newFileName, oldStr, newStr, oldHeader, newHeader, Object.assign(Object.assign({}, options), {
      callback: (patchObj) => {
        if (!patchObj) {
          callback(void 0);
        } else {
          callback(formatPatch(patchObj));
        }
      }
    }));
  }
}
function splitLines2(text) {
  const hasTrailingNl = text.endsWith("\n");
  const result = text.split("\n").map((line) => line + "\n");
  if (hasTrailingNl) {
    result.pop();
  } else {
    result.push(result.pop().slice(0, -1));
  }
  return result;
}

// src/tools/lines.ts
var CHUNK = 64 * 1024;
var BINARY_SNIFF_BYTES = 8192;
function looksBinary(prefix) {
  return prefix.subarray(0, BINARY_SNIFF_BYTES).includes(0);
}
var LineReader = class {
  #handle;
  #maxChars;
  #maxBytes;
  #decoder = new TextDecoder();
  // One read buffer reused for every chunk: a fresh 64 KiB buffer per chunk leaves the GC
  // gigabytes of garbage to catch up with when skipping through a huge file.
  #buf = new Uint8Array(CHUNK);
  #data = new Uint8Array(0);
  #pos = 0;
  #eof = false;
  #started = false;
  constructor(handle, options) {
    this.#handle = handle;
    this.#maxChars = options.maxChars;
    this.#maxBytes = options.maxChars * 4 + 4;
  }
  async #fill() {
    if (this.#eof) return false;
    const n = await this.#handle.read(this.#buf);
    if (n === null) {
      this.#eof = true;
      return false;
    }
    this.#data = this.#buf.subarray(0, n);
    this.#pos = 0;
    return true;
  }
  /** The first `n` bytes of the file (fewer at EOF); only before the first `next()`. */
  async prefix(n) {
    if (this.#started) throw new Error("LineReader.prefix() must be called before next()");
    const parts = [
      this.#data.subarray(this.#pos)
    ];
    let total = parts[0]?.length ?? 0;
    while (total < n && !this.#eof) {
      const buf = new Uint8Array(CHUNK);
      const got = await this.#handle.read(buf);
      if (got === null) {
        this.#eof = true;
        break;
      }
      parts.push(buf.subarray(0, got));
      total += got;
    }
    const joined = new Uint8Array(total);
    let at = 0;
    for (const p of parts) {
      joined.set(p, at);
      at += p.length;
    }
    this.#data = joined;
    this.#pos = 0;
    return joined.subarray(0, Math.min(n, total));
  }
  /** The next line, or null at end of file. A final line without a newline still counts. */
  async next() {
    this.#started = true;
    const kept = [];
    let keptBytes = 0;
    let overflow = null;
    let overflowText = "";
    let overflowChars = 0;
    let sawAny = false;
    let lastByte = -1;
    for (; ; ) {
      if (this.#pos >= this.#data.length && !await this.#fill()) break;
      const idx = this.#data.indexOf(10, this.#pos);
      const end = idx === -1 ? this.#data.length : idx;
      const seg = this.#data.subarray(this.#pos, end);
      sawAny = true;
      if (seg.length > 0) {
        lastByte = seg[seg.length - 1];
        const room = this.#maxBytes - keptBytes;
        if (overflow === null && seg.length <= room) {
          kept.push(idx === -1 ? seg.slice() : seg);
          keptBytes += seg.length;
        } else {
          if (overflow === null) {
            kept.push(seg.subarray(0, room));
            keptBytes += room;
            overflow = new TextDecoder();
            overflowText = overflow.decode(concat(kept, keptBytes), {
              stream: true
            });
            overflowChars = overflow.decode(seg.subarray(room), {
              stream: true
            }).length;
          } else {
            overflowChars += overflow.decode(seg, {
              stream: true
            }).length;
          }
        }
      }
      this.#pos = idx === -1 ? end : idx + 1;
      if (idx !== -1) break;
    }
    if (!sawAny) return null;
    let text;
    let length;
    if (overflow === null) {
      text = this.#decoder.decode(concat(kept, keptBytes));
      if (text.endsWith("\r")) text = text.slice(0, -1);
      length = text.length;
    } else {
      overflowChars += overflow.decode().length;
      text = overflowText;
      length = text.length + overflowChars - (lastByte === 13 ? 1 : 0);
    }
    if (text.length > this.#maxChars) {
      return {
        text: text.slice(0, this.#maxChars),
        length,
        truncated: true
      };
    }
    return {
      text,
      length,
      truncated: length > text.length
    };
  }
  /** Skips up to `n` lines without decoding them; resolves to how many there were. */
  async skip(n) {
    this.#started = true;
    let skipped = 0;
    let partial = false;
    while (skipped < n) {
      if (this.#pos >= this.#data.length && !await this.#fill()) {
        if (partial) skipped++;
        break;
      }
      const idx = this.#data.indexOf(10, this.#pos);
      if (idx === -1) {
        partial = true;
        this.#pos = this.#data.length;
        continue;
      }
      skipped++;
      partial = false;
      this.#pos = idx + 1;
    }
    return skipped;
  }
  /** Counts the lines not read yet, consuming the rest of the file. */
  async countRemaining() {
    this.#started = true;
    let count = 0;
    let pendingPartial = false;
    for (; ; ) {
      if (this.#pos >= this.#data.length && !await this.#fill()) break;
      let i = this.#data.indexOf(10, this.#pos);
      let last = this.#pos;
      while (i !== -1) {
        count++;
        last = i + 1;
        i = this.#data.indexOf(10, last);
      }
      if (last < this.#data.length) pendingPartial = true;
      else if (last > this.#pos) pendingPartial = false;
      this.#pos = this.#data.length;
    }
    return count + (pendingPartial ? 1 : 0);
  }
};
function concat(parts, total) {
  if (parts.length === 1) return parts[0];
  const out = new Uint8Array(total);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

// src/tools/edit_apply.ts
function failed(error) {
  return {
    ok: false,
    error
  };
}
function lineAt(text, index) {
  let line = 1;
  for (let i = text.indexOf("\n"); i !== -1 && i < index; i = text.indexOf("\n", i + 1)) line++;
  return line;
}
function findAll(haystack, needle) {
  const found = [];
  for (let i = haystack.indexOf(needle); i !== -1; i = haystack.indexOf(needle, i + 1)) {
    found.push(i);
    if (found.length > 50) break;
  }
  return found;
}
function notFoundHint(text, oldText) {
  const kept = [];
  const lines = [];
  let line = 1;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === "\n") line++;
    if (/\s/.test(ch)) continue;
    kept.push(ch);
    lines.push(line);
  }
  const squashedOld = oldText.replace(/\s+/g, "");
  if (squashedOld !== "") {
    const at = kept.join("").indexOf(squashedOld);
    if (at !== -1) {
      return `it matches at line ${lines[at]} if whitespace is ignored; copy the exact text (indentation and line breaks included) with read`;
    }
  }
  const firstLine = oldText.split("\n").find((l) => l.trim() !== "")?.trim();
  if (firstLine !== void 0) {
    const hits = text.split("\n").flatMap((l, i) => l.includes(firstLine) ? [
      i + 1
    ] : []);
    if (hits.length > 0) {
      return `its first line occurs at line ${hits.slice(0, 5).join(", ")} but the rest differs; read the file again and copy the exact text`;
    }
  }
  return "read the file again and copy the exact text";
}
function planEdits(text, edits, shown) {
  const bom = text.startsWith("\uFEFF") ? "\uFEFF" : "";
  const body = bom === "" ? text : text.slice(1);
  const crlf = body.includes("\r\n");
  const crAt = [];
  let norm = body;
  if (crlf) {
    const parts = [];
    let from = 0;
    let removed = 0;
    for (let i = body.indexOf("\r\n"); i !== -1; i = body.indexOf("\r\n", i + 2)) {
      parts.push(body.slice(from, i));
      crAt.push(i - removed);
      removed++;
      from = i + 1;
    }
    parts.push(body.slice(from));
    norm = parts.join("");
  }
  const toOriginal = (i) => {
    let lo = 0;
    let hi = crAt.length;
    while (lo < hi) {
      const mid = lo + hi >> 1;
      if (crAt[mid] < i) lo = mid + 1;
      else hi = mid;
    }
    return i + lo;
  };
  const ranges = [];
  for (const [index, edit] of edits.entries()) {
    const n = index + 1;
    const label = edits.length > 1 ? `edit ${n}: ` : "";
    const oldText = edit.oldText.replace(/\r\n/g, "\n");
    const newText = edit.newText.replace(/\r\n/g, "\n");
    if (oldText === "") {
      return failed(`Cannot edit "${shown}": ${label}oldText is empty; give the exact text to replace`);
    }
    if (oldText === newText) {
      return failed(`Cannot edit "${shown}": ${label}oldText and newText are identical; nothing would change`);
    }
    const hits = findAll(norm, oldText);
    if (hits.length === 0) {
      return failed(`Cannot edit "${shown}": ${label}oldText was not found; ${notFoundHint(norm, oldText)}. No edits were applied.`);
    }
    if (hits.length > 1) {
      const lines = hits.slice(0, 10).map((h) => lineAt(norm, h));
      const more = hits.length > 10 ? ", \u2026" : "";
      return failed(`Cannot edit "${shown}": ${label}oldText occurs ${hits.length > 50 ? "more than 50" : hits.length} times (lines ${lines.join(", ")}${more}); include more surrounding lines to make it unique. No edits were applied.`);
    }
    const start = hits[0];
    ranges.push({
      start,
      end: start + oldText.length,
      newText,
      index: n
    });
  }
  const sorted = [
    ...ranges
  ].sort((a, b) => a.start - b.start);
  for (let i = 1; i < sorted.length; i++) {
    const prev = sorted[i - 1];
    const cur = sorted[i];
    if (prev && cur && cur.start < prev.end) {
      const [a, b] = [
        prev.index,
        cur.index
      ].sort((x, y) => x - y);
      return failed(`Cannot edit "${shown}": edits ${a} and ${b} overlap (line ${lineAt(norm, cur.start)}); merge them into one edit. No edits were applied.`);
    }
  }
  const out = [];
  const normOut = [];
  let pos = 0;
  let normPos = 0;
  for (const r of sorted) {
    const s = toOriginal(r.start);
    out.push(body.slice(pos, s), crlf ? r.newText.replace(/\n/g, "\r\n") : r.newText);
    normOut.push(norm.slice(normPos, r.start), r.newText);
    pos = toOriginal(r.end);
    normPos = r.end;
  }
  out.push(body.slice(pos));
  normOut.push(norm.slice(normPos));
  const result = bom + out.join("");
  return {
    ok: true,
    result,
    before: norm,
    after: normOut.join("")
  };
}
function decodeForEdit(bytes, shown) {
  if (looksBinary(bytes)) {
    return {
      ok: false,
      error: `Cannot edit "${shown}": it is a binary file; edit only text files`
    };
  }
  try {
    return {
      ok: true,
      text: new TextDecoder("utf-8", {
        fatal: true,
        ignoreBOM: true
      }).decode(bytes)
    };
  } catch {
    return {
      ok: false,
      error: `Cannot edit "${shown}": it is not valid UTF-8, and editing it could corrupt it; use bash for this file`
    };
  }
}

// src/tools/paths.ts
init_home();
import { basename as basename2, dirname as dirname3, isAbsolute as isAbsolute2, join as join4, relative, resolve as resolve2, sep } from "node:path";

// src/tools/placeholders.ts
function placeholderFilter(fs, paths) {
  const set = new Set(paths ?? []);
  const hides = async (path) => {
    if (!set.has(path)) return false;
    try {
      const info = await fs.lstat(path);
      if (info.mtime !== 0 || info.isSymlink) return false;
      if (info.isFile) return info.size === 0;
      if (!info.isDirectory) return false;
      for await (const _ of fs.readDir(path)) return false;
      return true;
    } catch (e) {
      if (e instanceof FsError) return false;
      throw e;
    }
  };
  return {
    names: (path) => set.has(path),
    hides,
    async hidesResolved(path) {
      if (set.size === 0) return false;
      try {
        return await hides(await fs.realPath(path));
      } catch (e) {
        if (e instanceof FsError) return false;
        throw e;
      }
    }
  };
}
function hiddenAsMissing(path) {
  return new FsError("not_found", path, `"${path}" does not exist`);
}

// src/tools/paths.ts
var PathError = class extends Error {
  constructor(message) {
    super(message);
    this.name = "PathError";
  }
};
function pathErrorsAsResults(run) {
  return async (...params) => {
    try {
      return await run(...params);
    } catch (e) {
      if (e instanceof PathError) return {
        isError: true,
        output: e.message
      };
      throw e;
    }
  };
}
function resolvePath(cwd, p, options = {}) {
  const expanded = expandHome(p, options.home);
  if (!expanded.ok) throw new PathError(`Cannot expand "~" in "${p}": ${expanded.reason}`);
  return isAbsolute2(expanded.path) ? resolve2(expanded.path) : resolve2(cwd, expanded.path);
}
var MAX_LINK_HOPS = 40;
async function realLocation2(fs, absPath, options = {}) {
  const missing = [];
  let current = absPath;
  let hops = 0;
  for (; ; ) {
    try {
      const real = await fs.realPath(current);
      return missing.length === 0 ? real : join4(real, ...[
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
      const parent = dirname3(current);
      if (parent === current) throw e;
      missing.push(basename2(current));
      current = parent;
    }
  }
}
async function danglingTarget(fs, path) {
  try {
    const info = await fs.lstat(path);
    if (!info.isSymlink || fs.readLink === void 0) return void 0;
    return resolve2(dirname3(path), await fs.readLink(path));
  } catch (e) {
    if (e instanceof FsError) return void 0;
    throw e;
  }
}
function displayPath(cwd, absPath) {
  const rel = relative(cwd, absPath);
  if (rel === "") return ".";
  if (rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute2(rel)) return absPath;
  return rel;
}
function editDistance(a, b) {
  const prev = Array.from({
    length: b.length + 1
  }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0];
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const up = prev[j];
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      prev[j] = Math.min(up + 1, prev[j - 1] + 1, diag + cost);
      diag = up;
    }
  }
  return prev[b.length];
}
async function describeMissing(fs, absPath, options) {
  const what = options.what ?? "File";
  const shown = displayPath(options.cwd, absPath);
  let dir = dirname3(absPath);
  let wanted = basename2(absPath);
  for (; ; ) {
    try {
      if (await options.hidden?.hidesResolved(dir)) throw hiddenAsMissing(dir);
      const info = await fs.stat(dir);
      if (!info.isDirectory) {
        return `${what} not found: "${shown}" ("${displayPath(options.cwd, dir)}" is a file)`;
      }
      break;
    } catch (e) {
      if (!(e instanceof FsError)) throw e;
      const parent = dirname3(dir);
      if (parent === dir) return `${what} not found: "${shown}"`;
      wanted = basename2(dir);
      dir = parent;
    }
  }
  const names = [];
  try {
    for await (const entry of fs.readDir(dir)) {
      if (await options.hidden?.hides(join4(dir, entry.name))) continue;
      names.push(entry.isDirectory ? `${entry.name}/` : entry.name);
      if (names.length >= 5e3) break;
    }
  } catch (e) {
    if (!(e instanceof FsError)) throw e;
    return `${what} not found: "${shown}"`;
  }
  const dirShown = displayPath(options.cwd, dir);
  const dirLabel = dirShown === "." ? "the working directory" : `"${dirShown}/"`;
  if (names.length === 0) return `${what} not found: "${shown}"; ${dirLabel} is empty`;
  const lower = wanted.toLowerCase();
  const scored = names.map((name) => {
    const bare = name.replace(/\/$/, "").toLowerCase();
    const d = editDistance(lower, bare);
    const related = bare.includes(lower) || lower.includes(bare) || bare.split(".")[0] === lower.split(".")[0];
    return {
      name,
      score: related ? Math.min(d, 1) : d
    };
  }).sort((a, b) => a.score - b.score || a.name.localeCompare(b.name));
  const threshold = Math.max(2, Math.floor(wanted.length / 3));
  const close = scored.filter((s) => s.score <= threshold).slice(0, 5).map((s) => s.name);
  if (close.length > 0) {
    return `${what} not found: "${shown}"; similar names in ${dirLabel}: ${close.join(", ")}`;
  }
  const sample = [
    ...names
  ].sort((a, b) => a.localeCompare(b)).slice(0, 10);
  const more = names.length > sample.length ? `, \u2026 (${names.length} entries)` : "";
  return `${what} not found: "${shown}"; ${dirLabel} has: ${sample.join(", ")}${more}`;
}
async function fsFailure(fs, e, options) {
  const shown = displayPath(options.cwd, options.absPath);
  const head = `Cannot ${options.verb} "${shown}"`;
  switch (e.code) {
    case "not_found":
      return await describeMissing(fs, options.absPath, {
        cwd: options.cwd,
        ...options.what === void 0 ? {} : {
          what: options.what
        },
        ...options.hidden === void 0 ? {} : {
          hidden: options.hidden
        }
      });
    case "not_a_directory":
      return `${head}: a parent path is not a directory; check the path with ls`;
    case "is_a_directory":
      return options.verb === "read" || options.verb === "search" ? `${head}: it is a directory; use ls to list it` : `${head}: it is a directory; give the path of a file`;
    case "not_a_file":
      return `${head}: it is not a regular file (device, socket or FIFO)`;
    case "permission_denied":
      return `${head}: permission denied by the operating system`;
    case "not_granted":
      return `${head}: access is not granted for this run; ask the user to grant it`;
    case "protected":
      return e.message;
    case "changed":
      return `Refused: "${shown}" changed while being opened (possible symlink race); try again once the file is stable`;
    case "too_large":
    case "io":
      return `${head}: ${e.message}`;
    default: {
      const never = e.code;
      return `${head}: ${String(never)}`;
    }
  }
}
function pathResolver(cwd, fs, options = {}) {
  return (p) => {
    const home = options.home ?? fs.homeDir?.();
    return resolvePath(cwd, p, home === void 0 || !isAbsolute2(home) ? {} : {
      home: resolve2(home)
    });
  };
}

// src/tools/change.ts
var DIFF_MAX_BYTES = 512 * 1024;
var DIFF_MAX_EDIT_LINES = 400;
function headerName(shown) {
  return shown.replace(/[\n\r\u2028\u2029]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
function editPatch(shown, before, after) {
  const name = headerName(shown);
  return createTwoFilesPatch(name, name, before, after, "", "", {
    context: 3
  });
}
function writeChange(shown, before, after) {
  const created = before === null;
  const summary = (kind) => ({
    kind,
    path: shown,
    bytes: after.length,
    created
  });
  if (before !== null && before.length === after.length && before.every((b, i) => b === after[i])) {
    return {
      kind: "unchanged",
      path: shown
    };
  }
  if (before !== null && looksBinary(before) || looksBinary(after)) return summary("binary");
  if ((before?.length ?? 0) > DIFF_MAX_BYTES || after.length > DIFF_MAX_BYTES) {
    return summary("large");
  }
  const decode = (b) => new TextDecoder().decode(b);
  const old = before === null ? "" : decode(before);
  const now = decode(after);
  const bounded = old !== "" && now !== "";
  const patch = createTwoFilesPatch(created ? "/dev/null" : headerName(shown), headerName(shown), old, now, "", "", {
    context: 3,
    maxEditLength: bounded ? DIFF_MAX_EDIT_LINES : Infinity
  });
  return patch === void 0 ? summary("large") : {
    kind: "patch",
    path: shown,
    patch
  };
}
function fsPreviewReader(fs) {
  return async (absPath) => {
    try {
      return await fs.readFile(absPath, {
        maxBytes: DIFF_MAX_BYTES
      });
    } catch (e) {
      if (e instanceof FsError && e.code === "not_found") return null;
      throw e;
    }
  };
}

// src/tools/edit.ts
var EditItem = Type.Object({
  oldText: Type.String({
    description: "Exact text to replace; must occur exactly once in the original file"
  }),
  newText: Type.String({
    description: "Replacement text"
  })
});
var EditParams = Type.Object({
  path: Type.String({
    description: "File to edit, relative to the working directory or absolute"
  }),
  edits: Type.Array(EditItem, {
    minItems: 1,
    description: "Replacements, each matched against the original file; they must not overlap"
  })
});
var DEFAULT_MAX_FILE_BYTES = 32 * 1024 * 1024;
function isRecord(v) {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
var PAIR_KEYS = [
  "oldText",
  "newText",
  "old_string",
  "new_string",
  "old_text",
  "new_text"
];
function pairOf(v) {
  const oldText = v.oldText ?? v.old_string ?? v.old_text;
  const newText = v.newText ?? v.new_string ?? v.new_text;
  return oldText === void 0 || newText === void 0 ? null : {
    oldText,
    newText
  };
}
function prepareEditArguments(raw) {
  if (!isRecord(raw)) return raw;
  const out = {
    ...raw
  };
  if (typeof out.edits === "string") {
    try {
      out.edits = JSON.parse(out.edits);
    } catch {
    }
  }
  if (isRecord(out.edits)) out.edits = [
    out.edits
  ];
  if (Array.isArray(out.edits)) {
    out.edits = out.edits.map((item) => {
      if (!isRecord(item) || item.oldText !== void 0 && item.newText !== void 0) {
        return item;
      }
      return pairOf(item) ?? item;
    });
  }
  const pair = pairOf(out);
  if (pair !== null && (out.edits === void 0 || Array.isArray(out.edits))) {
    out.edits = [
      ...out.edits ?? [],
      pair
    ];
    for (const key of PAIR_KEYS) delete out[key];
  }
  return out;
}
function createEditTool(options) {
  const fs = options.fs;
  const resolve7 = pathResolver(options.cwd, fs, {
    home: options.home
  });
  const maxFileBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
  async function run(args) {
    const abs = resolve7(args.path);
    const shown = displayPath(options.cwd, abs);
    const fail = (output) => ({
      isError: true,
      output
    });
    let bytes;
    try {
      bytes = await fs.readFile(abs, {
        maxBytes: maxFileBytes
      });
    } catch (e) {
      if (!(e instanceof FsError)) throw e;
      if (e.code === "too_large") {
        return fail(`Cannot edit "${shown}": it is larger than ${formatSize(maxFileBytes)}; use bash (e.g. sed) for files this large`);
      }
      return fail(await fsFailure(fs, e, {
        cwd: options.cwd,
        absPath: abs,
        verb: "edit"
      }));
    }
    const decoded = decodeForEdit(bytes, shown);
    if (!decoded.ok) return fail(decoded.error);
    const text = decoded.text;
    const plan = planEdits(text, args.edits, shown);
    if (!plan.ok) return fail(plan.error);
    let written;
    try {
      written = await fs.writeFile(abs, new TextEncoder().encode(plan.result));
    } catch (e) {
      if (!(e instanceof FsError)) throw e;
      return fail(await fsFailure(fs, e, {
        cwd: options.cwd,
        absPath: abs,
        verb: "edit"
      }));
    }
    const diff = editPatch(shown, plan.before, plan.after);
    const count = args.edits.length;
    return {
      output: `Edited ${shown}: ${count} ${count === 1 ? "edit" : "edits"} applied.`,
      display: diff,
      details: {
        path: written.path,
        edits: count
      }
    };
  }
  return {
    name: "edit",
    label: "Edit",
    description: "Edit a file by exact text replacement. Each edits[].oldText must match exactly one place in the current file (whitespace and indentation included; copy it from read) and edits must not overlap; either all edits apply or none. Include enough surrounding lines to make oldText unique. Line endings (CRLF) and a UTF-8 BOM are preserved. Use write to create a file or replace it completely.",
    parameters: EditParams,
    kind: "write",
    concurrencySafe: false,
    prepareArguments: prepareEditArguments,
    async locations(args) {
      const path = await realLocation2(fs, resolve7(args.path), {
        followDangling: true
      });
      return [
        {
          access: "read",
          path
        },
        {
          access: "write",
          path
        }
      ];
    },
    execute: pathErrorsAsResults(run)
  };
}

// src/tools/find.ts
import { join as join6 } from "node:path";

// src/tools/walk.ts
var import_ignore = __toESM(require__());
var import_picomatch = __toESM(require__2());
import { dirname as dirname4, isAbsolute as isAbsolute3, join as join5, relative as relative2, sep as sep2 } from "node:path";
var IGNORE_FILES = [
  ".gitignore",
  ".ignore"
];
var MAX_IGNORE_FILE_BYTES = 1024 * 1024;
var YIELD_EVERY_MS = 50;
function nameRules(text) {
  let anchored = false;
  for (const line of text.split(/\r?\n/)) {
    const t = line.trimEnd();
    if (t === "" || t.startsWith("#")) continue;
    let p = t.startsWith("!") ? t.slice(1) : t;
    if (p.includes("\\") || p.includes("**")) return null;
    if (p.startsWith("/")) {
      anchored = true;
      p = p.slice(1);
    }
    const slash = p.indexOf("/");
    if (p === "" || p === "/" || slash !== -1 && slash !== p.length - 1) return null;
  }
  return {
    anchored
  };
}
function withoutAnchored(text) {
  return text.split(/\r?\n/).filter((line) => !/^!?\//.test(line)).join("\n");
}
function toPosix(p) {
  return sep2 === "/" ? p : p.split(sep2).join("/");
}
function withSep(dir) {
  return dir.endsWith(sep2) ? dir : dir + sep2;
}
async function loadLevel(fs, dir, names) {
  let ig = null;
  let byName = true;
  let anchored = false;
  const texts = [];
  for (const file of IGNORE_FILES) {
    if (!names.has(file)) continue;
    try {
      const bytes = await fs.readFile(join5(dir, file), {
        maxBytes: MAX_IGNORE_FILE_BYTES
      });
      const text = new TextDecoder().decode(bytes);
      ig ??= (0, import_ignore.default)();
      ig.add(text);
      texts.push(text);
      const rules = nameRules(text);
      byName &&= rules !== null;
      anchored ||= rules?.anchored === true;
    } catch (e) {
      if (!(e instanceof FsError)) throw e;
    }
  }
  if (ig === null) return null;
  let deep = ig;
  if (byName && anchored) {
    deep = (0, import_ignore.default)();
    for (const text of texts) deep.add(withoutAnchored(text));
  }
  return {
    dir,
    prefix: withSep(dir),
    ig,
    byName,
    deep
  };
}
function isOutside(rel) {
  return rel === ".." || rel.startsWith("../") || rel.startsWith("/");
}
function testWhole(level, path, isDir) {
  const rel = path.startsWith(level.prefix) ? toPosix(path.slice(level.prefix.length)) : toPosix(relative2(level.dir, path));
  if (rel === "" || isOutside(rel)) return null;
  return level.ig.test(isDir ? `${rel}/` : rel);
}
function isIgnored(levels, path, isDir) {
  let ignored = false;
  for (const level of levels) {
    const result = testWhole(level, path, isDir);
    if (result === null) continue;
    if (result.ignored) ignored = true;
    else if (result.unignored) ignored = false;
  }
  return ignored;
}
function isEntryIgnored(frame, entry, results) {
  let ignored = false;
  const { levels, chain } = frame;
  for (let i = 0; i < levels.length; i++) {
    const level = levels[i];
    let result;
    if (level.byName) {
      const parent = chain[i] ?? null;
      const rules = frame.prefix === level.prefix ? level.ig : level.deep;
      result = parent !== null && parent.ignored ? parent : rules.test(entry.isDir ? `${entry.name}/` : entry.name);
    } else {
      result = testWhole(level, entry.path, entry.isDir);
    }
    if (results !== null) results[i] = result;
    if (result === null) continue;
    if (result.ignored) ignored = true;
    else if (result.unignored) ignored = false;
  }
  return ignored;
}
async function listNames(fs, dir) {
  let entries;
  if (fs.readDirSync !== void 0) {
    entries = fs.readDirSync(dir);
  } else {
    entries = [];
    for await (const entry of fs.readDir(dir)) entries.push(entry);
  }
  entries.sort((a, b) => a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
  return entries;
}
var MAX_BATCH = 1024;
async function* walkTree(fs, root, options = {}) {
  for await (const batch of walkTreeBatches(fs, root, options)) yield* batch;
}
async function* walkTreeBatches(fs, root, options = {}) {
  const levels = [];
  for (const dir of options.ancestors ?? []) {
    try {
      const names = /* @__PURE__ */ new Set();
      for await (const entry of fs.readDir(dir)) {
        if (IGNORE_FILES.includes(entry.name)) names.add(entry.name);
      }
      const level = await loadLevel(fs, dir, names);
      if (level) levels.push(level);
    } catch (e) {
      if (!(e instanceof FsError)) throw e;
    }
  }
  if (isIgnored(levels, root, true)) {
    const ignoring = levels.filter((level) => isIgnored([
      level
    ], root, true));
    levels.splice(0, levels.length, ...levels.filter((level) => !ignoring.includes(level)));
  }
  const enter = async (dir, rel, outer, outerChain) => {
    let entries;
    try {
      entries = await listNames(fs, dir);
    } catch (e) {
      if (!(e instanceof FsError)) throw e;
      options.onSkip?.(dir, e);
      return null;
    }
    let level = null;
    if (entries.some((e) => IGNORE_FILES.includes(e.name))) {
      level = await loadLevel(fs, dir, new Set(entries.map((e) => e.name)));
    }
    const levels2 = level ? [
      ...outer,
      level
    ] : outer;
    const chain = level ? [
      ...outerChain,
      null
    ] : outerChain;
    return {
      dir,
      prefix: withSep(dir),
      rel,
      entries,
      next: 0,
      levels: levels2,
      chain
    };
  };
  const { signal, hidden } = options;
  if (signal?.aborted) return;
  const stack = [];
  const rootChain = levels.map((level) => testWhole(level, root, true));
  const top = await enter(root, "", levels, rootChain);
  if (top !== null) stack.push(top);
  let lastYield = performance.now();
  while (stack.length > 0) {
    if (signal?.aborted) return;
    const frame = stack[stack.length - 1];
    const batch = [];
    let child = null;
    let childChain = [];
    while (frame.next < frame.entries.length && batch.length < MAX_BATCH) {
      const entry = frame.entries[frame.next++];
      if (entry.isDirectory && entry.name === ".git") continue;
      const path = frame.prefix + entry.name;
      if (hidden?.names(path) && await hidden.hides(path)) continue;
      const results = entry.isDirectory ? new Array(frame.levels.length) : null;
      const tested = {
        name: entry.name,
        path,
        isDir: entry.isDirectory
      };
      if (isEntryIgnored(frame, tested, results)) continue;
      const item = {
        path,
        rel: frame.rel === "" ? entry.name : `${frame.rel}/${entry.name}`,
        isFile: entry.isFile,
        isDirectory: entry.isDirectory,
        isSymlink: entry.isSymlink
      };
      if (entry.isDirectory) {
        if (options.includeDirs) batch.push(item);
        child = item;
        childChain = results;
        break;
      }
      batch.push(item);
    }
    if (child === null && frame.next >= frame.entries.length) stack.pop();
    if (batch.length > 0) yield batch;
    if (child !== null) {
      if (signal?.aborted) return;
      const next = await enter(child.path, child.rel, frame.levels, childChain);
      if (next !== null) stack.push(next);
    }
    if (options.pace !== void 0) {
      await options.pace();
    } else if (performance.now() - lastYield >= YIELD_EVERY_MS) {
      await new Promise((resolve7) => setTimeout(resolve7, 0));
      lastYield = performance.now();
    }
  }
}
async function workspaceAncestors(fs, cwd, root) {
  let top = cwd;
  try {
    top = await fs.realPath(cwd);
  } catch (e) {
    if (!(e instanceof FsError)) throw e;
  }
  return ancestorsBetween(top, root);
}
function globMatcher(glob) {
  return (0, import_picomatch.default)(glob, {
    dot: true,
    basename: !glob.includes("/")
  });
}
function ancestorsBetween(top, root) {
  const rel = toPosix(relative2(top, root));
  if (rel === "" || isOutside(rel) || isAbsolute3(rel)) return [];
  const dirs = [];
  for (let d = dirname4(root); ; d = dirname4(d)) {
    dirs.unshift(d);
    if (d === top || dirname4(d) === d) break;
  }
  return dirs;
}

// src/tools/find.ts
var FindParams = Type.Object({
  pattern: Type.String({
    description: "Glob, e.g. '*.ts' (matches file names at any depth) or 'src/**/*_test.ts' (matched against the path relative to the search directory)"
  }),
  path: Type.Optional(Type.String({
    description: "Directory to search (default: the working directory)"
  })),
  limit: Type.Optional(Type.Integer({
    minimum: 1,
    description: "Maximum number of results (default 1000)"
  }))
});
function createFindTool(options) {
  const fs = options.fs;
  const resolve7 = pathResolver(options.cwd, fs, {
    home: options.home
  });
  const defaultLimit = options.defaultLimit ?? 1e3;
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const hidden = placeholderFilter(fs, options.placeholders);
  async function run(args, signal) {
    const fail = (output) => ({
      isError: true,
      output
    });
    if (args.pattern === "") {
      return fail("The pattern is empty; give a glob such as '*.ts' (or '*' for every file)");
    }
    const limit = args.limit ?? defaultLimit;
    const abs = resolve7(args.path ?? ".");
    const shownRoot = displayPath(options.cwd, abs);
    let root;
    try {
      root = await fs.realPath(abs);
      if (await hidden.hides(root)) throw hiddenAsMissing(abs);
      if (!(await fs.stat(root)).isDirectory) {
        return fail(`Cannot search "${shownRoot}": it is a file, not a directory; use read`);
      }
    } catch (e) {
      if (!(e instanceof FsError)) throw e;
      return fail(await fsFailure(fs, e, {
        cwd: options.cwd,
        absPath: abs,
        verb: "search",
        what: "Directory",
        hidden
      }));
    }
    const matches = globMatcher(args.pattern);
    const found = [];
    let more = false;
    const walker = walkTree(fs, root, {
      ancestors: await workspaceAncestors(fs, options.cwd, root),
      includeDirs: true,
      signal,
      hidden
    });
    for await (const entry of walker) {
      if (!matches(entry.rel)) continue;
      if (found.length >= limit) {
        more = true;
        break;
      }
      const shown = displayPath(options.cwd, join6(abs, entry.rel));
      found.push(entry.isDirectory ? `${shown}/` : shown);
    }
    if (signal.aborted) return fail("Search aborted");
    if (found.length === 0) {
      const hint = args.pattern.includes("/") ? ` (a pattern containing "/" is matched against paths relative to "${shownRoot}", e.g. "src/**/*.ts"; use a pattern without "/" to match names at any depth)` : "";
      return {
        output: `No files matching "${args.pattern}" in "${shownRoot}"${hint}`,
        details: {
          count: 0
        }
      };
    }
    found.sort((a, b) => a < b ? -1 : a > b ? 1 : 0);
    const kept = truncateHead(found.join("\n"), {
      maxLines: found.length,
      maxBytes
    });
    let note = "";
    if (kept.truncated) {
      note = `

[Output cut at ${formatSize(maxBytes)}: showing ${kept.outputLines} of ${found.length}${more ? "+" : ""} results. Narrow the pattern or path.]`;
    } else if (more) {
      note = `

[Showing the first ${limit} results. Use limit=${limit * 2} for more, or narrow the pattern or path.]`;
    }
    return {
      output: kept.content + note,
      details: {
        count: found.length,
        truncated: more || kept.truncated
      }
    };
  }
  return {
    name: "find",
    label: "Find",
    description: `Find files and directories by glob. A pattern without '/' matches names at any depth ('*.ts'); with '/' it matches paths relative to the search directory ('src/**/*.ts'). Respects .gitignore and .ignore, skips .git, includes hidden files. Results are sorted; at most ${defaultLimit} by default, with a note when more exist. Directories end with '/'.`,
    parameters: FindParams,
    kind: "read",
    concurrencySafe: true,
    maxResultChars: maxBytes + 1e3,
    async locations(args) {
      return [
        {
          access: "read",
          path: await realLocation2(fs, resolve7(args.path ?? "."), {
            followDangling: true
          })
        }
      ];
    },
    execute: pathErrorsAsResults(run)
  };
}

// src/tools/grep/mod.ts
import { join as join7 } from "node:path";

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
    const decoder2 = this.#decodedAny ? this.#decoder : this.#firstDecoder;
    const text = decoder2.decode(bytes, {
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
    const decoder2 = this.#decodedAny ? new TextDecoder("utf-8", {
      ignoreBOM: true
    }) : new TextDecoder();
    this.#decodedAny = true;
    const long = {
      decoder: decoder2,
      head: "",
      chars: 0,
      lastByte: -1
    };
    let room = this.#carryLimit;
    for (const part of parts) {
      const keep = Math.min(room, part.length);
      room -= keep;
      if (keep > 0) long.head += decoder2.decode(part.subarray(0, keep), {
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
function createFileScanner(fs, options) {
  const openSync = fs.openWalkedFileSync?.bind(fs);
  if (openSync === void 0) {
    return {
      width: options.concurrency,
      scan: (path, input) => scanAsync(fs, path, options.chunkBytes, input)
    };
  }
  const buf = new Uint8Array(options.chunkBytes);
  return {
    width: 1,
    scan: (path, input) => scanSync(openSync, path, buf, input)
  };
}
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
async function scanChunks(read, size, buf, input) {
  let filled = 0;
  let total = 0;
  let eof = false;
  while (filled < BINARY_SNIFF_BYTES) {
    const want = buf.length - filled;
    let n = read(buf.subarray(filled));
    if (n instanceof Promise) n = await n;
    if (n === null || n === 0) {
      eof = true;
      break;
    }
    filled += n;
    total += n;
    if (size > 0 && n < want && total >= size) {
      eof = true;
      break;
    }
  }
  const matcher = newMatcher(input);
  if (!matcher.pushFirst(buf.subarray(0, filled))) return "binary";
  while (!eof && !matcher.done && !input.signal.aborted) {
    const turn = input.pace();
    if (turn !== void 0) await turn;
    let n = read(buf);
    if (n instanceof Promise) n = await n;
    if (n === null || n === 0) break;
    total += n;
    matcher.push(buf.subarray(0, n));
    if (size > 0 && n < buf.length && total >= size) break;
  }
  matcher.end();
  return outcome(matcher, input.rel);
}
async function scanSync(openSync, path, buf, input) {
  let handle;
  try {
    handle = openSync(path);
  } catch (e) {
    if (e instanceof FsError) return null;
    throw e;
  }
  try {
    return await scanChunks((into) => handle.readSync(into), 0, buf, input);
  } catch (e) {
    if (e instanceof FsError) return null;
    throw e;
  } finally {
    handle.close();
  }
}
async function scanAsync(fs, path, chunkBytes, input) {
  let handle;
  try {
    handle = await fs.openFile(path);
  } catch (e) {
    if (e instanceof FsError) return null;
    throw e;
  }
  try {
    const size = handle.info.size;
    const buf = new Uint8Array(Math.min(chunkBytes, Math.max(BINARY_SNIFF_BYTES, size + 1)));
    const h = handle;
    return await scanChunks((into) => h.read(into), size, buf, input);
  } catch (e) {
    if (e instanceof FsError) return null;
    throw e;
  } finally {
    handle.close();
  }
}

// src/tools/grep/tree_scan.ts
var BATCH_FILES = 64;
var MAX_IN_FLIGHT = 4;
var MIN_FILES_FOR_THREADS = 1e3;
var THREAD_TURN_MS = 1;
async function scanTree(options) {
  const { signal } = options;
  const threads = options.threads !== void 0 && options.threads.size > 0 ? options.threads : void 0;
  const batches = [];
  const waiting = [];
  const byId = /* @__PURE__ */ new Map();
  const helpers = [];
  let pending = [];
  let pendingRels = [];
  let found = 0;
  let nextId = 0;
  let stopped = false;
  let wake = null;
  const notify = () => {
    const w = wake;
    wake = null;
    w?.();
  };
  const turn = macrotaskTurn();
  signal.addEventListener("abort", notify);
  const alive = () => helpers.some((h) => !h.dead);
  const form = (count) => {
    const batch = {
      id: nextId++,
      paths: pending.slice(0, count),
      rels: pendingRels.slice(0, count),
      outcomes: null,
      helper: null
    };
    pending = pending.slice(count);
    pendingRels = pendingRels.slice(count);
    batches.push(batch);
    waiting.push(batch);
  };
  const dispatch = () => {
    for (const h of helpers) {
      while (!h.dead && h.inFlight < MAX_IN_FLIGHT && waiting.length > 0) {
        const batch = waiting.shift();
        batch.helper = h;
        h.inFlight++;
        byId.set(batch.id, batch);
        h.thread.postMessage({
          type: "batch",
          id: batch.id,
          paths: batch.paths
        });
      }
    }
  };
  const fail = (h) => {
    if (h.dead) return;
    h.dead = true;
    h.thread.terminate();
    const lost = batches.filter((b) => b.helper === h && b.outcomes === null);
    for (const b of lost) {
      b.helper = null;
      byId.delete(b.id);
    }
    waiting.unshift(...lost);
    dispatch();
    notify();
  };
  const startHelpers = (threads2) => {
    for (let i = 0; i < threads2.size; i++) {
      const h = {
        thread: threads2.start(),
        inFlight: 0,
        dead: false
      };
      h.thread.onmessage = (event) => {
        const reply = event.data;
        if (reply.type === "failed") return fail(h);
        const batch = byId.get(reply.id);
        if (batch === void 0 || h.dead) return;
        byId.delete(reply.id);
        h.inFlight--;
        batch.outcomes = reply.outcomes.map((o, k) => o === null || o === "binary" ? o : {
          rel: batch.rels[k],
          ...o
        });
        dispatch();
        notify();
      };
      h.thread.onerror = (event) => {
        event.preventDefault();
        fail(h);
      };
      h.thread.postMessage({
        type: "search",
        ...options.request
      });
      helpers.push(h);
    }
  };
  const runHere = async (batch) => {
    const outcomes = new Array(batch.paths.length);
    let next = 0;
    const lane = async () => {
      while (next < batch.paths.length && !stopped && !signal.aborted) {
        const k = next++;
        outcomes[k] = await options.scanHere(batch.paths[k], batch.rels[k]);
      }
    };
    await Promise.all(Array.from({
      length: Math.min(options.width, batch.paths.length)
    }, lane));
    batch.outcomes = outcomes;
  };
  const drain = () => {
    if (signal.aborted) return true;
    while (!stopped && batches.length > 0 && batches[0].outcomes !== null) {
      const batch = batches.shift();
      for (const outcome2 of batch.outcomes) {
        if (options.consume(outcome2)) {
          stopped = true;
          break;
        }
      }
    }
    return stopped;
  };
  let lastTurn = performance.now();
  const pace = async () => {
    if (helpers.length > 0 && performance.now() - lastTurn >= THREAD_TURN_MS) {
      await turn.next();
      lastTurn = performance.now();
    }
    await options.pace();
  };
  try {
    const walker = walkTreeBatches(options.fs, options.root, {
      ancestors: options.ancestors,
      signal,
      pace,
      ...options.hidden === void 0 ? {} : {
        hidden: options.hidden
      }
    });
    for await (const entries of walker) {
      for (const entry of entries) {
        if (!entry.isFile) continue;
        if (options.glob !== null && !options.glob(entry.rel)) continue;
        pending.push(entry.path);
        pendingRels.push(entry.rel);
        found++;
      }
      const minFiles = threads?.minFiles ?? MIN_FILES_FOR_THREADS;
      if (threads !== void 0 && helpers.length === 0 && found >= minFiles) {
        startHelpers(threads);
      }
      while (pending.length >= BATCH_FILES) form(BATCH_FILES);
      if (alive()) {
        dispatch();
      } else if (threads === void 0 || helpers.length > 0) {
        while (waiting.length > 0 && !drain()) await runHere(waiting.shift());
      }
      if (drain()) break;
    }
    if (pending.length > 0 && !stopped) form(pending.length);
    while (!drain() && batches.length > 0) {
      dispatch();
      if (waiting.length > 0) {
        await runHere(waiting.shift());
        if (alive()) await turn.next();
      } else {
        await new Promise((resolve7) => wake = resolve7);
      }
    }
  } finally {
    signal.removeEventListener("abort", notify);
    for (const h of helpers) {
      h.dead = true;
      h.thread.terminate();
    }
    turn.close();
  }
  return helpers.length;
}
function macrotaskTurn() {
  let channel = null;
  let resolve7 = null;
  return {
    next() {
      if (channel === null) {
        channel = new MessageChannel();
        channel.port1.onmessage = () => {
          const r = resolve7;
          resolve7 = null;
          r?.();
        };
      }
      const port = channel.port2;
      return new Promise((r) => {
        resolve7 = r;
        port.postMessage(null);
      });
    },
    close() {
      channel?.port1.close();
      channel?.port2.close();
    }
  };
}

// src/tools/grep/mod.ts
var GrepParams = Type.Object({
  pattern: Type.String({
    description: "Regular expression (JavaScript syntax) or, with literal, plain text"
  }),
  path: Type.Optional(Type.String({
    description: "File or directory to search (default: the working directory)"
  })),
  glob: Type.Optional(Type.String({
    description: "Only search files matching this glob, e.g. '*.ts' or 'src/**/*.test.ts'"
  })),
  ignoreCase: Type.Optional(Type.Boolean({
    description: "Case-insensitive match"
  })),
  literal: Type.Optional(Type.Boolean({
    description: "Treat pattern as plain text, not a regex"
  })),
  context: Type.Optional(Type.Integer({
    minimum: 0,
    maximum: 50,
    description: "Lines of context around each match"
  })),
  limit: Type.Optional(Type.Integer({
    minimum: 1,
    description: "Maximum number of matches (default 100)"
  }))
});
var DEFAULT_CHUNK_BYTES = 1024 * 1024;
var YIELD_EVERY_MS2 = 100;
function yieldToEventLoop() {
  return new Promise((resolve7) => setTimeout(resolve7, 0));
}
function createGrepTool(options) {
  const fs = options.fs;
  const resolve7 = pathResolver(options.cwd, fs, {
    home: options.home
  });
  const concurrency = Math.max(1, options.concurrency ?? 8);
  const defaultLimit = options.defaultLimit ?? 100;
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const chunkBytes = Math.max(BINARY_SNIFF_BYTES, options.chunkBytes ?? DEFAULT_CHUNK_BYTES);
  const hidden = placeholderFilter(fs, options.placeholders);
  async function run(args, outerSignal) {
    const fail = (output) => ({
      isError: true,
      output
    });
    if (args.pattern === "") {
      return fail("The pattern is empty, which would match every line; give the text or regular expression to search for (use find to list files)");
    }
    let search;
    const context = args.context ?? 0;
    const spec = {
      pattern: args.pattern,
      literal: args.literal === true,
      ignoreCase: args.ignoreCase === true,
      context
    };
    try {
      search = compileSearch(spec);
    } catch (e) {
      return fail(`Invalid regular expression "${args.pattern}": ${e.message}; escape special characters or set literal=true`);
    }
    const limit = args.limit ?? defaultLimit;
    const abs = resolve7(args.path ?? ".");
    let root;
    let rootInfo;
    try {
      root = await fs.realPath(abs);
      if (await hidden.hides(root)) throw hiddenAsMissing(abs);
      rootInfo = await fs.stat(root);
    } catch (e) {
      if (!(e instanceof FsError)) throw e;
      return fail(await fsFailure(fs, e, {
        cwd: options.cwd,
        absPath: abs,
        verb: "search",
        what: "Path",
        hidden
      }));
    }
    const matcher = args.glob === void 0 ? null : globMatcher(args.glob);
    const signal = outerSignal;
    const out = [];
    let bytes = 0;
    let total = 0;
    let files = 0;
    let stop = null;
    let lastYield = performance.now();
    const pace = () => {
      if (performance.now() - lastYield < YIELD_EVERY_MS2) return void 0;
      return yieldToEventLoop().then(() => {
        lastYield = performance.now();
      });
    };
    const scanner = createFileScanner(fs, {
      chunkBytes,
      concurrency
    });
    const scan = (path, rel) => scanner.scan(path, {
      rel,
      search,
      cap: limit,
      signal,
      pace
    });
    const consume = (result) => {
      if (result === null || result === "binary" || stop !== null) return stop !== null;
      files++;
      const shown = displayPath(options.cwd, join7(abs, result.rel));
      if (context > 0 && out.length > 0) out.push("--");
      let taken = 0;
      for (const row of result.rows) {
        if (row.kind === "match" && total >= limit) {
          stop = "limit";
          break;
        }
        const text = row.kind === "sep" ? "--" : row.kind === "match" ? `${shown}:${row.line}: ${row.text}` : `${shown}-${row.line}- ${row.text}`;
        const cost = byteLength(text) + 1;
        if (bytes + cost > maxBytes) {
          stop = "bytes";
          break;
        }
        out.push(text);
        bytes += cost;
        if (row.kind === "match") {
          total++;
          taken++;
        }
      }
      if (stop === null && total >= limit) stop = "limit";
      if (taken === 0 && out[out.length - 1] === "--") out.pop();
      return stop !== null;
    };
    let threads = 0;
    if (rootInfo.isDirectory) {
      threads = await scanTree({
        fs,
        root,
        ancestors: await workspaceAncestors(fs, options.cwd, root),
        glob: matcher,
        signal,
        pace,
        hidden,
        scanHere: scan,
        width: scanner.width,
        threads: options.threads,
        request: {
          spec,
          cap: limit,
          chunkBytes
        },
        consume
      });
    } else {
      const shown = displayPath(options.cwd, abs);
      const result = await scan(root, "");
      if (result === "binary") {
        return {
          output: `No matches: "${shown}" is a binary file, which grep skips; inspect it with bash instead (e.g. "strings" or "xxd")`,
          details: {
            matches: 0,
            binary: true
          }
        };
      }
      consume(result);
    }
    if (outerSignal.aborted) return fail("Search aborted");
    if (total === 0) {
      return {
        output: `No matches for "${args.pattern}" in "${displayPath(options.cwd, abs)}"` + (args.glob === void 0 ? "" : ` (files matching "${args.glob}")`),
        details: {
          matches: 0
        }
      };
    }
    let note = "";
    if (stop === "limit") {
      note = `[Reached the limit of ${limit} matches. Use limit=${limit * 2} for more, or narrow the pattern, path or glob.]`;
    } else if (stop === "bytes") {
      note = `[Output cut at ${formatSize(maxBytes)} after ${total} matches. Narrow the pattern, path or glob${context > 0 ? ", or use a smaller context" : ""}.]`;
    }
    return {
      output: note === "" ? out.join("\n") : `${out.join("\n")}

${note}`,
      details: {
        matches: total,
        files,
        truncated: stop !== null,
        ...threads > 0 ? {
          threads
        } : {}
      }
    };
  }
  return {
    name: "grep",
    label: "Grep",
    description: `Search file contents with a regular expression (JavaScript syntax; set literal=true for plain text). Respects .gitignore and .ignore files, skips .git and binary files. Output lines are 'path:line: text' (context lines 'path-line- text'). Returns at most ${defaultLimit} matches by default; a note says when more exist. Narrow with path and glob (e.g. '*.ts').`,
    parameters: GrepParams,
    kind: "read",
    concurrencySafe: true,
    maxResultChars: maxBytes + 1e3,
    async locations(args) {
      return [
        {
          access: "read",
          path: await realLocation2(fs, resolve7(args.path ?? "."), {
            followDangling: true
          })
        }
      ];
    },
    execute: pathErrorsAsResults(run)
  };
}

// src/tools/ls.ts
import { join as join8 } from "node:path";
var LsParams = Type.Object({
  path: Type.Optional(Type.String({
    description: "Directory to list (default: the working directory)"
  })),
  limit: Type.Optional(Type.Integer({
    minimum: 1,
    description: "Maximum number of entries (default 500)"
  }))
});
function createLsTool(options) {
  const fs = options.fs;
  const resolve7 = pathResolver(options.cwd, fs, {
    home: options.home
  });
  const defaultLimit = options.defaultLimit ?? 500;
  const hidden = placeholderFilter(fs, options.placeholders);
  async function run(args) {
    const limit = args.limit ?? defaultLimit;
    const abs = resolve7(args.path ?? ".");
    const shown = displayPath(options.cwd, abs);
    const names = [];
    try {
      const real = await fs.realPath(abs);
      if (await hidden.hides(real)) throw hiddenAsMissing(abs);
      if (!(await fs.stat(real)).isDirectory) {
        return {
          isError: true,
          output: `Cannot list "${shown}": it is a file, not a directory; use read to read it`
        };
      }
      for await (const entry of fs.readDir(real)) {
        const path = join8(real, entry.name);
        if (hidden.names(path) && await hidden.hides(path)) continue;
        names.push(entry.isDirectory ? `${entry.name}/` : entry.isSymlink ? `${entry.name}@` : entry.name);
      }
    } catch (e) {
      if (!(e instanceof FsError)) throw e;
      return {
        isError: true,
        output: await fsFailure(fs, e, {
          cwd: options.cwd,
          absPath: abs,
          verb: "list",
          what: "Directory",
          hidden
        })
      };
    }
    if (names.length === 0) return {
      output: "(empty directory)",
      details: {
        count: 0
      }
    };
    names.sort((a, b) => {
      const la = a.toLowerCase();
      const lb = b.toLowerCase();
      if (la !== lb) return la < lb ? -1 : 1;
      return a < b ? -1 : a > b ? 1 : 0;
    });
    const shownEntries = names.slice(0, limit);
    const note = names.length > limit ? `

[Showing ${limit} of ${names.length} entries. Use limit=${names.length} to see all.]` : "";
    return {
      output: shownEntries.join("\n") + note,
      details: {
        count: names.length,
        truncated: names.length > limit
      }
    };
  }
  return {
    name: "ls",
    label: "List",
    description: `List a directory's entries, sorted case-insensitively, dotfiles included. Directories end with '/', symlinks with '@'. At most ${defaultLimit} entries by default, with a note when more exist.`,
    parameters: LsParams,
    kind: "read",
    concurrencySafe: true,
    async locations(args) {
      return [
        {
          access: "read",
          path: await realLocation2(fs, resolve7(args.path ?? "."), {
            followDangling: true
          })
        }
      ];
    },
    execute: pathErrorsAsResults(run)
  };
}

// src/tools/read.ts
var ReadParams = Type.Object({
  path: Type.String({
    description: "File to read, relative to the working directory or absolute"
  }),
  offset: Type.Optional(Type.Integer({
    minimum: 1,
    description: "1-based line number to start from (default 1)"
  })),
  limit: Type.Optional(Type.Integer({
    minimum: 1,
    description: "Maximum number of lines to return (max 2000)"
  }))
});
var MAX_LINE_CHARS = 2e3;
var MAX_IMAGE_BYTES = 5 * 1024 * 1024;
var COUNT_LINES_MAX_BYTES = 16 * 1024 * 1024;
function sniffImage(head) {
  const starts = (sig, at = 0) => sig.every((b, i) => head[at + i] === b);
  if (starts([
    137,
    80,
    78,
    71,
    13,
    10,
    26,
    10
  ])) return "image/png";
  if (starts([
    255,
    216,
    255
  ])) return "image/jpeg";
  if (starts([
    71,
    73,
    70,
    56
  ]) && (head[4] === 55 || head[4] === 57) && head[5] === 97) {
    return "image/gif";
  }
  if (starts([
    82,
    73,
    70,
    70
  ]) && starts([
    87,
    69,
    66,
    80
  ], 8)) return "image/webp";
  return null;
}
function toBase64(bytes) {
  let binary = "";
  const step = 32768;
  for (let i = 0; i < bytes.length; i += step) {
    binary += String.fromCharCode(...bytes.subarray(i, i + step));
  }
  return btoa(binary);
}
function prepareReadArguments(raw) {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return raw;
  const args = raw;
  return args.offset === 0 ? {
    ...args,
    offset: 1
  } : raw;
}
function createReadTool(options) {
  const fs = options.fs;
  const maxLines = options.maxLines ?? DEFAULT_MAX_LINES;
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const resolve7 = pathResolver(options.cwd, fs, {
    home: options.home
  });
  const hidden = placeholderFilter(fs, options.placeholders);
  async function run(args) {
    if (args.offset !== void 0 && args.offset < 1) {
      return {
        isError: true,
        output: `Offset ${args.offset} is invalid: lines start at 1`
      };
    }
    if (args.limit !== void 0 && args.limit < 1) {
      return {
        isError: true,
        output: `Limit ${args.limit} is invalid: give at least 1 line`
      };
    }
    const abs = resolve7(args.path);
    const shown = displayPath(options.cwd, abs);
    let handle;
    try {
      if (await hidden.hidesResolved(abs)) throw hiddenAsMissing(abs);
      handle = await fs.openFile(abs);
      const size = handle.info.size;
      const reader = new LineReader(handle, {
        maxChars: MAX_LINE_CHARS
      });
      const head = await reader.prefix(BINARY_SNIFF_BYTES);
      const mime = sniffImage(head);
      if (mime !== null) {
        if (size > MAX_IMAGE_BYTES) {
          return {
            output: `Read image file [${mime}]
[Image is ${formatSize(size)}, over the ${formatSize(MAX_IMAGE_BYTES)} limit; not attached.]`,
            details: {
              path: handle.path,
              mimeType: mime,
              size,
              attached: false
            }
          };
        }
        const bytes2 = await reader.prefix(MAX_IMAGE_BYTES + 1);
        const text = `Read image file [${mime}]`;
        return {
          output: text,
          content: [
            {
              type: "text",
              text
            },
            {
              type: "image",
              data: toBase64(bytes2),
              mimeType: mime
            }
          ],
          details: {
            path: handle.path,
            mimeType: mime,
            size: bytes2.length,
            attached: true
          }
        };
      }
      if (looksBinary(head)) {
        return {
          isError: true,
          output: `Cannot read "${shown}": binary file (${formatSize(size)}); inspect it with bash instead (e.g. "file" or "xxd | head")`
        };
      }
      if (head.length === 0) {
        return {
          output: "(empty file)",
          details: {
            path: handle.path,
            totalLines: 0
          }
        };
      }
      const start = args.offset ?? 1;
      const skipped = await reader.skip(start - 1);
      const userLimited = args.limit !== void 0 && args.limit <= maxLines;
      const lineCap = Math.min(args.limit ?? maxLines, maxLines);
      const lines = [];
      let bytes = 0;
      let stop = "eof";
      let pending = 0;
      for (; ; ) {
        if (lines.length >= lineCap) {
          stop = userLimited ? "limit" : "lines";
          break;
        }
        const line = await reader.next();
        if (line === null) break;
        const text = line.truncated ? markCutLine(line.text, line.length) : line.text;
        const cost = byteLength(text) + (lines.length > 0 ? 1 : 0);
        if (bytes + cost > maxBytes && lines.length > 0) {
          stop = "bytes";
          pending = 1;
          break;
        }
        lines.push(text);
        bytes += cost;
      }
      if (lines.length === 0) {
        const total2 = skipped;
        return {
          isError: true,
          output: `Offset ${start} is beyond end of file "${shown}" (${total2} ${total2 === 1 ? "line" : "lines"} total); use an offset from 1 to ${total2}`
        };
      }
      const end = start + lines.length - 1;
      let total = null;
      let more;
      if (stop === "eof") {
        total = end;
        more = false;
      } else if (size <= COUNT_LINES_MAX_BYTES) {
        total = end + pending + await reader.countRemaining();
        more = total > end;
      } else {
        more = pending > 0 || await reader.next() !== null;
      }
      let note = "";
      if (more) {
        const next = end + 1;
        if (stop === "limit") {
          note = total === null ? `[More lines in file (${formatSize(size)}). Use offset=${next} to continue.]` : `[${total - end} more ${total - end === 1 ? "line" : "lines"} in file. Use offset=${next} to continue.]`;
        } else {
          const of = total === null ? `a ${formatSize(size)} file` : `${total}`;
          const why = stop === "bytes" ? ` (${formatSize(maxBytes)} limit)` : "";
          note = `[Showing lines ${start}-${end} of ${of}${why}. Use offset=${next} to continue.]`;
        }
      }
      return {
        output: note === "" ? lines.join("\n") : `${lines.join("\n")}

${note}`,
        details: {
          path: handle.path,
          startLine: start,
          endLine: end,
          ...total === null ? {} : {
            totalLines: total
          },
          truncated: more
        }
      };
    } catch (e) {
      if (!(e instanceof FsError)) throw e;
      return {
        isError: true,
        output: await fsFailure(fs, e, {
          cwd: options.cwd,
          absPath: abs,
          verb: "read",
          hidden
        })
      };
    } finally {
      handle?.close();
    }
  }
  return {
    name: "read",
    label: "Read",
    description: `Read a file. Text comes back in pages of at most ${maxLines} lines or ${formatSize(maxBytes)} (whichever is reached first); a note at the end says how to continue with offset. Lines longer than ${MAX_LINE_CHARS} characters are shortened. Images (PNG, JPEG, GIF, WebP) are returned as images. Binary files are refused. Use offset/limit to read a specific range of a large file.`,
    parameters: ReadParams,
    kind: "read",
    concurrencySafe: true,
    maxResultChars: maxBytes + 1e3,
    prepareArguments: prepareReadArguments,
    async locations(args) {
      return [
        {
          access: "read",
          path: await realLocation2(fs, resolve7(args.path), {
            followDangling: true
          })
        }
      ];
    },
    execute: pathErrorsAsResults(run),
    prunedHint(args, result) {
      const details = result.details;
      const start = typeof details?.startLine === "number" ? details.startLine : args.offset;
      const end = typeof details?.endLine === "number" ? details.endLine : void 0;
      if (start === void 0 || end === void 0) {
        return `Read ${JSON.stringify(args.path)} again if you need it.`;
      }
      return `Read ${JSON.stringify(args.path)} again with offset=${start} and limit=${end - start + 1} if you need these lines (the file may have changed since).`;
    }
  };
}

// src/tools/write.ts
var WriteParams = Type.Object({
  path: Type.String({
    description: "File to create or overwrite, relative to the working directory or absolute"
  }),
  content: Type.String({
    description: "The complete new content of the file"
  })
});
var CREATED = "created a new file";
var OVERWROTE = "overwrote the existing file";
async function contentBefore(fs, abs) {
  try {
    return await fsPreviewReader(fs)(abs);
  } catch (e) {
    if (!(e instanceof FsError)) throw e;
    return void 0;
  }
}
function createWriteTool(options) {
  const fs = options.fs;
  const resolve7 = pathResolver(options.cwd, fs, {
    home: options.home
  });
  async function run(args) {
    const abs = resolve7(args.path);
    const shown = displayPath(options.cwd, abs);
    const bytes = new TextEncoder().encode(args.content);
    const before = await contentBefore(fs, abs);
    try {
      const result = await fs.writeFile(abs, bytes, {
        createParents: true
      });
      const how = result.created ? CREATED : OVERWROTE;
      const out = {
        output: `Wrote ${bytes.length} bytes to ${shown} (${how}).`,
        details: {
          path: result.path,
          bytes: bytes.length,
          created: result.created
        }
      };
      if (before !== void 0) {
        const change = writeChange(shown, result.created ? null : before, bytes);
        if (change.kind === "patch") out.display = change.patch;
      }
      return out;
    } catch (e) {
      if (!(e instanceof FsError)) throw e;
      return {
        isError: true,
        output: await fsFailure(fs, e, {
          cwd: options.cwd,
          absPath: abs,
          verb: "write"
        })
      };
    }
  }
  return {
    name: "write",
    label: "Write",
    description: "Write a file with the given content, replacing it if it exists and creating parent directories as needed. The write is atomic. Prefer edit for changing part of an existing file.",
    parameters: WriteParams,
    kind: "write",
    concurrencySafe: false,
    async locations(args) {
      return [
        {
          access: "write",
          path: await realLocation2(fs, resolve7(args.path))
        }
      ];
    },
    execute: pathErrorsAsResults(run)
  };
}

// src/tools/registry.ts
function createBuiltinTools(options) {
  const fs = options.fs;
  const home = options.home ?? options.env?.HOME;
  const common = {
    cwd: options.cwd,
    fs,
    ...home === void 0 ? {} : {
      home
    },
    ...options.placeholders === void 0 ? {} : {
      placeholders: options.placeholders
    }
  };
  const jobs = new JobTable({
    cwd: options.cwd,
    spillDir: options.spillDir,
    env: options.env ?? {},
    process: options.process,
    ...options.bashCommandPrefix === void 0 ? {} : {
      commandPrefix: options.bashCommandPrefix
    },
    ...options.processRegistry === void 0 ? {} : {
      processRegistry: options.processRegistry
    }
  });
  return [
    createReadTool(common),
    createBashTool({
      jobs,
      cwd: options.cwd,
      spillDir: options.spillDir,
      ...options.env === void 0 ? {} : {
        env: options.env
      },
      ...options.bashTimeoutSec === void 0 ? {} : {
        timeoutSec: options.bashTimeoutSec
      },
      ...options.bashMaxTimeoutSec === void 0 ? {} : {
        maxTimeoutSec: options.bashMaxTimeoutSec
      },
      process: options.process,
      ...options.bashCommandPrefix === void 0 ? {} : {
        commandPrefix: options.bashCommandPrefix
      },
      ...options.processRegistry === void 0 ? {} : {
        processRegistry: options.processRegistry
      },
      ...options.bashPrivateTmp === void 0 ? {} : {
        privateTmp: options.bashPrivateTmp
      },
      ...options.bashPlaceholders ? {
        placeholders: true
      } : {}
    }),
    createEditTool(common),
    createWriteTool(common),
    createGrepTool({
      ...common,
      ...options.grepThreads === void 0 ? {} : {
        threads: options.grepThreads
      }
    }),
    createFindTool(common),
    createLsTool(common),
    createJobTool(jobs)
  ];
}

// src/tools/fetch/mod.ts
import { join as join14 } from "node:path";

// src/tools/fetch/_hops.ts
init_mod();

// src/tools/fetch/mod.ts
var FetchParams = Type.Object({
  url: Type.String({
    description: "The http:// or https:// URL to fetch; its host must be granted by --allow-net"
  }),
  offset: Type.Optional(Type.Integer({
    minimum: 1,
    description: "1-based line of the page to start from (default 1)"
  })),
  limit: Type.Optional(Type.Integer({
    minimum: 1,
    description: "Maximum number of lines to return (max 2000)"
  }))
});
var DEFAULT_MAX_BODY_BYTES = 5 * 1024 * 1024;

// src/sandbox/host/protocol.ts
var MAX_UPDATE_TEXT_CHARS = 8192;
var MAX_UPDATE_DETAILS_CHARS = 2048;
function boundedUpdate(update) {
  let text = typeof update.text === "string" ? update.text : String(update.text);
  if (text.length > MAX_UPDATE_TEXT_CHARS) {
    text = text.slice(-MAX_UPDATE_TEXT_CHARS);
    if (/^[\uDC00-\uDFFF]/.test(text)) text = text.slice(1);
  }
  const bounded = {
    text
  };
  if (update.details !== void 0) {
    let json;
    try {
      json = JSON.stringify(update.details);
    } catch {
    }
    if (json !== void 0 && json.length <= MAX_UPDATE_DETAILS_CHARS) {
      bounded.details = JSON.parse(json);
    }
  }
  return bounded;
}

// src/sandbox/worker/_worker_core.ts
function serveToolWorker(port, setup) {
  const { createTools, registry } = setup;
  let tools;
  const running = /* @__PURE__ */ new Map();
  const post = (msg) => port.postMessage(msg);
  const handle = async (msg) => {
    switch (msg.type) {
      case "init": {
        try {
          tools = new Map(createTools({
            ...msg.config.toolOptions,
            processRegistry: registry
          }).map((t) => [
            t.name,
            t
          ]));
          post({
            type: "ready"
          });
        } catch (e) {
          post({
            type: "fatal",
            message: `cannot build the tools: ${messageOf(e)}`
          });
        }
        return;
      }
      case "call": {
        const tool = tools?.get(msg.name);
        if (tool === void 0) {
          post({
            type: "error",
            id: msg.id,
            message: `tool "${msg.name}" is not available`
          });
          return;
        }
        const controller = new AbortController();
        running.set(msg.id, controller);
        try {
          const output = await tool.execute(msg.args, controller.signal, {
            toolCallId: msg.toolCallId,
            onUpdate: (update) => {
              if (running.has(msg.id)) {
                post({
                  type: "progress",
                  id: msg.id,
                  update: boundedUpdate(update)
                });
              }
            }
          });
          running.delete(msg.id);
          post({
            type: "result",
            id: msg.id,
            output
          });
        } catch (e) {
          running.delete(msg.id);
          post({
            type: "error",
            id: msg.id,
            message: messageOf(e)
          });
        }
        return;
      }
      case "abort":
        running.get(msg.id)?.abort();
        return;
      case "query": {
        const states = await Promise.all(msg.descriptors.map(queryState));
        post({
          type: "query_result",
          id: msg.id,
          states
        });
        return;
      }
      case "shutdown": {
        for (const controller of running.values()) controller.abort();
        await registry.killAll();
        post({
          type: "shutdown_done"
        });
        return;
      }
      default: {
        const never = msg;
        post({
          type: "fatal",
          message: `unknown message ${JSON.stringify(never)}`
        });
      }
    }
  };
  port.onmessage = (e) => {
    void handle(e.data);
  };
  let crashed = false;
  const onCrash = (e, reason) => {
    e.preventDefault();
    if (crashed) return;
    crashed = true;
    for (const controller of running.values()) controller.abort();
    void registry.killAll().catch(() => {
    }).then(() => post({
      type: "fatal",
      message: `the tool worker crashed: ${messageOf(reason)}`
    }));
  };
  port.addEventListener?.("error", (e) => onCrash(e, e.error ?? e.message));
  port.addEventListener?.("unhandledrejection", (e) => onCrash(e, e.reason));
}
async function queryState(descriptor) {
  try {
    return (await Deno.permissions.query(descriptor)).state;
  } catch {
    return "denied";
  }
}
function messageOf(e) {
  return e instanceof Error ? e.message : String(e);
}

// src/sandbox/worker/grep_threads.ts
function grepThreadCount(cores) {
  return Math.max(1, Math.min(3, cores - 1));
}
function grepThreads(parent, options = {}) {
  let nextId = 0;
  return {
    size: options.size ?? grepThreadCount(navigator.hardwareConcurrency),
    start() {
      const id = nextId++;
      const data = new MessageChannel();
      const control = new MessageChannel();
      let stopped = false;
      const thread = {
        onmessage: null,
        onerror: null,
        postMessage(message) {
          if (!stopped) data.port1.postMessage(message);
        },
        terminate() {
          if (stopped) return;
          stopped = true;
          data.port1.close();
          control.port1.close();
          parent.postMessage({
            type: "helper_stop",
            id
          }, []);
        }
      };
      data.port1.onmessage = (event) => thread.onmessage?.(event);
      control.port1.onmessage = (event) => {
        const failure = event.data;
        const error = new ErrorEvent("error", {
          message: failure.message,
          cancelable: true
        });
        thread.onerror?.(error);
      };
      parent.postMessage({
        type: "helper_start",
        id,
        port: data.port2,
        control: control.port2
      }, [
        data.port2,
        control.port2
      ]);
      return thread;
    }
  };
}

// src/sandbox/worker/_guarded_fs.ts
init_mod();
import { basename as basename6, dirname as dirname11, join as join15 } from "node:path";
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
      if (ignored.length > 0 && (hidden(join15(real, entry.name)) || hidden(join15(dir, entry.name)))) {
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
        const parent = await inner.realPath(dirname11(path)).catch(() => void 0);
        if (parent !== void 0 && hidden(join15(parent, basename6(path)))) throw missing(path);
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
      return ignored.length === 0 ? entries : entries.filter((e) => !hidden(join15(path, e.name)));
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

// src/sandbox/bwrap/hide_view.ts
init_mod();
import { join as join16 } from "node:path";
function hiddenDirArgs(dirs, entries) {
  const args = [];
  const ordered = [
    ...dirs
  ].sort((a, b) => a.dir.split("/").length - b.dir.split("/").length);
  for (const hidden of ordered) {
    args.push("--tmpfs", hidden.dir);
    for (const entry of entries.get(hidden.dir) ?? []) {
      if (hidden.names.includes(entry.name)) continue;
      const p = join16(hidden.dir, entry.name);
      if (entry.symlinkTarget !== void 0) {
        args.push("--symlink", entry.symlinkTarget, p);
        continue;
      }
      const holder = hidden.mounts.filter((m) => isWithin(p, m.path)).sort((a, b) => b.path.length - a.path.length)[0];
      args.push(holder?.mode === "rw" ? "--bind" : "--ro-bind", p, p);
    }
    args.push("--remount-ro", hidden.dir);
  }
  return args;
}

// src/sandbox/worker/_hiding_prefix.ts
import { join as join17 } from "node:path";
function hidingPrefix(prefix, hidden, fs, readLink) {
  return async () => {
    const entries = /* @__PURE__ */ new Map();
    for (const { dir } of hidden.dirs) {
      const listed = [];
      try {
        for await (const entry of fs.readDir(dir)) {
          if (!entry.isSymlink) {
            listed.push({
              name: entry.name
            });
            continue;
          }
          listed.push({
            name: entry.name,
            symlinkTarget: await readLink(join17(dir, entry.name))
          });
        }
      } catch (e) {
        if (!(e instanceof FsError) || e.code !== "not_found") {
          throw new Error(`the directory "${dir}" holding an --ignore-read path cannot be listed (${e instanceof Error ? e.message : String(e)}); bash would see what it hides`);
        }
        continue;
      }
      entries.set(dir, listed);
    }
    const present = hidden.dirs.filter((d) => entries.has(d.dir));
    const args = hiddenDirArgs(present, entries);
    return [
      ...prefix.slice(0, hidden.at),
      ...args,
      ...prefix.slice(hidden.at)
    ];
  };
}

// src/sandbox/worker/worker.ts
serveToolWorker(self, {
  createTools({ guard, bashHidden, ...options }) {
    const fs = toolFsOps(guard, createDenoFsOps);
    return createBuiltinTools({
      ...options,
      ...bashHidden === void 0 || options.bashCommandPrefix === void 0 ? {} : {
        bashCommandPrefix: hidingPrefix(options.bashCommandPrefix, bashHidden, fs, (path) => Deno.readLink(path))
      },
      fs,
      process: createDenoProcessOps(),
      // grep's helper Workers: started by this Worker's parent with its permissions and guard.
      grepThreads: grepThreads(self)
    });
  },
  registry: createProcessRegistry()
});
