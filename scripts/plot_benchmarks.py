#!/usr/bin/env python3
"""Draws benches.png: how many times faster polyclob is than the peer or baseline measured in
the same run, one bar per row of scripts/benchmarks.csv (the README's benchmark table).

    python3 scripts/plot_benchmarks.py [scripts/benchmarks.csv] [benches.png]

Needs matplotlib (pip install matplotlib). Run from the repository root.
"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402

PEER = "#d9572b"
BASELINE = "#2f6fdb"


def load(path):
    with open(path, encoding="utf-8") as f:
        lines = [line for line in f if not line.startswith("#")]
    rows = []
    for r in csv.DictReader(lines):
        ours, other = float(r["polyclob"]), float(r["other"])
        if ours <= 0 or other <= 0:
            raise SystemExit(f"{path}: non-positive time in row {r['label']!r}")
        kind = r.get("kind", "baseline")
        if kind not in ("peer", "baseline"):
            raise SystemExit(f"{path}: kind must be peer or baseline in row {r['label']!r}")
        rows.append((r["label"], ours, other, r["unit"], r["other_name"], kind))
    if not rows:
        raise SystemExit(f"{path}: no rows")
    return rows


def main():
    src = sys.argv[1] if len(sys.argv) > 1 else "scripts/benchmarks.csv"
    out = sys.argv[2] if len(sys.argv) > 2 else "benches.png"
    rows = load(src)
    labels = [r[0] for r in rows][::-1]
    speedup = [r[2] / r[1] for r in rows][::-1]
    notes = [f"{r[1]:g} vs {r[2]:g} {r[3]} ({r[4]})" for r in rows][::-1]
    colors = [PEER if r[5] == "peer" else BASELINE for r in rows][::-1]

    fig, ax = plt.subplots(figsize=(10, 0.55 * len(rows) + 1.4), dpi=110)
    bars = ax.barh(labels, speedup, color=colors)
    ax.axvline(1.0, color="#888888", linewidth=1, linestyle="--")
    for bar, s, note in zip(bars, speedup, notes):
        ax.text(bar.get_width() + 0.05, bar.get_y() + bar.get_height() / 2,
                f"{s:.2f}×  {note}", va="center", fontsize=8)
    ax.set_xlim(0, max(speedup) * 1.7)
    ax.legend(handles=[Patch(color=PEER, label="against another Polymarket client"),
                       Patch(color=BASELINE, label="against a baseline library")],
              loc="lower right", fontsize=8, frameon=False)
    ax.set_xlabel("times faster than the other row of the same run (1.0 = equal)")
    ax.set_title("polyclob against the peer or baseline of the same run (BENCHMARKS.md)",
                 fontsize=10)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    fig.tight_layout()
    fig.savefig(out)
    print(f"wrote {out} ({len(rows)} rows from {src})")


if __name__ == "__main__":
    main()
