#!/usr/bin/env python3
"""Known answers for polyclob's RFQ calls, made with Polymarket's own Python SDK.

Environment used for the committed tests/data/clob_vectors.json (Python 3.11):

    python3 -m venv .venv-clob && . .venv-clob/bin/activate
    pip install py-clob-client-v2==1.2.1
    python scripts/make_clob_vectors.py > tests/data/clob_vectors.json

The SDK's own code path runs for every vector: `ClobClient.rfq.create_rfq_request`,
`create_rfq_quote`, `accept_rfq_quote` and `approve_rfq_order`. Only I/O and chance are
pinned: the HTTP helpers are replaced by recorders (the quote lookups return a fixed page),
the tick-size and neg-risk caches are pre-filled, the L2 timestamp is fixed, and the V1
order salt generator returns a fixed salt. Each vector records the exact body bytes the SDK
would send and the POLY_SIGNATURE HMAC of that body.

Every accept/approve vector is also checked here: the EIP-712 signature in the body
recovers to the signer's address over the V1 order digest (domain "Polymarket CTF
Exchange", version "1").
"""

import base64
import json
import sys

from eth_account import Account
from eth_account.messages import encode_typed_data

import py_clob_client_v2.order_builder.builder as v2b
import py_clob_client_v2.rfq.rfq_client as rfq_mod
from py_clob_client_v2.client import ClobClient
from py_clob_client_v2.clob_types import ApiCreds
from py_clob_client_v2.config import get_contract_config
from py_clob_client_v2.rfq.rfq_types import (
    AcceptQuoteParams,
    ApproveOrderParams,
    RfqUserQuote,
    RfqUserRequest,
)

PK = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80"  # Hardhat #0
ADDR = Account.from_key(PK).address
OWNER = "f4f247b7-4ac7-ff29-a152-04fda0a8755a"
SECRET = base64.urlsafe_b64encode(bytes([0xFB, 0xFF, 0xBF] * 10 + [0x01, 0x02])).decode()
PASSPHRASE = "0123456789abcdef" * 4
L2_TS = 1767225600  # 2026-01-01T00:00:00Z
TOKEN_A = "71321045679252212594626385532706912750332728571942532289631379312455583992563"
TOKEN_B = "52114319501245915516055106046884209969926127482827954674443846427813813222426"
CONDITION = "0x" + "c1" * 32

_SALT = {"v": 0}


class FixedSaltV1(v2b.ExchangeOrderBuilderV1):
    def __init__(self, *args, **kwargs):
        kwargs["generate_salt"] = lambda: str(_SALT["v"])
        super().__init__(*args, **kwargs)


v2b.ExchangeOrderBuilderV1 = FixedSaltV1

SENT = []
QUOTES = {"page": None}


def fake_post(url, headers=None, data=None):
    SENT.append({"method": "POST", "url": url, "headers": headers, "data": data})
    return {"requestId": "r", "quoteId": "q"}


def fake_delete(url, headers=None, data=None):
    SENT.append({"method": "DELETE", "url": url, "headers": headers, "data": data})
    return "OK"


def fake_get(url, headers=None):
    return QUOTES["page"]


rfq_mod.post = fake_post
rfq_mod.delete = fake_delete
rfq_mod.get = fake_get


def client(chain_id=137, tick="0.01", neg_risk=False, tokens=(TOKEN_A, TOKEN_B)):
    c = ClobClient(
        "https://clob.invalid",
        chain_id,
        key=PK,
        creds=ApiCreds(api_key=OWNER, api_secret=SECRET, api_passphrase=PASSPHRASE),
    )
    c._get_timestamp = lambda: L2_TS
    for t in tokens:
        c._ClobClient__tick_sizes[t] = tick
        c._ClobClient__neg_risk[t] = neg_risk
    return c


def last():
    s = SENT[-1]
    h = s["headers"]
    return {
        "method": s["method"],
        "path": s["url"].replace("https://clob.invalid", ""),
        "body": s["data"],
        "poly_signature": h["POLY_SIGNATURE"],
        "poly_timestamp": h["POLY_TIMESTAMP"],
    }


def check_v1_signature(body: dict, chain_id: int, neg_risk: bool):
    cfg = get_contract_config(chain_id)
    exchange = cfg.neg_risk_exchange if neg_risk else cfg.exchange
    typed = {
        "types": {
            "EIP712Domain": [
                {"name": "name", "type": "string"},
                {"name": "version", "type": "string"},
                {"name": "chainId", "type": "uint256"},
                {"name": "verifyingContract", "type": "address"},
            ],
            "Order": [
                {"name": n, "type": t}
                for n, t in [
                    ("salt", "uint256"), ("maker", "address"), ("signer", "address"),
                    ("taker", "address"), ("tokenId", "uint256"), ("makerAmount", "uint256"),
                    ("takerAmount", "uint256"), ("expiration", "uint256"), ("nonce", "uint256"),
                    ("feeRateBps", "uint256"), ("side", "uint8"), ("signatureType", "uint8"),
                ]
            ],
        },
        "primaryType": "Order",
        "domain": {
            "name": "Polymarket CTF Exchange",
            "version": "1",
            "chainId": chain_id,
            "verifyingContract": exchange,
        },
        "message": {
            "salt": int(body["salt"]), "maker": body["maker"], "signer": body["signer"],
            "taker": body["taker"], "tokenId": int(body["tokenId"]),
            "makerAmount": int(body["makerAmount"]), "takerAmount": int(body["takerAmount"]),
            "expiration": int(body["expiration"]), "nonce": int(body["nonce"]),
            "feeRateBps": int(body["feeRateBps"]), "side": 0 if body["side"] == "BUY" else 1,
            "signatureType": int(body["signatureType"]),
        },
    }
    who = Account.recover_message(encode_typed_data(full_message=typed), signature=body["signature"])
    assert who == ADDR, (who, ADDR)


def quote_row(quote_id, side, size_in, size_out, price, match_type, token=TOKEN_A, complement=TOKEN_B):
    return {
        "quoteId": quote_id, "requestId": "req-1", "userAddress": ADDR, "proxyAddress": ADDR,
        "condition": CONDITION, "token": token, "complement": complement, "side": side,
        "sizeIn": size_in, "sizeOut": size_out, "price": price, "matchType": match_type,
    }


def main():
    out = {"generator": "scripts/make_clob_vectors.py", "sdk": "py-clob-client-v2 1.2.1",
           "owner": OWNER, "secret": SECRET, "passphrase": PASSPHRASE, "l2_timestamp": L2_TS,
           "private_key": PK, "address": ADDR, "requests": [], "quotes": [], "orders": []}

    for i, (side, price, size, tick) in enumerate([
        ("BUY", 0.52, 100, "0.01"), ("SELL", 0.37, 12.5, "0.01"),
        ("BUY", 0.123, 40.25, "0.001"), ("SELL", 0.0037, 1000, "0.0001"),
        ("BUY", 0.005, 7, "0.005"),
    ]):
        c = client(tick=tick)
        c.rfq.create_rfq_request(RfqUserRequest(token_id=TOKEN_A, price=price, side=side, size=size))
        out["requests"].append({"id": f"request_{i}", "token_id": TOKEN_A, "side": side,
                                "price": str(price), "size": str(size), "tick": tick,
                                "signature_type": 0, **last()})

    c = client()
    c.rfq.create_rfq_quote(RfqUserQuote(request_id="req-1", token_id=TOKEN_A, price=0.48, side="SELL", size=100))
    out["quotes"].append({"id": "quote_0", "request_id": "req-1", "token_id": TOKEN_A, "side": "SELL",
                          "price": "0.48", "size": "100", "tick": "0.01", "signature_type": 0, **last()})

    cases = [
        ("accept_complementary_buy_quote", "accept", quote_row("q-1", "BUY", "100", "48", "0.48", "COMPLEMENTARY"), False, 137),
        ("accept_complementary_sell_quote", "accept", quote_row("q-2", "SELL", "26", "50", "0.52", "COMPLEMENTARY"), False, 137),
        ("accept_mint_quote_neg_risk", "accept", quote_row("q-3", "BUY", "30", "12", "0.4", "MINT"), True, 137),
        ("approve_sell_quote", "approve", quote_row("q-4", "SELL", "26", "50", "0.52", "COMPLEMENTARY"), False, 137),
        ("approve_buy_quote_amoy", "approve", quote_row("q-5", "BUY", "100", "48", "0.48", "COMPLEMENTARY"), False, 80002),
    ]
    for n, (cid, kind, quote, neg_risk, chain) in enumerate(cases):
        _SALT["v"] = 1_000_000_007 + n
        expiration = L2_TS + 3600
        QUOTES["page"] = {"data": [quote], "next_cursor": "LTE="}
        c = client(chain_id=chain, neg_risk=neg_risk)
        if kind == "accept":
            c.rfq.accept_rfq_quote(AcceptQuoteParams(request_id="req-1", quote_id=quote["quoteId"], expiration=expiration))
        else:
            c.rfq.approve_rfq_order(ApproveOrderParams(request_id="req-1", quote_id=quote["quoteId"], expiration=expiration))
        rec = last()
        check_v1_signature(json.loads(rec["body"]), chain, neg_risk)
        out["orders"].append({"id": cid, "kind": kind, "chain": chain, "neg_risk": neg_risk, "tick": "0.01",
                              "salt": _SALT["v"], "expiration": expiration, "request_id": "req-1",
                              "quote": quote, **rec})

    json.dump(out, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
