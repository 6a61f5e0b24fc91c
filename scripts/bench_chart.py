#!/usr/bin/env python3
"""Draws benches.png from criterion's saved estimates, for the README.

Usage: python3 scripts/bench_chart.py [--criterion target/criterion] [--out benches.png]
                                      [GROUP ...]

Reads `<criterion>/<group>/<bench>/new/estimates.json` (written by `cargo bench`), takes each
bench's mean point estimate, and draws one panel per group with horizontal bars, each labelled
with its time. Baseline rows (names containing "baseline", "serde" or "ignored") are drawn grey so
the ratio to our rows is visible. Without GROUP arguments every group found is drawn.
Needs Pillow only.
"""
import argparse
import json
import os
import sys

from PIL import Image, ImageDraw, ImageFont

BG, FG, MUTED = (255, 255, 255), (20, 24, 40), (110, 116, 140)
OURS, BASE = (58, 110, 240), (170, 174, 190)


def font(size, bold=False):
    name = "DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf"
    for path in (name, "/usr/share/fonts/truetype/dejavu/" + name):
        try:
            return ImageFont.truetype(path, size)
        except OSError:
            pass
    return ImageFont.load_default()


def human(ns):
    if ns >= 1e6:
        return f"{ns / 1e6:.2f} ms"
    if ns >= 1e3:
        return f"{ns / 1e3:.2f} µs"
    return f"{ns:.0f} ns"


def collect(root, groups):
    found = {}
    for dirpath, _dirs, files in os.walk(root):
        if "estimates.json" in files and os.path.basename(dirpath) == "new":
            rel = os.path.relpath(os.path.dirname(dirpath), root)
            parts = rel.split(os.sep)
            if parts[-1] == "report":
                continue
            # A bench outside any group lives directly under the criterion folder.
            group, bench = (parts[0], "/".join(parts[1:])) if len(parts) > 1 else ("single", parts[0])
            if groups and group not in groups:
                continue
            with open(os.path.join(dirpath, "estimates.json")) as f:
                mean = json.load(f)["mean"]["point_estimate"]
            found.setdefault(group, []).append((bench, mean))
    return {g: sorted(rows, key=lambda r: r[0]) for g, rows in sorted(found.items())}


def is_baseline(name):
    lower = name.lower()
    return any(word in lower for word in ("baseline", "serde", "ignored"))


def draw(data, out):
    row_h, pad, label_w, bar_w = 26, 18, 360, 520
    height = pad + sum(40 + row_h * len(rows) + pad for rows in data.values())
    img = Image.new("RGB", (label_w + bar_w + 140, max(height, 80)), BG)
    d = ImageDraw.Draw(img)
    title, label, small = font(17, True), font(14), font(13)
    y = pad
    for group, rows in data.items():
        d.text((pad, y), group, font=title, fill=FG)
        y += 32
        longest = max(mean for _, mean in rows) or 1.0
        for bench, mean in rows:
            d.text((pad, y + 4), bench, font=label, fill=FG)
            w = max(2, int(bar_w * mean / longest))
            color = BASE if is_baseline(bench) else OURS
            d.rectangle([label_w, y + 3, label_w + w, y + row_h - 5], fill=color)
            d.text((label_w + w + 8, y + 5), human(mean), font=small, fill=MUTED)
            y += row_h
        y += pad
    img.save(out, optimize=True)
    print(f"wrote {out}: {sum(len(r) for r in data.values())} benches in {len(data)} groups")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--criterion", default="target/criterion")
    ap.add_argument("--out", default="benches.png")
    ap.add_argument("groups", nargs="*")
    args = ap.parse_args()
    data = collect(args.criterion, set(args.groups))
    if not data:
        print(f"no criterion estimates under {args.criterion}; run `cargo bench` first",
              file=sys.stderr)
        return 1
    draw(data, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
