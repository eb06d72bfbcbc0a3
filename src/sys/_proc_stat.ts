/** Reading /proc/PID/stat (Linux). */

/**
 * The fields of /proc/PID/stat after the command name (which may hold spaces and parentheses):
 * `[0]` is the state (field 3), `[1]` the parent (field 4), `[19]` the start time (field 22).
 * Undefined once the process is gone.
 */
export function procStatFields(pid: number): string[] | undefined {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  } catch {
    return undefined;
  }
}

/** The children of process `pid` (every thread's, from /proc); [] once it is gone. */
export function procChildren(pid: number): number[] {
  const children: number[] = [];
  try {
    for (const task of Deno.readDirSync(`/proc/${pid}/task`)) {
      try {
        const text = Deno.readTextFileSync(`/proc/${pid}/task/${task.name}/children`);
        for (const word of text.trim().split(/\s+/)) if (word !== "") children.push(Number(word));
      } catch {
        // The thread ended meanwhile.
      }
    }
  } catch {
    // Gone, or no /proc.
  }
  return children;
}
