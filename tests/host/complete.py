#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Completion as a user gets it: an interactive bash on a pty, with
bash-completion loaded and SCRIPT sourced, is typed each LINE of stdin and
one TAB.  Readline splits the line into words itself (at COMP_WORDBREAKS,
'=' among them), so what the completion function sees is what it sees at a
real prompt.  For each LINE, one output line:

    REPLY<TAB>RESULT

REPLY: COMPREPLY as the function left it (space-joined; "<none>" if the
function was not called or failed), RESULT: the command line after the TAB,
as readline edited it (READLINE_LINE).  Exit 0, or 1 if bash did not answer.

usage: complete.py SCRIPT COMMAND < lines
"""
import os
import pty
import select
import shutil
import sys
import tempfile
import time

BASH_COMPLETION = "/usr/share/bash-completion/bash_completion"
TIMEOUT = 20.0


def rcfile(d, script, cmd):
    # the function `complete -p` names for cmd, wrapped to record COMPREPLY;
    # C-x C-p writes readline's buffer, whole before its name appears (the
    # reader polls for the name: a file made, then written, read empty
    # under load)
    return f"""
PS1='$ '
. {BASH_COMPLETION}
. '{script}'
__f=$(complete -p {cmd} | sed -n 's/.* -F \\([^ ]*\\).*/\\1/p')
eval "__probe() {{ $__f \\"\\$@\\"; local IFS=' '; printf '%s\\\\n' \\"\\${{COMPREPLY[*]}}\\" > '{d}/reply'; }}"
eval "$(complete -p {cmd} | sed 's/ -F [^ ]*/ -F __probe/')"
bind 'set bell-style none'
bind 'set show-all-if-ambiguous off'
bind -x '"\\C-x\\C-p": printf "%s\\n" "$READLINE_LINE" > {d}/line.tmp; mv {d}/line.tmp {d}/line'
printf ready > '{d}/ready'
"""


def drain(fd):
    while select.select([fd], [], [], 0)[0]:
        try:
            if not os.read(fd, 65536):
                return
        except OSError:
            return


def wait_for(path, fd):
    end = time.monotonic() + TIMEOUT
    while not os.path.exists(path):
        if time.monotonic() > end:
            return False
        select.select([fd], [], [], 0.02)
        drain(fd)
    time.sleep(0.02)
    return True


def main():
    script, cmd = os.path.abspath(sys.argv[1]), sys.argv[2]
    d = tempfile.mkdtemp(prefix="mmt-complete.")
    with open(f"{d}/rc", "w") as f:
        f.write(rcfile(d, script, cmd))
    with open(f"{d}/inputrc", "w") as f:
        f.write("set bell-style none\n")
    env = dict(os.environ, TERM="dumb", INPUTRC=f"{d}/inputrc", HISTFILE="/dev/null")
    pid, fd = pty.fork()
    if pid == 0:
        os.execvpe("bash", ["bash", "--noprofile", "--rcfile", f"{d}/rc", "-i"], env)
    rc = 0
    try:
        if not wait_for(f"{d}/ready", fd):
            print("bash did not start", file=sys.stderr)
            return 1
        for line in sys.stdin.read().splitlines():
            for n in ("reply", "line"):
                if os.path.exists(f"{d}/{n}"):
                    os.unlink(f"{d}/{n}")
            # TAB, C-x C-p (the buffer to a file), C-a C-k (empty the line)
            os.write(fd, (line + "\t\x18\x10\x01\x0b").encode())
            if not wait_for(f"{d}/line", fd):
                print(f"no answer to '{line}'", file=sys.stderr)
                rc = 1
                break
            reply = "<none>"
            if os.path.exists(f"{d}/reply"):
                reply = open(f"{d}/reply").read().rstrip("\n")
            print(reply + "\t" + open(f"{d}/line").read().rstrip("\n"))
            sys.stdout.flush()
        os.write(fd, b"\x04")
    finally:
        try:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
        except OSError:
            pass
        shutil.rmtree(d, ignore_errors=True)
    return rc


if __name__ == "__main__":
    sys.exit(main())
