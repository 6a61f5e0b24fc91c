#!/usr/bin/env python3
"""Time the no-cliff rows of ws_hot_path as interleaved best-of-N runs of its count mode.

A criterion run times each row once, one after another, so a few percent of drift of this
shared VM lands on one row and moves its ratio to the exact layout. Here every round runs every
group once (interleaved), each at two iteration counts (the difference removes start-up), and
each group keeps its best round; the first group is the reference.

    cargo bench -p polyclob --all-features --bench ws_hot_path --no-run
    python3 scripts/no_cliff_times.py target/release/deps/ws_hot_path-<hash> \
        price_change_x2_exact,price_change_x2_new_field,... [rounds]
"""
import os
import subprocess
import sys
import time


def run(binary, group, n):
    env = dict(os.environ, WS_HOT_PATH_COUNT=f"{group}:apply:{n}")
    start = time.perf_counter()
    subprocess.run([binary], env=env, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def main():
    binary, groups = sys.argv[1], sys.argv[2].split(",")
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 9
    low, high = 500_000, 2_500_000
    best = {g: [float("inf"), float("inf")] for g in groups}
    for _ in range(rounds):
        for g in groups:
            for i, n in enumerate((low, high)):
                best[g][i] = min(best[g][i], run(binary, g, n))
    per = {g: (best[g][1] - best[g][0]) / (high - low) * 1e9 for g in groups}
    ref = per[groups[0]]
    for g in groups:
        print(f"{g:40} {per[g]:7.1f} ns  {per[g] / ref:.3f}x")


if __name__ == "__main__":
    main()
