#!/usr/bin/env python3
"""Known answers for polyclob's deposit-wallet WALLET batches (relayer `POST /submit`), made
with Polymarket's official Python client `polymarket-client` 0.14.0 (PyPI).

Environment used for the committed tests/data/wallet_batch_vectors.json (Python 3.11):

    python3 -m venv .venv-wb && . .venv-wb/bin/activate
    pip install polymarket-client==0.14.0
    python scripts/make_wallet_batch_vectors.py > tests/data/wallet_batch_vectors.json

The SDK's own code builds every vector: the calls (`erc20_approval_call`,
`erc1155_set_approval_for_all_call`, `ctf_split_position_call`, `ctf_merge_positions_call`,
`ctf_redeem_positions_call`, `router_split_call`, `router_merge_call`, `router_redeem_call`),
the EIP-712 `Batch` typed data and the owner's signature (`build_deposit_wallet_typed_data`,
`sign_deposit_wallet_batch`, `wrap_deposit_wallet_signature` with signer type OWNER), the
relayer envelope (`build_deposit_wallet_payload`), and the request itself: `submit_gasless_sync`
through the SDK's `SyncTransport` with its builder-key header resolver, captured by an httpx
mock transport, so the body bytes and the `POLY_BUILDER_*` headers are what the SDK sends.
`wallet_create` is the SDK's own `submit_deposit_wallet_create_sync` (a context
carrying only what it reads), sent once with the builder key and once with a Relayer API key
(`RELAYER_API_KEY` / `RELAYER_API_KEY_ADDRESS`, captured the same way).
The SDK has no neg-risk conversion call: that vector's calldata is
`convertPositions(bytes32,uint256,uint256)` encoded here with eth_abi (the batch around it is
the SDK's). Pinned: the relayer nonce, the deadline, the builder clock (`time.time`) and the
builder key.
"""

import json
import sys
from types import SimpleNamespace
from unittest import mock

import httpx
from eth_abi.abi import encode as abi_encode
from eth_account import Account
from eth_account.messages import encode_typed_data
from eth_utils import keccak, to_checksum_address

import polymarket
from polymarket._internal.actions.relayer import auth as relayer_auth
from polymarket._internal.actions.relayer.calls import (
    MAX_UINT256,
    TransactionCall,
    ctf_merge_positions_call,
    ctf_redeem_positions_call,
    ctf_split_position_call,
    erc20_approval_call,
    erc1155_set_approval_for_all_call,
    router_merge_call,
    router_redeem_call,
    router_split_call,
)
from polymarket._internal.actions.relayer.gasless import (
    build_deposit_wallet_payload,
    submit_deposit_wallet_create_sync,
)
from polymarket._internal.actions.relayer.signing.deposit_wallet import (
    build_deposit_wallet_typed_data,
    sign_deposit_wallet_batch,
)
from polymarket._internal.actions.relayer.submit import submit_gasless_sync
from polymarket._internal.environment import PRODUCTION_CONFIG
from polymarket._internal.wallet import (
    derive_beacon_deposit_wallet_address,
    derive_uups_deposit_wallet_address,
    wrap_deposit_wallet_signature,
)
from polymarket.auth import BuilderApiKey, RelayerApiKey
from polymarket.clients._transport import SyncTransport
from polymarket.types import EvmAddress

# Well-known development keys (never funded on Polygon).
OWNERS = [
    "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80",
    "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d",
]
BUILDER = BuilderApiKey(
    key="019a0e61-5b4c-7a2e-9d1f-4c3b2a1f0e9d",
    secret="AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8-_w==",
    passphrase="6c0f1e2d3c4b5a69788796a5b4c3d2e1f0",
)
BUILDER_TIME = 1_767_225_600
RELAYER_KEY = RelayerApiKey(
    key="01967c03-b8c8-7000-8f68-8b8eaec6fd3d",
    address="0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266",
)

PUSD = EvmAddress("0xC011a7E12a19f7B1f670d46F03B03f3342E82DFB")
CTF = EvmAddress("0x4D97DCd97eC945f40cF65F87097ACe5EA0476045")
CTF_ADAPTER = EvmAddress("0xAdA100Db00Ca00073811820692005400218FcE1f")
NEG_RISK_ADAPTER_COLLATERAL = EvmAddress("0xadA2005600Dec949baf300f4C6120000bDB6eAab")
NEG_RISK_ADAPTER = EvmAddress("0xd91E80cF2E7be2e162c6513ceD06f1dD0dA35296")
POSITION_MANAGER = EvmAddress("0x006F54F7f9A22e0000CC2AB60031000000ae9fEF")
ROUTER = EvmAddress("0x12121212006e4CD160D18e3f00711DA5c3372600")
FACTORY = PRODUCTION_CONFIG.wallet_derivation.deposit_wallet_factory

CTF_CONDITION = "0x" + "ab" * 32
V2_CONDITION = "0x" + "01" + "cd" * 30  # bytes31
NEG_RISK_MARKET = "0x" + "5e" * 31 + "00"


def convert_positions_call(market_id, index_set, amount):
    data = keccak(b"convertPositions(bytes32,uint256,uint256)")[:4] + abi_encode(
        ["bytes32", "uint256", "uint256"], [bytes.fromhex(market_id[2:]), index_set, amount]
    )
    return TransactionCall(to=NEG_RISK_ADAPTER, data="0x" + data.hex())


CASES = [
    # (name, owner, calls, nonce, deadline, chain, metadata)
    (
        "ctf_approvals",
        0,
        [
            erc20_approval_call(token_address=PUSD, spender=CTF_ADAPTER, amount=MAX_UINT256),
            erc1155_set_approval_for_all_call(token_address=CTF, operator=CTF_ADAPTER),
        ],
        "0",
        "1767226200",
        137,
        "",
    ),
    (
        "ctf_split",
        0,
        [
            ctf_split_position_call(
                target=CTF_ADAPTER, collateral=PUSD, condition_id=CTF_CONDITION, amount=25_000_000
            )
        ],
        "1",
        "1767226201",
        137,
        "Split 25 pUSD",
    ),
    (
        "neg_risk_merge",
        0,
        [
            ctf_merge_positions_call(
                target=NEG_RISK_ADAPTER_COLLATERAL,
                collateral=PUSD,
                condition_id=CTF_CONDITION,
                amount=1_500_000,
            )
        ],
        "2",
        "1767226202",
        137,
        "",
    ),
    (
        "ctf_redeem",
        0,
        [ctf_redeem_positions_call(ctf=CTF_ADAPTER, collateral=PUSD, condition_id=CTF_CONDITION)],
        "3",
        "1767226203",
        137,
        "Redeem",
    ),
    (
        "v2_approvals",
        1,
        [
            erc20_approval_call(token_address=PUSD, spender=ROUTER, amount=MAX_UINT256),
            erc1155_set_approval_for_all_call(token_address=POSITION_MANAGER, operator=ROUTER),
        ],
        "0",
        "1800000000",
        137,
        "",
    ),
    (
        "v2_split_merge",
        1,
        [
            router_split_call(router=ROUTER, condition_id=V2_CONDITION, amount=10_000_000),
            router_merge_call(router=ROUTER, condition_id=V2_CONDITION, amount=4_000_000),
        ],
        "17",
        "1800000017",
        137,
        "Split then merge",
    ),
    (
        "v2_redeem",
        1,
        [
            router_redeem_call(
                router=ROUTER, condition_id=V2_CONDITION, outcome_index=0, amount=6_000_000
            ),
            router_redeem_call(
                router=ROUTER, condition_id=V2_CONDITION, outcome_index=1, amount=1
            ),
        ],
        "123456789012345678901234567890",
        "1800000018",
        80002,
        "",
    ),
    (
        "neg_risk_convert",
        0,
        [convert_positions_call(NEG_RISK_MARKET, 0b101, 2_000_000)],
        "4",
        "1767226204",
        137,
        "",
    ),
]


def digest_of(typed):
    m = encode_typed_data(full_message=typed)
    return "0x" + keccak(b"\x19" + m.version + m.header + m.body).hex()


def capture(payload=None, api_key=BUILDER, send=None):
    """Runs `send(transport)` (default: submit `payload`) against a mock relayer and returns
    the request it made: method, path, body, and the auth headers."""
    seen = {}

    def handler(request):
        seen["method"] = request.method
        seen["path"] = request.url.path
        seen["body"] = request.content.decode()
        seen["headers"] = {
            k: v for k, v in request.headers.items() if k.startswith(("poly_", "relayer_"))
        }
        return httpx.Response(200, json={"transactionID": "t-1", "state": "STATE_NEW"})

    client = httpx.Client(base_url="https://relayer.invalid", transport=httpx.MockTransport(handler))
    transport = SyncTransport(
        base_url="https://relayer.invalid",
        client=client,
        header_resolver=relayer_auth.make_relayer_header_resolver_sync(api_key),
    )
    if send is None:

        def send(t):
            submit_gasless_sync(t, payload=payload)

    with mock.patch.object(relayer_auth.time, "time", return_value=BUILDER_TIME):
        send(transport)
    return seen


def wallet_create(api_key, metadata):
    owner = Account.from_key(OWNERS[0])

    def send(transport):
        ctx = SimpleNamespace(
            api_key=api_key,
            signer=owner,
            environment_config=PRODUCTION_CONFIG,
            relayer=transport,
        )
        submit_deposit_wallet_create_sync(ctx, metadata=metadata)

    seen = capture(api_key=api_key, send=send)
    return {
        "owner": owner.address,
        "metadata": metadata,
        "method": seen["method"],
        "path": seen["path"],
        "body": seen["body"],
        "headers": seen["headers"],
    }


def main():
    out = []
    for name, owner_i, calls, nonce, deadline, chain, metadata in CASES:
        owner = Account.from_key(OWNERS[owner_i])
        wallet = EvmAddress(
            derive_uups_deposit_wallet_address(owner.address, PRODUCTION_CONFIG.wallet_derivation)
        )
        typed = build_deposit_wallet_typed_data(
            wallet=wallet, calls=calls, nonce=nonce, deadline=deadline, chain_id=chain
        )
        signature = sign_deposit_wallet_batch(
            owner, wallet=wallet, calls=calls, nonce=nonce, deadline=deadline, chain_id=chain
        )
        signature = wrap_deposit_wallet_signature(
            signer=owner.address, signer_type="OWNER", signature=signature
        )
        payload = build_deposit_wallet_payload(
            signer_address=owner.address,
            deposit_wallet_factory=FACTORY,
            wallet=wallet,
            calls=calls,
            nonce=nonce,
            deadline=deadline,
            signature=signature,
            metadata=metadata,
        )
        seen = capture(payload)
        out.append(
            {
                "name": name,
                "owner_key": OWNERS[owner_i],
                "owner": owner.address,
                "wallet": wallet,
                "wallet_beacon": derive_beacon_deposit_wallet_address(
                    owner.address, PRODUCTION_CONFIG.wallet_derivation
                ),
                "calls": [
                    {"to": to_checksum_address(c.to), "value": str(c.value), "data": c.data}
                    for c in calls
                ],
                "nonce": nonce,
                "deadline": deadline,
                "chain_id": chain,
                "metadata": metadata,
                "digest": digest_of(typed),
                "signature": signature,
                "method": seen["method"],
                "path": seen["path"],
                "body": seen["body"],
                "builder_headers": seen["headers"],
            }
        )
    json.dump(
        {
            "generator": f"polymarket-client {polymarket.__version__}",
            "builder": {
                "key": BUILDER.key,
                "secret": BUILDER.secret,
                "passphrase": BUILDER.passphrase,
                "time": BUILDER_TIME,
            },
            "factory": FACTORY,
            "implementation": PRODUCTION_CONFIG.wallet_derivation.deposit_wallet_implementation,
            "beacon": PRODUCTION_CONFIG.wallet_derivation.deposit_wallet_beacon,
            "vectors": out,
            "relayer_key": {"key": RELAYER_KEY.key, "address": RELAYER_KEY.address},
            "wallet_create": [
                wallet_create(BUILDER, "Deploy Deposit Wallet"),
                wallet_create(RELAYER_KEY, ""),
            ],
        },
        sys.stdout,
        indent=1,
    )
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
