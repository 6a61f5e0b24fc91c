#!/usr/bin/env python3
"""Every relative link and image in README.md resolves inside the published package.

crates.io and docs.rs render the README from the package, not the repository, so a file the
`include` list leaves out is a dead link there. Run from the repository root:
python3 scripts/check_links.py
"""
import re
import subprocess
import sys


def main():
    readme = open("README.md", encoding="utf-8").read()
    targets = set(re.findall(r"\]\(([^)#\s]+)", readme)) | set(re.findall(r'src="([^"]+)"', readme))
    local = sorted(t for t in targets if "://" not in t and not t.startswith("mailto:"))
    packaged = set(subprocess.check_output(
        ["cargo", "package", "-p", "polyclob", "--list", "--allow-dirty", "--locked"], text=True).split())
    missing = [t for t in local if t.lstrip("./") not in packaged]
    print(f"README: {len(local)} relative links, {len(missing)} outside the package")
    for t in missing:
        print("FAIL: README links", t, "which the package does not include")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
