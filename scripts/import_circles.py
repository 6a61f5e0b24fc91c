#!/usr/bin/env python3
"""Finds import circles between source files: files that reach each other through `use`
and inline paths. CONTRIBUTING.md ("Layers") allows none of more than MAX_CIRCLE files.

    python3 scripts/import_circles.py       # lists every circle; exit status 1 on one too large

The file-level companion of tests/it/module_graph.rs (which checks the top-level modules'
layers). It reads each crate of the workspace (polyclob, polyclob-sim, polyclob-doctor) as
text:

- an edge `a -> b` is a name file `a` takes from file `b`: a `use` (groups expanded) or an
  inline `crate::`/`super::`/`self::` path, resolved to the file that *defines* the name,
  following re-exports (`pub use` in a `mod.rs` is a door, not a room);
- a path naming a module (`use super::feed;`) ties to that module's file;
- comments, string literals and `#[cfg(test)]` modules are left out (tests may import
  anything they test);
- a name that cannot be resolved (a glob, a macro, another crate) adds no edge.

A circle is a strongly connected component of that graph.
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
CRATES = [ROOT / "src", ROOT / "crates/polyclob-sim/src", ROOT / "crates/polyclob-doctor/src"]
MAX_CIRCLE = 5

IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
DEF = re.compile(
    r"\b(?:fn|struct|enum|trait|type|const|static|union|mod)\s+(" + IDENT + r")"
    r"|\bmacro_rules!\s*(" + IDENT + r")"
)
USE = re.compile(r"\buse\s+([^;]*);")
INLINE = re.compile(r"(?<![A-Za-z0-9_:])((?:crate|super|self)(?:::" + IDENT + r")+)")


def strip(code):
    """The code without comments, string and char literals (replaced by blanks)."""
    out, i, n = [], 0, len(code)
    while i < n:
        c = code[i]
        if code.startswith("//", i):
            j = code.find("\n", i)
            i = n if j < 0 else j
        elif code.startswith("/*", i):
            depth, i = 1, i + 2
            while i < n and depth:
                if code.startswith("/*", i):
                    depth, i = depth + 1, i + 2
                elif code.startswith("*/", i):
                    depth, i = depth - 1, i + 2
                else:
                    i += 1
        elif (m := re.match(r'b?r(#*)"', code[i:])) and (i == 0 or not code[i - 1].isalnum()):
            end = '"' + m.group(1)
            j = code.find(end, i + m.end())
            out.append('""')
            i = n if j < 0 else j + len(end)
        elif c == '"':
            j = i + 1
            while j < n and code[j] != '"':
                j += 2 if code[j] == "\\" else 1
            out.append('""')
            i = j + 1
        elif c == "'" and (m := re.match(r"'(\\.[^']*|[^'\\])'", code[i:])):
            out.append("' '")
            i += m.end()
        else:
            out.append(c)
            i += 1
    return "".join(out)


def drop_test_modules(code):
    """The code without `#[cfg(test)] mod … { … }` blocks (braces balanced on stripped code)."""
    while (m := re.search(r"#\[cfg\(test\)\]\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+" + IDENT + r"\s*\{", code)):
        depth, j = 1, m.end()
        while j < len(code) and depth:
            depth += {"{": 1, "}": -1}.get(code[j], 0)
            j += 1
        code = code[: m.start()] + code[j:]
    return code


def expand(tree):
    """`a::{b, c::{d, e as f}}` → [['a','b'], ['a','c','d'], ['a','c','e']]."""
    tree = re.sub(r"\s+", "", re.sub(r"\s+as\s+", "@", tree))

    def parse(s, prefix):
        parts, depth, start = [], 0, 0
        for k, ch in enumerate(s):
            depth += {"{": 1, "}": -1}.get(ch, 0)
            if ch == "," and depth == 0:
                parts.append(s[start:k])
                start = k + 1
        parts.append(s[start:])
        paths = []
        for part in filter(None, parts):
            if "{" in part:
                head, rest = part.split("{", 1)
                paths += parse(rest[: rest.rfind("}")], prefix + [x for x in head.split("::") if x])
            else:
                paths.append(prefix + [x for x in part.split("@")[0].split("::") if x])
        return paths

    return parse(tree, [])


class Crate:
    def __init__(self, src):
        self.src = src
        self.files = {}  # module path (tuple) -> file
        for path in sorted(src.rglob("*.rs")):
            rel = path.relative_to(src)
            if rel.name == "main.rs" and len(rel.parts) == 1:
                continue  # a binary: a crate of its own over the library
            parts = list(rel.with_suffix("").parts)
            if parts[-1] in ("mod", "lib"):
                parts.pop()
            self.files[tuple(parts)] = path
        self.code = {}
        self.defs = {}
        self.imports = {}  # module -> {name: absolute path}
        for mod, path in self.files.items():
            code = drop_test_modules(strip(path.read_text()))
            self.code[mod] = code
            self.defs[mod] = {a or b for a, b in DEF.findall(code)}
            imports = {}
            for tree in USE.findall(code):
                for p in expand(tree.replace("pub(crate)", "")):
                    absolute = self.absolute(mod, p)
                    if absolute and absolute[-1] not in ("*", "self"):
                        imports[absolute[-1]] = absolute
                    elif absolute and absolute[-1] == "self":
                        imports[absolute[-2]] = absolute[:-1]
            self.imports[mod] = imports

    def absolute(self, mod, path):
        """`path` as written in module `mod`, from the crate root; None for another crate."""
        path = [p for p in path if p]
        if not path:
            return None
        here = list(mod)
        if path[0] == "crate":
            return path[1:]
        if path[0] in ("self", "super"):
            while path and path[0] in ("self", "super"):
                if path[0] == "super":
                    if not here:
                        return None
                    here.pop()
                path = path[1:]
            return here + path
        # Edition 2018 paths: a child module (or an imported name) of this module.
        if tuple(here + [path[0]]) in self.files:
            return here + path
        return None

    def resolve(self, path, seen=None):
        """The file that defines what `path` (absolute) names, or None."""
        seen = seen or set()
        key = tuple(path)
        if key in seen:
            return None
        seen.add(key)
        k = len(path)
        while k and tuple(path[:k]) not in self.files:
            k -= 1
        mod, rest = tuple(path[:k]), path[k:]
        if mod not in self.files:
            return None
        if not rest:
            return self.files[mod]
        name = rest[0]
        if name in self.defs[mod]:
            return self.files[mod]
        target = self.imports[mod].get(name)
        if target:
            return self.resolve(target + rest[1:], seen)
        return None

    def edges(self):
        graph = {}
        for mod, code in self.code.items():
            me = self.files[mod]
            out = graph.setdefault(me, set())
            paths = [p for tree in USE.findall(code) for p in expand(tree.replace("pub(crate)", ""))]
            paths += [m.split("::") for m in INLINE.findall(USE.sub(";", code))]
            for p in paths:
                absolute = self.absolute(mod, p)
                if not absolute or absolute[-1] == "*":
                    continue
                if absolute[-1] == "self":
                    absolute = absolute[:-1]
                target = self.resolve(absolute)
                if target and target != me:
                    out.add(target)
        return graph


def circles(graph):
    """Strongly connected components of more than one file (Tarjan, iterative)."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph.get(root, ()))))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on.add(root)
        while work:
            node, it = work[-1]
            advanced = False
            for nxt in it:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter[0]
                    counter[0] += 1
                    stack.append(nxt)
                    on.add(nxt)
                    work.append((nxt, iter(sorted(graph.get(nxt, ())))))
                    advanced = True
                    break
                if nxt in on:
                    low[node] = min(low[node], index[nxt])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == node:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def main():
    too_large = 0
    found = []
    for src in CRATES:
        graph = Crate(src).edges()
        found += circles(graph)
    for comp in sorted(found, key=len, reverse=True):
        big = len(comp) > MAX_CIRCLE
        too_large += big
        names = ", ".join(str(p.relative_to(ROOT)) for p in comp)
        print(f"{'TOO LARGE ' if big else ''}circle of {len(comp)} files: {names}")
    print(f"{len(found)} circles, the largest {max(map(len, found), default=0)} files (at most {MAX_CIRCLE} allowed)")
    return 1 if too_large else 0


if __name__ == "__main__":
    sys.exit(main())
