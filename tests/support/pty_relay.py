#!/usr/bin/env python3
"""A pseudo-terminal relay for tests (tests/support/pty.ts drives it; Deno has no pty API).

Usage: pty_relay.py COLS ROWS -- COMMAND [ARG...]

Runs COMMAND as the leader of a new session whose controlling terminal is a pty of COLS x ROWS,
and relays bytes: the pty's output goes to stdout unchanged. Stdin carries frames, each a kind
byte, a 4-byte big-endian length and that many bytes of payload:
  b"k" + keys           bytes written to the pty as if typed
  b"r" + b"COLS ROWS"   resize the pty (the kernel sends SIGWINCH to the foreground group);
                        acknowledged on stderr with a line "resized COLS ROWS"
Stderr starts with a line "pid PID" (the child, also its process group id). On stdin EOF or
SIGTERM the child's process group is killed. The relay exits once the child has exited and its
output is drained, with the child's exit code (128 + N when killed by signal N).
"""

import errno
import fcntl
import os
import pty
import select
import signal
import struct
import sys
import termios


def set_size(fd, cols, rows):
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))


def write_all(fd, data):
    while data:
        try:
            n = os.write(fd, data)
        except OSError as e:
            if e.errno in (errno.EIO, errno.EBADF):
                return
            if e.errno == errno.EAGAIN:
                select.select([], [fd], [])
                continue
            raise
        data = data[n:]


def kill_group(pid):
    try:
        os.killpg(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def main():
    if len(sys.argv) < 5 or sys.argv[3] != "--":
        sys.stderr.write("usage: pty_relay.py COLS ROWS -- COMMAND [ARG...]\n")
        return 2
    cols, rows, argv = int(sys.argv[1]), int(sys.argv[2]), sys.argv[4:]
    pid, master = pty.fork()
    if pid == 0:
        # The child: stdin/stdout/stderr are the pty's slave; size it before anything reads it.
        try:
            set_size(0, cols, rows)
            os.execvp(argv[0], argv)
        except OSError as e:
            os.write(2, f"pty_relay: cannot run {argv[0]!r}: {e}\n".encode())
        os._exit(127)

    sys.stderr.write(f"pid {pid}\n")
    sys.stderr.flush()
    # SIGTERM (from close()) or stdin EOF: the whole group goes.
    signal.signal(signal.SIGTERM, lambda *_: kill_group(pid))
    # SIGCHLD wakes the select loop through this pipe (no polling).
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda *_: None)

    stdin = sys.stdin.fileno()
    frames = b""
    reading_stdin = True
    status = None
    master_open = True
    while master_open:
        if status is None:
            done, st = os.waitpid(pid, os.WNOHANG)
            if done:
                status = st
        if status is not None:
            # The child is gone: drain what it left, then stop (grandchildren may hold the pty).
            os.set_blocking(master, False)
        fds = [master, wake_r] + ([stdin] if reading_stdin and status is None else [])
        try:
            ready, _, _ = select.select(fds, [], [], 0 if status is not None else None)
        except InterruptedError:
            continue
        if status is not None and master not in ready:
            break
        if wake_r in ready:
            try:
                os.read(wake_r, 512)
            except BlockingIOError:
                pass
        if master in ready:
            try:
                data = os.read(master, 65536)
            except BlockingIOError:
                data = None
            except OSError as e:
                if e.errno != errno.EIO:
                    raise
                data = b""
            if data == b"":
                master_open = False
            elif data:
                write_all(1, data)
        if stdin in ready:
            chunk = os.read(stdin, 65536)
            if not chunk:
                reading_stdin = False
                kill_group(pid)
                continue
            frames += chunk
            while len(frames) >= 5:
                kind = frames[:1]
                (length,) = struct.unpack(">I", frames[1:5])
                if len(frames) < 5 + length:
                    break
                payload, frames = frames[5 : 5 + length], frames[5 + length :]
                if kind == b"k":
                    write_all(master, payload)
                elif kind == b"r":
                    new_cols, new_rows = (int(v) for v in payload.split())
                    set_size(master, new_cols, new_rows)
                    sys.stderr.write(f"resized {new_cols} {new_rows}\n")
                    sys.stderr.flush()
    if status is None:
        _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        return 128 + os.WTERMSIG(status)
    return os.WEXITSTATUS(status)


if __name__ == "__main__":
    sys.exit(main())
