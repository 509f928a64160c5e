#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The length of every function in C FILEs written in kernel style (the
opening brace of a function body alone at column 0, its closing brace
alone at column 0): "LINES FILE:LINE NAME" per function, longest first.
LINES counts the body from its '{' to its '}', both included.

usage: funclen.py FILE...
"""
import re
import sys


def functions(path):
    lines = open(path, encoding="utf-8", errors="replace").read().split("\n")
    start = None
    for i, line in enumerate(lines):
        if line == "{" and i > 0:
            # the name: the last identifier before '(' in the lines above
            head = ""
            j = i - 1
            while j >= 0 and lines[j] and not lines[j].endswith(";") and lines[j] != "}":
                head = lines[j] + " " + head
                if re.match(r"^[A-Za-z_]", lines[j]):
                    break
                j -= 1
            m = re.search(r"([A-Za-z_][A-Za-z0-9_]*)\s*\(", head)
            start = (i, m.group(1) if m else "?", j + 1)
        elif line == "}" and start:
            yield i - start[0] + 1, f"{path}:{start[2] + 1}", start[1]
            start = None


def main():
    rows = [r for p in sys.argv[1:] for r in functions(p)]
    for n, where, name in sorted(rows, key=lambda r: -r[0]):
        print(n, where, name)


if __name__ == "__main__":
    main()
