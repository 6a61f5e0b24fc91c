#!/usr/bin/env python3
"""Known answers for polyclob's Protocol V2 settlement calls, from an independent encoder.

eth-abi encodes each call from the ABI Polymarket publishes:
  Router (docs.polymarket.com /migrate/polymarket-v2/contract-integrations, "Router ABI";
          the same signatures in Polymarket's ts-sdk ROUTER_SPLIT/MERGE/REDEEM_FUNCTION):
    split(bytes31 conditionId, uint256 amount)
    merge(bytes31 conditionId, uint256 amount)
    redeem(bytes31 conditionId, uint256 outcomeIndex, uint256 amount)
  PositionManager (Polymarket/polymarket-v2-external src/positionManager/PositionManager.sol,
          a Solady ERC1155):
    getPayout(uint256 positionId, uint256 amount) view returns (uint256)
    setApprovalForAll(address,bool), isApprovedForAll(address,address),
    balanceOfBatch(address[],uint256[])
  pUSD: approve(address,uint256)
Addresses: docs.polymarket.com/resources/contracts (PositionManager, Exchange = ExchangeV3,
pUSD) and the docs' Combos pages (Router). Position ids follow the documented layout
[moduleId 8 | baseHash 128 | arity 16 | reserved 64 | resolutionChain 16 | conditionIndex 16 |
outcomeIndex 8]; the condition id is the position id's top 31 bytes.

tests/router_vectors.rs rebuilds every call with polyclob and compares the bytes.

    pip install eth-abi "eth-hash[pycryptodome]"
    python3 scripts/make_router_vectors.py > tests/data/router_vectors.json
"""
import json
from importlib import metadata

from eth_abi import encode
from eth_utils import keccak

PUSD = "0xC011a7E12a19f7B1f670d46F03B03f3342E82DFB"
EXCHANGE_V3 = "0xe3333700cA9d93003F00f0F71f8515005F6c00Aa"
POSITION_MANAGER = "0x006F54F7f9A22e0000CC2AB60031000000ae9fEF"
ROUTER = "0x12121212006e4CD160D18e3f00711DA5c3372600"
PROXY_FACTORY = "0xaB45c5A4B0c941a2F231C04C3f49182e1A254052"
OWNER = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"
MAX = 2**256 - 1

# A binary-module condition (module 1, arity 0, condition index 0) and a neg-risk one
# (module 2, arity 5, condition index 3), built from a hash as the layout describes.
BASE = int.from_bytes(keccak(b"polyclob router vector"), "big") >> 128
BINARY = (1 << 248) | (BASE << 120)
NEG_RISK = (2 << 248) | (BASE << 120) | (5 << 104) | (3 << 8)


def condition_hex(position):
    """The bytes31 condition as 0x + 62 hex digits (outcome byte dropped)."""
    return "0x" + position.to_bytes(32, "big")[:31].hex()


def call(name, to, signature, types, values, args):
    selector = keccak(text=signature)[:4]
    return {
        "name": name,
        "signature": signature,
        "args": args,
        "to": to,
        "data": "0x" + (selector + encode(types, values)).hex(),
    }


def calls():
    out = []
    for label, pos in (("binary", BINARY), ("neg_risk", NEG_RISK)):
        cond = condition_hex(pos)
        c31 = bytes.fromhex(cond[2:])
        out += [
            call(f"router_split_{label}", ROUTER, "split(bytes31,uint256)", ["bytes31", "uint256"],
                 [c31, 100_000_000], {"condition": cond, "amount": "100000000"}),
            call(f"router_merge_{label}", ROUTER, "merge(bytes31,uint256)", ["bytes31", "uint256"],
                 [c31, 25_500_000], {"condition": cond, "amount": "25500000"}),
            call(f"router_redeem_{label}_yes", ROUTER, "redeem(bytes31,uint256,uint256)",
                 ["bytes31", "uint256", "uint256"], [c31, 0, 7_000_000],
                 {"condition": cond, "outcome": 0, "amount": "7000000"}),
            call(f"router_redeem_{label}_no", ROUTER, "redeem(bytes31,uint256,uint256)",
                 ["bytes31", "uint256", "uint256"], [c31, 1, MAX],
                 {"condition": cond, "outcome": 1, "amount": str(MAX)}),
            call(f"pm_get_payout_{label}", POSITION_MANAGER, "getPayout(uint256,uint256)",
                 ["uint256", "uint256"], [pos | 1, 1_000_000],
                 {"position": str(pos | 1), "amount": "1000000", "condition": cond, "outcome": 1}),
            call(f"pm_balance_of_batch_{label}", POSITION_MANAGER,
                 "balanceOfBatch(address[],uint256[])", ["address[]", "uint256[]"],
                 [[OWNER, OWNER], [pos, pos | 1]],
                 {"owner": OWNER, "condition": cond, "ids": [str(pos), str(pos | 1)]}),
        ]
    # The V2 approvals (docs: pUSD approve ExchangeV3 to buy and the Router to split;
    # PositionManager setApprovalForAll for ExchangeV3 to sell and the Router to merge/redeem).
    for spender in (EXCHANGE_V3, ROUTER):
        out.append(call(f"pusd_approve_{'router' if spender == ROUTER else 'exchange_v3'}", PUSD,
                        "approve(address,uint256)", ["address", "uint256"], [spender, MAX],
                        {"token": PUSD, "spender": spender, "amount": str(MAX)}))
        out.append(call(f"pm_set_approval_{'router' if spender == ROUTER else 'exchange_v3'}",
                        POSITION_MANAGER, "setApprovalForAll(address,bool)", ["address", "bool"],
                        [spender, True], {"tokens": POSITION_MANAGER, "operator": spender, "approved": True}))
    # A proxy wallet sends a Router redeem through the proxy factory.
    inner = bytes.fromhex(out[2]["data"][2:])
    out.append(call("proxy_router_redeem", PROXY_FACTORY, "proxy((uint8,address,uint256,bytes)[])",
                    ["(uint8,address,uint256,bytes)[]"], [[(1, ROUTER, 0, inner)]],
                    {"calls": [{"to": ROUTER, "value": "0", "data": "0x" + inner.hex()}]}))
    return out


def main():
    doc = {
        "generated_by": f"scripts/make_router_vectors.py with eth-abi {metadata.version('eth-abi')}",
        "contracts": {"pusd": PUSD, "exchange_v3": EXCHANGE_V3, "position_manager": POSITION_MANAGER,
                      "router": ROUTER},
        "calls": calls(),
    }
    print(json.dumps(doc, indent=1))


if __name__ == "__main__":
    main()
