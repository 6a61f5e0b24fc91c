#!/usr/bin/env python3
"""Regenerates header.png, the README banner.

Usage: python3 scripts/make_header.py [output.png]   (needs Pillow: pip install pillow)

The picture is deterministic: a depth chart of a synthetic order book (bids green, asks red,
stepped like real L2 levels around a 0.50 mid), the crate name and its one-line pitch.
"""
import math
import random
import sys

from PIL import Image, ImageDraw, ImageFilter, ImageFont

W, H = 1600, 400
OUT = sys.argv[1] if len(sys.argv) > 1 else "header.png"
BG_TOP, BG_BOTTOM = (11, 16, 32), (22, 30, 58)
BID, ASK = (46, 204, 138), (240, 84, 96)
TEXT, MUTED, ACCENT = (240, 244, 255), (160, 172, 204), (98, 148, 255)


def font(size, bold=False):
    names = ["DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf",
             "/usr/share/fonts/truetype/dejavu/" + ("DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf")]
    for name in names:
        try:
            return ImageFont.truetype(name, size)
        except OSError:
            continue
    return ImageFont.load_default()


def gradient():
    img = Image.new("RGB", (W, H))
    px = img.load()
    for y in range(H):
        t = y / (H - 1)
        row = tuple(round(a + (b - a) * t) for a, b in zip(BG_TOP, BG_BOTTOM))
        for x in range(W):
            px[x, y] = row
    return img


def depth_levels(rng, side):
    """Cumulative depth per 0.01 tick moving away from the mid, like a real book."""
    levels, total = [], 0.0
    for i in range(1, 40):
        total += rng.uniform(20, 120) * (1 + 0.04 * i) + (300 if rng.random() < 0.08 else 0)
        price = 0.50 - 0.01 * i if side == "bid" else 0.50 + 0.01 * i
        levels.append((price, total))
    return levels


def draw_depth(img, rng):
    layer = Image.new("RGBA", (W, H), (0, 0, 0, 0))
    d = ImageDraw.Draw(layer)
    x0, x1, base, top = 900, 1550, 350, 60
    bids, asks = depth_levels(rng, "bid"), depth_levels(rng, "ask")
    peak = max(bids[-1][1], asks[-1][1])

    def xy(price, depth):
        x = x0 + (price - 0.11) / (0.89 - 0.11) * (x1 - x0)
        y = base - depth / peak * (base - top)
        return x, y

    for levels, color in ((bids, BID), (asks, ASK)):
        pts, prev_y = [xy(0.50, 0)], base
        for price, depth in levels:
            x, y = xy(price, depth)
            pts += [(x, prev_y), (x, y)]
            prev_y = y
        pts.append((pts[-1][0], base))
        d.polygon(pts, fill=color + (70,))
        d.line(pts[:-1], fill=color + (255,), width=3)
    mx, _ = xy(0.50, 0)
    d.line([(mx, top - 10), (mx, base)], fill=ACCENT + (200,), width=2)
    d.line([(x0, base), (x1, base)], fill=MUTED + (120,), width=1)
    glow = layer.filter(ImageFilter.GaussianBlur(6))
    img.paste(glow, (0, 0), glow)
    img.paste(layer, (0, 0), layer)


def main():
    rng = random.Random(20261122)
    img = gradient()
    draw_depth(img, rng)
    d = ImageDraw.Draw(img)
    d.text((70, 95), "polyclob", font=font(118, bold=True), fill=TEXT)
    d.text((74, 242), "The fastest correct Polymarket CLOB client for Rust",
           font=font(30), fill=MUTED)
    d.text((74, 292), "CLOB V2 orders · zero-allocation books · drop-in for polymarket-rs-client",
           font=font(21), fill=ACCENT)
    img.save(OUT, optimize=True)
    print(f"wrote {OUT} ({W}x{H})")


if __name__ == "__main__":
    main()
