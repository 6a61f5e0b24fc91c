#!/usr/bin/env python3
"""Known answers for polyclob's session-key order signatures, made with Polymarket's official
Python client `polymarket-client` 0.14.0 (PyPI).

A deposit wallet's CLOB order signed by an authorized session key carries the ERC-7739
POLY_1271 signature the session key makes (as the owner's would be made), wrapped in the
session signer envelope: `abi.encode(bytes32 signerId, bytes32 kind = 0, bytes inner)` and
the 32-byte magic `0x6492…6492` (docs.polymarket.com/trading/session-keys, "Add the Session
Signer Envelope").

Environment used for the committed tests/data/session_order_vectors.json (Python 3.11):

    python3 -m venv .venv-sk && . .venv-sk/bin/activate
    pip install polymarket-client==0.14.0
    python scripts/make_session_order_vectors.py > tests/data/session_order_vectors.json

The SDK's own code builds every signature: the order's typed data (`build_order_typed_data`,
signed with eth-account's `sign_typed_data(full_message=…)` as the SDK's `_sign_order` does),
the POLY_1271 trailer (`build_order_signature`) and the envelope
(`wrap_deposit_wallet_session_signer_signature`). Only the order's values are chosen here.
"""

import json

from eth_account import Account

from polymarket._internal.actions.orders.typed_data import (
    build_order_signature,
    build_order_typed_data,
)
from polymarket._internal.actions.orders.types import UnsignedOrder
from polymarket._internal.wallet import wrap_deposit_wallet_session_signer_signature

# Hardhat/Anvil development keys #1 and #2 (never funded on Polygon): the session keys.
SESSION_KEYS = [
    "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d",
    "0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a",
]
ZERO32 = "0x" + "00" * 32
CASES = [
    # (session key, wallet, exchange, protocol version, chain, side, salt, token, maker, taker, ts ms, builder)
    (0, "0x1111111111111111111111111111111111111111", "0xE111180000d2663C0091e4f400237545B87B996B",
     "2", 137, "BUY", 123456789,
     "71321045679252212594626385532706912750332728571942532289631379312455583992563",
     100_000_000, 50_000_000, 1713398400000, ZERO32),
    (0, "0x1111111111111111111111111111111111111111", "0xe2222d279d744050d28e00520010520000310F59",
     "2", 137, "SELL", 42, "11412207501401189522962318893542063389931624447683813393213937931290284141694",
     5_000_000, 2_300_000, 1790000000123, "0x" + "b1" * 32),
    (1, "0xBc0fF067b7740Eff76C1ca93c875Ba6B890d6B50", "0xe3333700cA9d93003F00f0F71f8515005F6c00Aa",
     "3", 137, "BUY", 987654321987,
     "536449379409348310001350430465365167363800379127347331468059538752503021568",
     7_500_000, 10_000_000, 1790000000000, ZERO32),
]


def main() -> None:
    out = []
    for key, wallet, exchange, version, chain, side, salt, token, maker_amt, taker_amt, ts, builder in CASES:
        account = Account.from_key(SESSION_KEYS[key])
        order = UnsignedOrder(
            chain_id=chain,
            builder=builder,
            exchange_address=exchange,
            expiration=0,
            maker=wallet,
            maker_amount=maker_amt,
            metadata=ZERO32,
            order_type="GTC",
            salt=salt,
            side=side,
            signature_type=3,
            signer=wallet,
            taker_amount=taker_amt,
            timestamp=ts,
            token_id=token,
            protocol_version=version,
        )
        typed = build_order_typed_data(order)
        signed = account.sign_typed_data(full_message=typed)
        raw = signed.signature.hex()
        inner = build_order_signature(order, raw if raw.startswith("0x") else "0x" + raw)
        wrapped = wrap_deposit_wallet_session_signer_signature(account.address, inner)
        out.append(
            {
                "session_key": SESSION_KEYS[key],
                "session_signer": account.address,
                "wallet": wallet,
                "exchange": exchange,
                "exchange_version": version,
                "chain_id": chain,
                "side": side,
                "salt": str(salt),
                "token_id": token,
                "maker_amount": str(maker_amt),
                "taker_amount": str(taker_amt),
                "timestamp_ms": str(ts),
                "builder": builder,
                "poly_1271_signature": inner,
                "session_signature": wrapped,
            }
        )
    print(json.dumps({"source": "polymarket-client 0.14.0 (PyPI)", "vectors": out}, indent=1))


if __name__ == "__main__":
    main()
