#!/usr/bin/env python3
"""Counts non-test, non-blank lines of Rust files (issue 35's measure), or with `--public` the
top-level public items (issue 46's measure).

A line is counted when it is not blank and not inside an item marked `#[cfg(test)]`
(a `mod tests { … }`, a test-only fn or use). Comments count: they are code a reader reads.

With `--public`, an item is counted when its line starts, with no indentation, with
`pub fn|struct|enum|trait|type|const|static` (`pub async fn`, `pub const fn` and `pub unsafe fn`
included) outside `#[cfg(test)]` items: the crate's top-level public surface, file by file.
Re-exports (`pub use`), methods and items inside an inline module are not counted.

usage: scripts/count_lines.py [--public] [FILE_OR_DIR ...]
       (default: the decoder and the JSON scanner; `--public` alone: src/)
"""
import os
import re
import sys

DEFAULT = ["src/decode.rs", "src/decode", "src/json.rs", "src/json"]


def strip_code(line, state):
    """Returns the line with strings, chars and comments blanked, and the new lexer state
    (None, or ('raw', hashes) / ('str',) / ('block', depth) carried over lines)."""
    out = []
    i = 0
    n = len(line)
    while i < n:
        if state is not None:
            kind = state[0]
            if kind == "str":
                if line[i] == "\\":
                    i += 2
                    continue
                if line[i] == '"':
                    state = None
                i += 1
                continue
            if kind == "raw":
                end = '"' + "#" * state[1]
                j = line.find(end, i)
                if j < 0:
                    return "".join(out), state
                i = j + len(end)
                state = None
                continue
            if kind == "block":
                if line.startswith("/*", i):
                    state = ("block", state[1] + 1)
                    i += 2
                elif line.startswith("*/", i):
                    state = None if state[1] == 1 else ("block", state[1] - 1)
                    i += 2
                else:
                    i += 1
                continue
        c = line[i]
        if line.startswith("//", i):
            break
        if line.startswith("/*", i):
            state = ("block", 1)
            i += 2
            continue
        m = re.match(r'b?r(#*)"', line[i:])
        if m and (i == 0 or not (line[i - 1].isalnum() or line[i - 1] == "_")):
            state = ("raw", len(m.group(1)))
            i += m.end()
            continue
        if c == '"':
            state = ("str",)
            i += 1
            continue
        if c == "'":
            m = re.match(r"'(\\.[^']*|[^\\'])'", line[i:])
            if m:
                i += m.end()
                continue
        out.append(c)
        i += 1
    return "".join(out), state


PUBLIC_ITEM = re.compile(
    r"pub (async )?(const )?(unsafe )?(fn|struct|enum|trait|type|const|static) "
)


def count(path, public=False):
    total = 0
    depth = 0  # brace depth of the code
    skip_until = None  # depth at which a skipped cfg(test) item ends
    pending = False  # saw #[cfg(test)], waiting for its item
    state = None
    with open(path, encoding="utf-8") as f:
        for line in f:
            code, state = strip_code(line, state)
            stripped = line.strip()
            start_depth = depth
            depth += code.count("{") - code.count("}")
            if skip_until is not None:
                if depth <= skip_until:
                    skip_until = None
                continue
            if pending:
                if stripped.startswith("#[") or stripped.startswith("//") or not stripped:
                    continue
                pending = False
                if depth > start_depth:
                    skip_until = start_depth
                continue
            if re.match(r"#\[cfg\((test|all\(test.*)\)\]", stripped):
                pending = True
                continue
            if public:
                total += 1 if PUBLIC_ITEM.match(line) else 0
            elif stripped:
                total += 1
    return total


def files(args):
    for a in args:
        if os.path.isdir(a):
            for root, _, names in sorted(os.walk(a)):
                for name in sorted(names):
                    if name.endswith(".rs"):
                        yield os.path.join(root, name)
        elif os.path.isfile(a):
            yield a


def main():
    args = sys.argv[1:]
    public = "--public" in args
    args = [a for a in args if a != "--public"] or (["src"] if public else DEFAULT)
    grand = 0
    for path in files(args):
        n = count(path, public)
        if public and n == 0:
            continue
        grand += n
        print(f"{n:6} {path}")
    print(f"{grand:6} total")


if __name__ == "__main__":
    main()
