#!/usr/bin/env python3
"""Known answers for polyclob's `onchain` module, from an independent encoder.

Calldata comes from eth-abi, EIP-1559 transactions and Safe EIP-712 hashes from eth-account;
tests/it/onchain/vectors.rs rebuilds every entry with polyclob and compares bytes. The keys are
public test keys (Hardhat/Anvil accounts #0 and #1): never fund them.

    pip install eth-abi eth-account
    python3 scripts/make_onchain_vectors.py > tests/data/onchain_vectors.json
"""
import json
from importlib import metadata

from eth_abi import encode
from eth_account import Account
from eth_account.messages import encode_typed_data
from eth_utils import keccak, to_checksum_address

KEYS = [
    "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80",
    "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d",
]
PUSD = "0xC011a7E12a19f7B1f670d46F03B03f3342E82DFB"
CTF = "0x4D97DCd97eC945f40cF65F87097ACe5EA0476045"
EXCHANGE = "0xE111180000d2663C0091e4f400237545B87B996B"
NEG_RISK_EXCHANGE = "0xe2222d279d744050d28e00520010520000310F59"
NEG_RISK_ADAPTER = "0xd91E80cF2E7be2e162c6513ceD06f1dD0dA35296"
CTF_ADAPTER = "0xAdA100Db00Ca00073811820692005400218FcE1f"
PROXY_FACTORY = "0xaB45c5A4B0c941a2F231C04C3f49182e1A254052"
CONDITION = "0x" + keccak(b"polyclob onchain vector condition").hex()
MARKET = "0x" + keccak(b"polyclob onchain vector neg-risk market").hex()
OWNER = Account.from_key(KEYS[0]).address
MAX = 2**256 - 1


def b32(h):
    return bytes.fromhex(h[2:])


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
    part = [1, 2]
    out = [
        call("erc20_approve", PUSD, "approve(address,uint256)", ["address", "uint256"],
             [EXCHANGE, MAX], {"token": PUSD, "spender": EXCHANGE, "amount": str(MAX)}),
        call("erc20_approve_small", PUSD, "approve(address,uint256)", ["address", "uint256"],
             [CTF_ADAPTER, 1_500_000], {"token": PUSD, "spender": CTF_ADAPTER, "amount": "1500000"}),
        call("erc20_balance_of", PUSD, "balanceOf(address)", ["address"], [OWNER],
             {"token": PUSD, "owner": OWNER}),
        call("erc20_allowance", PUSD, "allowance(address,address)", ["address", "address"],
             [OWNER, NEG_RISK_EXCHANGE], {"token": PUSD, "owner": OWNER, "spender": NEG_RISK_EXCHANGE}),
        call("erc1155_set_approval_for_all", CTF, "setApprovalForAll(address,bool)",
             ["address", "bool"], [EXCHANGE, True], {"tokens": CTF, "operator": EXCHANGE, "approved": True}),
        call("erc1155_revoke", CTF, "setApprovalForAll(address,bool)",
             ["address", "bool"], [NEG_RISK_ADAPTER, False],
             {"tokens": CTF, "operator": NEG_RISK_ADAPTER, "approved": False}),
        call("erc1155_is_approved_for_all", CTF, "isApprovedForAll(address,address)",
             ["address", "address"], [OWNER, EXCHANGE], {"tokens": CTF, "owner": OWNER, "operator": EXCHANGE}),
        call("erc1155_balance_of", CTF, "balanceOf(address,uint256)", ["address", "uint256"],
             [OWNER, 2**255 + 12345], {"tokens": CTF, "owner": OWNER, "id": str(2**255 + 12345)}),
        call("erc1155_balance_of_batch", CTF, "balanceOfBatch(address[],uint256[])",
             ["address[]", "uint256[]"], [[OWNER, OWNER], [7, 2**200]],
             {"tokens": CTF, "owners": [OWNER, OWNER], "ids": ["7", str(2**200)]}),
        call("ctf_split", CTF_ADAPTER, "splitPosition(address,bytes32,bytes32,uint256[],uint256)",
             ["address", "bytes32", "bytes32", "uint256[]", "uint256"],
             [PUSD, b"\0" * 32, b32(CONDITION), part, 100_000_000],
             {"target": CTF_ADAPTER, "collateral": PUSD, "condition": CONDITION, "partition": ["1", "2"],
              "amount": "100000000"}),
        call("ctf_merge", CTF_ADAPTER, "mergePositions(address,bytes32,bytes32,uint256[],uint256)",
             ["address", "bytes32", "bytes32", "uint256[]", "uint256"],
             [PUSD, b"\0" * 32, b32(CONDITION), part, 25_500_000],
             {"target": CTF_ADAPTER, "collateral": PUSD, "condition": CONDITION, "partition": ["1", "2"],
              "amount": "25500000"}),
        call("ctf_redeem", CTF_ADAPTER, "redeemPositions(address,bytes32,bytes32,uint256[])",
             ["address", "bytes32", "bytes32", "uint256[]"],
             [PUSD, b"\0" * 32, b32(CONDITION), part],
             {"target": CTF_ADAPTER, "collateral": PUSD, "condition": CONDITION, "partition": ["1", "2"]}),
        call("ctf_split_three_way", CTF, "splitPosition(address,bytes32,bytes32,uint256[],uint256)",
             ["address", "bytes32", "bytes32", "uint256[]", "uint256"],
             [PUSD, b"\0" * 32, b32(CONDITION), [1, 2, 4], 1],
             {"target": CTF, "collateral": PUSD, "condition": CONDITION, "partition": ["1", "2", "4"],
              "amount": "1"}),
        call("ctf_payout_numerators", CTF, "payoutNumerators(bytes32,uint256)", ["bytes32", "uint256"],
             [b32(CONDITION), 1], {"ctf": CTF, "condition": CONDITION, "index": 1}),
        call("ctf_payout_denominator", CTF, "payoutDenominator(bytes32)", ["bytes32"],
             [b32(CONDITION)], {"ctf": CTF, "condition": CONDITION}),
        call("ctf_outcome_slot_count", CTF, "getOutcomeSlotCount(bytes32)", ["bytes32"],
             [b32(CONDITION)], {"ctf": CTF, "condition": CONDITION}),
        call("neg_risk_convert", NEG_RISK_ADAPTER, "convertPositions(bytes32,uint256,uint256)",
             ["bytes32", "uint256", "uint256"], [b32(MARKET), 0b1011, 5_000_000],
             {"adapter": NEG_RISK_ADAPTER, "market": MARKET, "index_set": "11", "amount": "5000000"}),
        call("neg_risk_redeem", NEG_RISK_ADAPTER, "redeemPositions(bytes32,uint256[])",
             ["bytes32", "uint256[]"], [b32(CONDITION), [3_000_000, 0]],
             {"adapter": NEG_RISK_ADAPTER, "condition": CONDITION, "amounts": ["3000000", "0"]}),
    ]
    inner = [
        (CTF, 0, bytes.fromhex(out[4]["data"][2:])),
        (PUSD, 7, bytes.fromhex(out[0]["data"][2:])),
    ]
    out.append(call("proxy", PROXY_FACTORY, "proxy((uint8,address,uint256,bytes)[])",
                    ["(uint8,address,uint256,bytes)[]"], [[(1, t, v, d) for (t, v, d) in inner]],
                    {"calls": [{"to": t, "value": str(v), "data": "0x" + d.hex()} for (t, v, d) in inner]}))
    return out


def safe_vectors():
    out = []
    acct = Account.from_key(KEYS[0])
    safe = to_checksum_address("0xd93B25cb943D14d0d34FBaF01Fc93a0f8b5F6E47")
    inner = bytes.fromhex(calls()[9]["data"][2:])  # the split
    for chain_id, nonce, to, value, data in [(137, 0, CTF_ADAPTER, 0, inner), (80002, 41, PUSD, 3, b"")]:
        typed = {
            "types": {
                "EIP712Domain": [{"name": "chainId", "type": "uint256"},
                                 {"name": "verifyingContract", "type": "address"}],
                "SafeTx": [{"name": n, "type": t} for n, t in [
                    ("to", "address"), ("value", "uint256"), ("data", "bytes"), ("operation", "uint8"),
                    ("safeTxGas", "uint256"), ("baseGas", "uint256"), ("gasPrice", "uint256"),
                    ("gasToken", "address"), ("refundReceiver", "address"), ("nonce", "uint256")]],
            },
            "primaryType": "SafeTx",
            "domain": {"chainId": chain_id, "verifyingContract": safe},
            "message": {"to": to, "value": value, "data": data, "operation": 0, "safeTxGas": 0,
                        "baseGas": 0, "gasPrice": 0,
                        "gasToken": "0x0000000000000000000000000000000000000000",
                        "refundReceiver": "0x0000000000000000000000000000000000000000", "nonce": nonce},
        }
        signed = acct.sign_message(encode_typed_data(full_message=typed))
        sig = signed.signature
        zero = "0x0000000000000000000000000000000000000000"
        exec_data = keccak(text="execTransaction(address,uint256,bytes,uint8,uint256,uint256,uint256,address,address,bytes)")[:4] + encode(
            ["address", "uint256", "bytes", "uint8", "uint256", "uint256", "uint256", "address", "address", "bytes"],
            [to, value, data, 0, 0, 0, 0, zero, zero, sig])
        out.append({
            "key": KEYS[0], "chain_id": chain_id, "safe": safe, "nonce": nonce,
            "to": to, "value": str(value), "data": "0x" + data.hex(),
            "safe_tx_hash": "0x" + signed.message_hash.hex(),
            "signature": "0x" + sig.hex(),
            "exec_data": "0x" + exec_data.hex(),
        })
    return out


def transactions():
    out = []
    cs = calls()
    cases = [
        (KEYS[0], 137, 0, 30_000_000_000, 100_000_000_000, 60_000, cs[0]["to"], 0, cs[0]["data"]),
        (KEYS[0], 137, 1, 25_000_000_000, 25_000_000_000, 250_000, cs[9]["to"], 0, cs[9]["data"]),
        (KEYS[1], 80002, 1234, 1, 2, 21_000, OWNER, 10**18, "0x"),
        (KEYS[1], 137, 2**40, 2**100, 2**101, 2**32, PROXY_FACTORY, 5, cs[-1]["data"]),
    ]
    for key, chain_id, nonce, tip, max_fee, gas, to, value, data in cases:
        tx = {"type": 2, "chainId": chain_id, "nonce": nonce, "maxPriorityFeePerGas": tip,
              "maxFeePerGas": max_fee, "gas": gas, "to": to, "value": value, "data": data,
              "accessList": []}
        signed = Account.sign_transaction(tx, key)
        out.append({
            "key": key, "from": Account.from_key(key).address, "chain_id": chain_id, "nonce": nonce,
            "max_priority_fee_per_gas": str(tip), "max_fee_per_gas": str(max_fee), "gas": gas,
            "to": to, "value": str(value), "data": data,
            "raw": "0x" + signed.raw_transaction.hex(), "hash": "0x" + signed.hash.hex(),
            "r": hex(signed.r), "s": hex(signed.s), "y_parity": signed.v,
        })
    return out


def main():
    doc = {
        "generator": "scripts/make_onchain_vectors.py",
        "versions": {p: metadata.version(p) for p in ("eth-abi", "eth-account")},
        "calls": calls(),
        "safe": safe_vectors(),
        "transactions": transactions(),
    }
    print(json.dumps(doc, indent=1))


if __name__ == "__main__":
    main()
