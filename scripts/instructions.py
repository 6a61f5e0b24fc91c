#!/usr/bin/env python3
"""Instructions per iteration of bench rows under callgrind (BENCHMARKS.md, "Decoding").

Each row runs at two iteration counts through the bench binary's count mode; the difference
of the two totals divided by the difference of the counts removes start-up and warm-up.

    cargo bench -p polyclob --all-features --bench ws_hot_path --no-run
    python3 scripts/instructions.py target/release/deps/ws_hot_path-<hash> WS_HOT_PATH_COUNT \\
        book_16x16:apply,price_change_x2:apply,...
    (book_hash: BOOK_HASH_COUNT and captured_7x58:apply_unverified, …)
"""
import os
import subprocess
import sys
import tempfile

LOW, HIGH = 1_000, 3_000


def total(binary, var, spec, n):
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "callgrind.out")
        env = dict(os.environ, **{var: f"{spec}:{n}"})
        subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", binary],
                       env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        with open(out) as f:
            for line in f:
                if line.startswith("summary:"):
                    return int(line.split()[1])
    raise RuntimeError(f"no summary for {spec}")


def main():
    binary, var, specs = sys.argv[1], sys.argv[2], sys.argv[3].split(",")
    for spec in specs:
        per = (total(binary, var, spec, HIGH) - total(binary, var, spec, LOW)) / (HIGH - LOW)
        print(f"{spec:55} {per:10,.0f}", flush=True)


if __name__ == "__main__":
    main()
