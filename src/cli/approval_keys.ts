/**
 * The approval question on a terminal with a line editor: one key answers it (y, a, d, n; Enter
 * is no, the safe default), the choice is echoed after the question, other keys are ignored, and
 * the question wraps at word boundaries to the terminal's width.
 */
import type { Approval, ApprovalRequest, Prompter } from "../policy/approve.ts";

/** What the key prompter needs: one key press at a time, the output, the terminal's width. */
export interface KeyPrompterIo {
  /** The next key ("enter" for Enter, else the typed text); null when input ended or cancelled. */
  readKey(): Promise<string | null>;
  write(text: string): void;
  /** Terminal width in columns (0 or less: unknown, 80 is used). */
  columns(): number;
}

/** `text` broken at spaces into lines of at most `columns` (a longer word stays whole). */
export function wrapWords(text: string, columns: number): string {
  const width = columns > 0 ? Math.max(20, columns) : 80;
  return text.split("\n").map((paragraph) => {
    const lines: string[] = [];
    let line = "";
    for (const word of paragraph.split(" ")) {
      if (line !== "" && line.length + 1 + word.length > width) {
        lines.push(line);
        line = word;
      } else {
        line = line === "" ? word : `${line} ${word}`;
      }
    }
    lines.push(line);
    return lines.join("\n");
  }).join("\n");
}

const ECHO: Record<Approval, string> = {
  once: "yes, once",
  always: "always",
  directory: "directory",
  deny: "no",
};

/** The answer a key gives, or undefined for a key that answers nothing (it is ignored). */
function keyAnswer(key: string, directory: boolean): Approval | undefined {
  switch (key.toLowerCase()) {
    case "y":
      return "once";
    case "a":
      return "always";
    case "d":
      return directory ? "directory" : undefined;
    case "n":
    case "enter":
      return "deny";
    default:
      return undefined;
  }
}

/** A prompter answered by a single key (see the module comment). */
export function createKeyPrompter(io: KeyPrompterIo): Prompter {
  return {
    async ask(request: ApprovalRequest): Promise<Approval> {
      io.write(wrapWords(request.question, io.columns()) + " ");
      const directory = request.location !== undefined && "path" in request.location &&
        request.location.path !== "/";
      for (;;) {
        const key = await io.readKey();
        const answer = key === null ? "deny" : keyAnswer(key, directory);
        if (answer === undefined) continue;
        io.write(`→ ${ECHO[answer]}\n`);
        return answer;
      }
    },
  };
}
