#!/usr/bin/env python3
"""Book-hash vectors for CTF and Protocol V2 snapshots, written independently of polyclob.

The exchange's hash is the SHA-1 of the compact JSON
{market, asset_id, timestamp, hash:"", bids, asks, min_order_size, tick_size, neg_risk,
 last_trade_price[, version]}: V2 books add "version":"v2" (that reproduces a captured V2
book's hash). A member the frame omits is hashed with the market's current value (the
"stand-ins"), as the captured crossing-burst snapshot shows.

Each vector: the frame as sent (some omit members), the metadata the hash needs but the frame
does not carry, and the expected hash. Run: python3 scripts/make_book_hash_vectors.py
"""
import hashlib
import json
import pathlib

MARKET_V2 = "0x01" + "5a" * 29 + "0000" + "00"  # a bytes31 condition, right-padded
MARKET_CTF = "0x" + "c3" * 32
ASSET_V2 = str((1 << 248) | (0x5A5A << 120) | 1)
ASSET_CTF = "71321045679252212594626385532706912750332728571942532289631379312455583992563"


def expected(frame, meta):
    o = {
        "market": frame["market"],
        "asset_id": frame["asset_id"],
        "timestamp": frame["timestamp"],
        "hash": "",
        "bids": [{"price": l["price"], "size": l["size"]} for l in frame["bids"]],
        "asks": [{"price": l["price"], "size": l["size"]} for l in frame["asks"]],
        "min_order_size": meta["min_order_size"],
        "tick_size": frame.get("tick_size", meta.get("tick_size", "")),
        "neg_risk": meta["neg_risk"],
        "last_trade_price": frame.get("last_trade_price", meta.get("last_trade_price", "")),
    }
    version = frame.get("version", "v2" if meta["protocol"] == "v2" else None)
    if version is not None:
        o["version"] = version
    return hashlib.sha1(json.dumps(o, separators=(",", ":")).encode()).hexdigest()


def frame(market, asset, *, omit=(), version=None):
    f = {
        "event_type": "book",
        "market": market,
        "asset_id": asset,
        "timestamp": "1795000000123",
        "bids": [{"price": "0.01", "size": "1500"}, {"price": "0.47", "size": "20.5"}],
        "asks": [{"price": "0.99", "size": "7"}, {"price": "0.53", "size": "300"}],
        "tick_size": "0.01",
        "last_trade_price": "0.5",
    }
    if version is not None:
        f["version"] = version
    for k in omit:
        f.pop(k)
    return f


def main():
    cases = []

    def add(name, f, meta):
        f = dict(f)
        f["hash"] = expected(f, meta)
        # The frame exactly as a WS `book` element would carry it (compact, in this order).
        cases.append({"name": name, "text": json.dumps(f, separators=(",", ":")), "meta": meta})

    ctf = {"min_order_size": "5", "neg_risk": False, "protocol": "v1"}
    v2 = {"min_order_size": "5", "neg_risk": True, "protocol": "v2"}
    add("ctf_full", frame(MARKET_CTF, ASSET_CTF), ctf)
    add("ctf_omits_tick_and_last_trade",
        frame(MARKET_CTF, ASSET_CTF, omit=("tick_size", "last_trade_price")),
        dict(ctf, tick_size="0.001", last_trade_price="0.301"))
    add("v2_full", frame(MARKET_V2, ASSET_V2, version="v2"), v2)
    add("v2_omits_tick_and_last_trade",
        frame(MARKET_V2, ASSET_V2, omit=("tick_size", "last_trade_price"), version="v2"),
        dict(v2, tick_size="0.01", last_trade_price="0.52"))
    add("v2_omits_version", frame(MARKET_V2, ASSET_V2), v2)
    add("v2_empty_sides",
        dict(frame(MARKET_V2, ASSET_V2, version="v2"), bids=[], asks=[]), v2)
    out = pathlib.Path(__file__).resolve().parent.parent / "tests" / "data" / "book_hash_vectors.json"
    out.write_text(json.dumps({"source": "scripts/make_book_hash_vectors.py", "cases": cases}, indent=1) + "\n")
    print(f"wrote {len(cases)} vectors to {out}")


if __name__ == "__main__":
    main()
