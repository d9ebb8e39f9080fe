#!/usr/bin/env python3
"""Runs a command in a pseudo-terminal that answers terminal queries like a named terminal,
and prints everything the command wrote to it (raw bytes) on stdout.

    Tests/TestSupport/fake-terminal.py [--answers kitty|sixel|plain|silent] [--size ROWSxCOLS]
                             [--cell WxH] [--timeout S] [--stderr] [--type PROMPT=TEXT]...
                             [--ctrl-c-on TEXT] [--ctrl-c-after S] -- COMMAND [ARG...]

The command's stdin, stdout and controlling terminal are the pseudo-terminal (so isatty is
true and /dev/tty works); its stderr is passed through, or with --stderr is the terminal too
(where progress lines are drawn). The terminal answers kitty's
graphics query (`ESC _G i=31 … a=q`) and DA1 (`ESC [ c`) as:
    kitty   OK to kitty's query, then DA1 without sixel
    sixel   DA1 listing attribute 4 (sixel), as xterm -ti vt340 does
    plain   DA1 without sixel (a terminal with no pixel graphics)
    silent  nothing at all
Every terminal but `silent` also answers `CSI 16 t` with the cell's size. A person at it
types TEXT and Enter once PROMPT has appeared (--type, in order; what the terminal echoes
back is in the output, as on a screen), and presses Ctrl-C once TEXT has appeared or S
seconds have passed (the terminal's own ^C: SIGINT to the foreground job). The exit status
is the command's. Used by the end-to-end tests and to try brados's
pictures as a terminal would show them.
"""
import argparse
import fcntl
import os
import select
import struct
import subprocess
import sys
import termios
import time

KITTY_QUERY = b"\x1b_Gi=31"
DA1 = b"\x1b[c"
CELL_SIZE = b"\x1b[16t"
ANSWERS = {
    "kitty": (b"\x1b_Gi=31;OK\x1b\\", b"\x1b[?62;22c"),
    "sixel": (b"", b"\x1b[?63;1;2;4;6;9;15;22c"),
    "plain": (b"", b"\x1b[?62;22c"),
    "silent": (b"", b""),
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--answers", choices=sorted(ANSWERS), default="plain")
    parser.add_argument("--size", default="40x120", help="ROWSxCOLS")
    parser.add_argument("--cell", default="10x20", help="a cell's pixels, WxH (0x0: not reported)")
    parser.add_argument("--timeout", type=float, default=60)
    parser.add_argument("--no-cell-report", action="store_true", help="never answer CSI 16 t (as xterm by default)")
    parser.add_argument("--stderr", action="store_true", help="stderr is the terminal too")
    parser.add_argument("--type", action="append", default=[], metavar="PROMPT=TEXT", help="type TEXT and Enter once PROMPT appears")
    parser.add_argument("--ctrl-c-on", metavar="TEXT", help="press Ctrl-C once TEXT appears")
    parser.add_argument("--ctrl-c-after", type=float, metavar="S", help="press Ctrl-C after S seconds")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    options = parser.parse_args()
    command = options.command[1:] if options.command[:1] == ["--"] else options.command
    if not command:
        parser.error("no command")
    rows, columns = (int(x) for x in options.size.split("x"))
    cell_width, cell_height = (int(x) for x in options.cell.split("x"))

    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, columns * cell_width, rows * cell_height))

    def controlling_terminal():
        fcntl.ioctl(0, termios.TIOCSCTTY, 0)

    child = subprocess.Popen(command, stdin=slave, stdout=slave, stderr=slave if options.stderr else None, start_new_session=True,
                             preexec_fn=controlling_terminal, close_fds=True)
    os.close(slave)
    kitty_answer, da1_answer = ANSWERS[options.answers]
    # CSI 16 t: the cell's size, as xterm answers it (not when silent).
    cell_answer = (f"\x1b[6;{cell_height};{cell_width}t".encode()
                   if options.answers != "silent" and cell_width and not options.no_cell_report else b"")
    output = bytearray()
    scanned = 0
    started = time.monotonic()
    deadline = started + options.timeout
    typing = [entry.split("=", 1) for entry in options.type]
    typed_up_to = 0
    interrupted = False
    while True:
        # What a person does at the terminal: type at a prompt, press Ctrl-C.
        if typing and typing[0][0].encode() in bytes(output[typed_up_to:]):
            prompt, text = typing.pop(0)
            typed_up_to = bytes(output).find(prompt.encode(), typed_up_to) + len(prompt.encode())
            os.write(master, text.encode() + b"\r")
        if not interrupted and ((options.ctrl_c_on and options.ctrl_c_on.encode() in output)
                                or (options.ctrl_c_after is not None and time.monotonic() - started >= options.ctrl_c_after)):
            os.write(master, b"\x03")
            interrupted = True
        if time.monotonic() > deadline:
            child.kill()
            sys.stderr.write("fake-terminal: timed out\n")
            break
        ready, _, _ = select.select([master], [], [], 0.05)
        if ready:
            try:
                data = os.read(master, 65536)
            except OSError:
                data = b""
            if not data:
                if child.poll() is not None:
                    break
                continue
            output += data
            # Answer each query once, in order: scan from where the last scan stopped (less
            # a query's length, for one split between two reads), never past a match again.
            window = bytes(output[scanned:])
            position = 0
            while True:
                found = [(window.find(query, position), query) for query in (KITTY_QUERY, DA1, CELL_SIZE)]
                found = [(index, query) for index, query in found if index >= 0]
                if not found:
                    break
                index, query = min(found)
                answer = {KITTY_QUERY: kitty_answer, DA1: da1_answer, CELL_SIZE: cell_answer}[query]
                if answer:
                    os.write(master, answer)
                position = index + len(query)
            scanned += max(position, len(window) - 16)
        elif child.poll() is not None:
            # Drain what is left.
            while True:
                ready, _, _ = select.select([master], [], [], 0.05)
                if not ready:
                    break
                try:
                    data = os.read(master, 65536)
                except OSError:
                    break
                if not data:
                    break
                output += data
            break
    os.close(master)
    sys.stdout.buffer.write(bytes(output))
    sys.stdout.flush()
    return child.wait()


if __name__ == "__main__":
    sys.exit(main())
