#!/usr/bin/env python3
"""Known answers for polyclob's session-signer (session key) batches, made with Polymarket's
official Python client `polymarket-client` 0.14.0 (PyPI), the first official client with
session keys.

Environment used for the committed tests/data/session_signer_vectors.json (Python 3.11):

    python3 -m venv .venv-sk && . .venv-sk/bin/activate
    pip install polymarket-client==0.14.0
    python scripts/make_session_signer_vectors.py > tests/data/session_signer_vectors.json

The SDK's own code builds every vector: the deposit-wallet call
(`authorize_session_signer_call` / `revoke_session_signer_call`), the EIP-712 `Batch`
typed data and its owner signature (`sign_deposit_wallet_batch`), and the relayer payload
(`_build_authorization_payload` / `_build_revocation_payload`). Only what the SDK reads from
the network or the clock is pinned: the relayer nonce, the deadline and the expiry. The body
bytes are what httpx sends for that payload (`json=`), as the SDK's transport does.
"""

import json
import sys
from types import SimpleNamespace

import httpx
from eth_account import Account
from eth_account.messages import encode_typed_data
from eth_utils import keccak, to_checksum_address

import polymarket
from polymarket._internal.actions import session_keys as sk
from polymarket._internal.actions.relayer.calls import (
    authorize_session_signer_call,
    revoke_session_signer_call,
)
from polymarket._internal.actions.relayer.gasless import SignedDepositWalletBatch
from polymarket._internal.actions.relayer.signing.deposit_wallet import (
    build_deposit_wallet_typed_data,
    sign_deposit_wallet_batch,
)
from polymarket.session_keys import SessionKeyKnownScope
from polymarket.types import EvmAddress

# Well-known development keys (never funded on Polygon).
OWNERS = [
    "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80",
    "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d",
]
WALLETS = [
    "0x1111111111111111111111111111111111111111",
    "0x00000000000000000000000000000000DeaDBeef",
]
SESSIONS = [
    "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
    "0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc",
]
CASES = [
    # (owner, wallet, session, action, scopes, valid_until, nonce, deadline, chain)
    (0, 0, 0, "authorize", ["ALL"], 1_900_000_000, "0", "1800000600", 137),
    (0, 0, 1, "authorize", ["CLOB", "COMBOSRFQ"], 1_790_000_123, "7", "1789999999", 137),
    (1, 1, 0, "authorize", ["CLOB", "NEWER_SCOPE"], 2_000_000_000, "123456789", "1800000000", 80002),
    (0, 0, 0, "revoke", None, None, "8", "1800000601", 137),
    (1, 1, 1, "revoke", None, None, "0", "1700000000", 80002),
]


def digest_of(typed):
    m = encode_typed_data(full_message=typed)
    return "0x" + keccak(b"\x19" + m.version + m.header + m.body).hex()


def main():
    out = []
    for owner_i, wallet_i, session_i, action, scopes, valid_until, nonce, deadline, chain in CASES:
        owner = Account.from_key(OWNERS[owner_i])
        wallet = EvmAddress(to_checksum_address(WALLETS[wallet_i]))
        session = EvmAddress(to_checksum_address(SESSIONS[session_i]))
        if action == "authorize":
            call = authorize_session_signer_call(
                wallet_address=wallet, session_signer=session, valid_until=valid_until
            )
        else:
            call = revoke_session_signer_call(wallet_address=wallet, session_signer=session)
        typed = build_deposit_wallet_typed_data(
            wallet=wallet, calls=[call], nonce=nonce, deadline=deadline, chain_id=chain
        )
        signature = sign_deposit_wallet_batch(
            owner, wallet=wallet, calls=[call], nonce=nonce, deadline=deadline, chain_id=chain
        )
        batch = SignedDepositWalletBatch(nonce=nonce, deadline=deadline, signature=signature)
        ctx = SimpleNamespace(wallet=wallet)
        if action == "authorize":
            request = sk._ParsedAuthorizeSessionKeyRequest(
                address=session,
                scopes=sk._parse_scopes(scopes),
                valid_until=None,
                valid_until_epoch=valid_until,
                idempotency_key="k",
            )
            payload = sk._build_authorization_payload(ctx, request=request, batch=batch)
            path = sk._AUTHORIZATIONS_PATH
        else:
            request = sk._ParsedRevokeSessionKeyRequest(address=session, idempotency_key="k")
            payload = sk._build_revocation_payload(ctx, request=request, batch=batch)
            path = sk._REVOCATIONS_PATH
        body = httpx.Request("POST", "https://relayer.invalid" + path, json=payload).content
        out.append(
            {
                "owner_key": OWNERS[owner_i],
                "owner": owner.address,
                "wallet": WALLETS[wallet_i],
                "session_signer": SESSIONS[session_i],
                "action": action,
                "scopes": scopes,
                "valid_until": valid_until,
                "nonce": nonce,
                "deadline": deadline,
                "chain_id": chain,
                "call_data": call.data,
                "digest": digest_of(typed),
                "signature": signature,
                "path": path,
                "body": body.decode(),
            }
        )
    json.dump(
        {
            "generator": f"polymarket-client {polymarket.__version__}",
            "vectors": out,
        },
        sys.stdout,
        indent=1,
    )
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
