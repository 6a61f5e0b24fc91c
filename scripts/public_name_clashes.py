#!/usr/bin/env python3
"""Lists public type names (`pub struct|enum|type|trait`) declared more than once under src/,
outside the polymarket-rs-client 0.1.1 compat surface (src/compat/, frozen by contract).

    python3 scripts/public_name_clashes.py        # exit status 1 when a name repeats

The rule it enforces is CONTRIBUTING.md's "Names": a type's name is unique in the crate,
except the few concepts every client module has, named with the module as std and reqwest
name theirs (`gamma::Client`, `http::Error`). Those are BY_DESIGN (and one item declared twice
under `cfg`); they are listed apart and do not fail the check. A type alias counts like any
other declaration: the crate keeps no old names (CI runs this script).
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent / "src"
BY_DESIGN = {"Client", "ClientBuilder", "Error", "DefaultBackend"}
DECL = re.compile(r"^\s*pub\s+(struct|enum|type|trait)\s+([A-Za-z_][A-Za-z0-9_]*)")


def main():
    seen = {}
    for path in sorted(ROOT.rglob("*.rs")):
        rel = path.relative_to(ROOT)
        if rel.parts[0] == "compat":
            continue
        lines = path.read_text().splitlines()
        for i, line in enumerate(lines):
            m = DECL.match(line)
            if not m:
                continue
            seen.setdefault(m.group(2), []).append(f"{rel}:{i + 1}")
    clashes = {k: v for k, v in seen.items() if len(v) > 1}
    for name in sorted(clashes):
        note = " (by design)" if name in BY_DESIGN else ""
        print(f"{name}{note}: {', '.join(clashes[name])}")
    return 1 if set(clashes) - BY_DESIGN else 0


if __name__ == "__main__":
    sys.exit(main())
