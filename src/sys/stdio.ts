/** Deno's standard input and output as byte streams (for `moat acp`). */

/** stdin and stdout of this process. */
export function denoStdio(): {
  input: ReadableStream<Uint8Array>;
  output: WritableStream<Uint8Array>;
} {
  return { input: Deno.stdin.readable, output: Deno.stdout.writable };
}
