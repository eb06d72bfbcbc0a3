/** Helpers shared by the tests of the bash tool's parts. */

/** The numbers `from`..`to`, one per line, each ending with a newline. */
export function numbered(from: number, to: number): string {
  let s = "";
  for (let i = from; i <= to; i++) s += `${i}\n`;
  return s;
}
