#!/usr/bin/env python3
"""Checks the dependency tree against the crate's promises.

1. MSRV: no normal dependency (default features) declares a `rust-version` newer than ours.
2. Size: at most 250 crates in the default-feature normal dependency tree.

Run from the repository root: python3 scripts/check_tree.py
"""
import json
import subprocess
import sys

LIMIT = 250


def version_tuple(v):
    return tuple(int(x) for x in v.split(".")[:3]) + (0,) * (3 - len(v.split(".")))


def main():
    meta = json.loads(subprocess.check_output(
        ["cargo", "metadata", "--format-version", "1", "--locked"]))
    root = meta["resolve"]["root"]
    packages = {p["id"]: p for p in meta["packages"]}
    ours = packages[root]["rust_version"]
    tree = subprocess.check_output(
        ["cargo", "tree", "--locked", "-p", "polyclob", "-e", "normal", "--prefix", "none", "-f", "{p}"], text=True)
    names = sorted({line.split(" (")[0].strip() for line in tree.splitlines() if line.strip()})
    failures = []
    newest = ("(none)", "0")
    by_name = {(p["name"], p["version"]): p for p in meta["packages"]}
    for entry in names:
        name, _, ver = entry.partition(" v")
        pkg = by_name.get((name, ver))
        rv = pkg and pkg.get("rust_version")
        if rv and version_tuple(rv) > version_tuple(newest[1]):
            newest = (entry, rv)
        if rv and version_tuple(rv) > version_tuple(ours):
            failures.append(f"{entry} needs rust {rv} > our rust-version {ours}")
    print(f"dependency tree: {len(names)} crates (limit {LIMIT}); "
          f"rust-version {ours}, newest requirement {newest[1]} ({newest[0]})")
    if len(names) > LIMIT:
        failures.append(f"{len(names)} crates exceeds the limit of {LIMIT}")
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
