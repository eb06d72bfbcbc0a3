// deno-lint-ignore-file no-control-regex
import assert from "node:assert/strict";
import { createMarkdownStream, renderMarkdown } from "../../src/term/markdown.ts";

const strip = (text: string): string => text.replace(/\x1b\[[0-9;]*m/g, "");
const visible = (lines: readonly string[]): string => strip(lines.join("\n"));

const ANSWER = `# Plan

Some *emphasis*, **bold** and \`code\` here.

- first item
- second item
  - nested item
1. one
2. two

| Name | Size |
|:-----|-----:|
| a.ts | 10 |
| longer name | 2000 |

\`\`\`ts
const a = "x"; // note
\`\`\`

Last paragraph.
`;

Deno.test("markdown renders headings, emphasis, lists, tables and code as laid-out text", () => {
  const text = visible(renderMarkdown(ANSWER, { width: 60, color: true }));
  assert.equal(
    text,
    [
      "Plan",
      "",
      "Some emphasis, bold and code here.",
      "",
      "• first item",
      "• second item",
      "  • nested item",
      "",
      "1. one",
      "2. two",
      "",
      "Name        │ Size",
      "────────────┼─────",
      "a.ts        │   10",
      "longer name │ 2000",
      "",
      "```ts",
      'const a = "x"; // note',
      "```",
      "",
      "Last paragraph.",
    ].join("\n"),
  );
});

Deno.test("markdown with colour on styles headings, emphasis and highlights code", () => {
  const lines = renderMarkdown(ANSWER, { width: 60, color: true });
  assert.match(lines[0] ?? "", /\x1b\[1m.*Plan/);
  assert.match(lines[2] ?? "", /\x1b\[3memphasis\x1b\[23m/);
  assert.match(lines[2] ?? "", /\x1b\[1mbold\x1b\[22m/);
  const code = lines.find((l) => strip(l).startsWith("const")) ?? "";
  assert.match(code, /\x1b\[35mconst\x1b\[39m/);
  assert.match(code, /\x1b\[32m"x"\x1b\[39m/);
});

Deno.test("markdown with colour off holds no escape byte and keeps the markers that show structure", () => {
  const out = renderMarkdown(ANSWER, { width: 60, color: false }).join("\n");
  assert.ok(!out.includes("\x1b"), out);
  assert.match(out, /^# Plan$/m);
  assert.match(out, /`code`/);
});

Deno.test("escape sequences and control characters in model text are made visible", () => {
  const text = "Hi \x1b[2J\x1b]0;pwned\x07 **there**\r\n\n```\nx\x1b[31m\n```\n";
  for (const color of [true, false]) {
    const out = renderMarkdown(text, { width: 60, color }).join("\n");
    assert.ok(!out.includes("\x1b[2J") && !out.includes("\x1b]") && !out.includes("\x07"));
    assert.ok(!out.includes("\r"));
    assert.match(strip(out), /Hi \\u001b\[2J\\u001b\]0;pwned\\u0007 there/);
    assert.match(strip(out), /x\\u001b\[31m/);
  }
});

Deno.test("markdown shows backslash escapes and named entities as the characters they stand for", () => {
  const lines = renderMarkdown("a \\*not em\\* &amp; &lt;b&gt;", { width: 60, color: false });
  assert.deepEqual(lines, ["a *not em* & <b>"]);
});

Deno.test("character references to control characters are made visible, not decoded into them", () => {
  const md = "a &#27;[2J &#x1b;]0;t&#7; [l](&#27;x) `&#27;c`\n\n| &#155;2J |\n|--|\n| &#27;c |\n";
  for (const color of [true, false]) {
    const out = renderMarkdown(md, { width: 60, color }).join("\n");
    assert.ok(!/\x1b\[2J|\x1b\]|\x07|\x9b|\x1bc|\x1bx/.test(out), JSON.stringify(out));
    assert.match(strip(out), /a \\u001b\[2J \\u001b\]0;t\\u0007/);
    assert.match(strip(out), /\\u009b2J/);
  }
});

Deno.test("markdown wraps prose at the width, keeps styles per line, and never wraps code", () => {
  const long = "word ".repeat(30).trim();
  const md = `**${long}**\n\n- ${long}\n\n\`\`\`\n${"x".repeat(50)}\n\`\`\`\n`;
  const lines = renderMarkdown(md, { width: 20, color: true });
  const prose = lines.filter((l) => strip(l).includes("word"));
  assert.ok(prose.length > 10);
  for (const line of prose) assert.ok(strip(line).length <= 20, JSON.stringify(line));
  // Each wrapped line of bold text opens bold itself and closes what it leaves open.
  assert.ok(prose.slice(0, 3).every((l) => l.startsWith("\x1b[1m") && l.endsWith("\x1b[0m")));
  const items = prose.filter((l) => !l.startsWith("\x1b[1m"));
  assert.ok(strip(items[0] ?? "").startsWith("• word"));
  assert.ok(items.slice(1).every((l) => strip(l).startsWith("  word")));
  assert.ok(lines.some((l) => strip(l) === "x".repeat(50)));
});

Deno.test("markdown counts wide characters as two columns when it wraps", () => {
  const lines = renderMarkdown(`${"字".repeat(25)} 日本語`, { width: 20, color: false });
  assert.deepEqual(lines, ["字".repeat(10), "字".repeat(10), `${"字".repeat(5)} 日本語`]);
});

function streamed(chunks: readonly string[], color: boolean): { out: string; writes: string[] } {
  const writes: string[] = [];
  const stream = createMarkdownStream({ width: 40, color, write: (t) => writes.push(t) });
  for (const chunk of chunks) stream.push(chunk);
  stream.end();
  return { out: writes.join(""), writes };
}

function splitAt(text: string, ...marks: string[]): string[] {
  const cuts = marks.map((m) => {
    const i = text.indexOf(m);
    assert.ok(i >= 0, m);
    return i + Math.ceil(m.length / 2);
  }).sort((a, b) => a - b);
  return [0, ...cuts].map((c, i) => text.slice(c, cuts[i] ?? text.length));
}

Deno.test("a streamed answer split mid-word, mid-fence and mid-table renders as the whole", () => {
  for (const color of [true, false]) {
    const whole = renderMarkdown(ANSWER, { width: 40, color }).join("\n") + "\n";
    const chunks = splitAt(ANSWER, "emphasis", "```ts", "| longer", "|:-----|", "second");
    assert.equal(streamed(chunks, color).out, whole);
    assert.equal(streamed([...ANSWER], color).out, whole);
  }
});

Deno.test("a stream writes the first paragraph once its blank line arrives, before the end", () => {
  const writes: string[] = [];
  const stream = createMarkdownStream({ width: 40, color: false, write: (t) => writes.push(t) });
  stream.push("First para");
  stream.push("graph here.\n");
  assert.deepEqual(writes, []);
  stream.push("\nSecond is still");
  assert.equal(writes.join(""), "First paragraph here.\n");
  stream.end();
  assert.equal(writes.join(""), "First paragraph here.\n\nSecond is still\n");
});

Deno.test("a stream writes a code block line by line before its fence closes", () => {
  const writes: string[] = [];
  const stream = createMarkdownStream({ width: 40, color: false, write: (t) => writes.push(t) });
  stream.push("```py\nprint(1)\nprint(");
  assert.equal(writes.join(""), "```py\nprint(1)\n");
  stream.push("2)\n```\nafter\n");
  assert.equal(writes.join(""), "```py\nprint(1)\nprint(2)\n```\n");
  stream.end();
  assert.equal(writes.join(""), "```py\nprint(1)\nprint(2)\n```\n\nafter\n");
});

Deno.test("a stream writes a list item once the next item's first line is complete", () => {
  const writes: string[] = [];
  const stream = createMarkdownStream({ width: 40, color: false, write: (t) => writes.push(t) });
  stream.push("- first\n- sec");
  assert.equal(writes.join(""), "");
  stream.push("ond\n");
  assert.equal(writes.join(""), "• first\n");
  stream.push("\n- third\n  - nested\n");
  assert.equal(writes.join(""), "• first\n• second\n");
  stream.end();
  assert.equal(writes.join(""), "• first\n• second\n\n• third\n  • nested\n");
});

Deno.test("a loose list streamed piece by piece renders as the whole", () => {
  const md = "1. one\n2. two\n\n   more of two\n3. three\n\nAfter.\n";
  const whole = renderMarkdown(md, { width: 40, color: true }).join("\n") + "\n";
  assert.equal(streamed([...md], true).out, whole);
  assert.equal(
    strip(whole),
    "1. one\n2. two\n\n   more of two\n3. three\n\nAfter.\n",
  );
});

Deno.test("long, indented, tilde and unclosed code blocks stream as they render whole", () => {
  const body = Array.from({ length: 120 }, (_, i) => `let v${i} = "${i}"; /* c */`).join("\n");
  const cases = [
    `Intro.\n\n\`\`\`js\n${body}\n\`\`\`\n\nAfter.\n`,
    "- item\n\n  ```sh\n  echo a\n    echo b\n  ```\ntext\n",
    "~~~\nraw ``` inside\n~~~\n",
    "Start.\n\n```py\nprint(1)\nprint(2",
  ];
  for (const md of cases) {
    for (const color of [true, false]) {
      const whole = renderMarkdown(md, { width: 40, color }).join("\n") + "\n";
      const { out } = streamed(md.match(/[\s\S]{1,7}/g) ?? [], color);
      assert.equal(strip(out), strip(whole), md);
      if (!color || md.length < 300) assert.equal(out, whole, md);
    }
  }
});
