//! The prepared order path makes zero heap allocations: with a prepared signer and market
//! context, build → sign → serialise → HMAC into reused buffers (STYLE.md rule 12).

use crate::support::counting_alloc;

use alloy_primitives::B256;
use polyclob::order::{
    LimitOrder, MarketContext, MarketOrder, OrderSigner, write_batch_body, write_cancel_body,
};
use polyclob::sign::hmac::HmacKey;
use polyclob::sign::wallet::Wallet;
use polyclob::sign::{Signer, clob_auth::L1Headers};
use polyclob::types::{Chain, ExchangeVersion, OrderType, Side, TickSize};

const KEY: &str = "ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
const TOKEN: &str = "71321045679252212594626385532706912750332728571942532289631379312455583992563";
const OWNER: &str = "f4f247b7-4ac7-ff29-a152-04fda0a8755a";
const SECRET: &str = "-_-_-_-_-_-_-_-_-_-_-_-_-_-_-_-_-_-_-_-_AQI=";

fn prepared(wallet: fn(&Signer) -> Wallet) -> (OrderSigner, HmacKey) {
    let signer = Signer::from_hex(KEY).unwrap();
    let w = wallet(&signer);
    (
        OrderSigner::new(signer, Chain::Polygon, w).unwrap(),
        HmacKey::from_base64url(SECRET).unwrap(),
    )
}

#[test]
fn limit_and_market_orders_end_to_end_allocate_nothing() {
    let wallets: [fn(&Signer) -> Wallet; 3] = [
        |_| Wallet::Eoa,
        |s| Wallet::derived_safe(s.address(), Chain::Polygon),
        |_| {
            Wallet::DepositWallet(
                "0x1111111111111111111111111111111111111111"
                    .parse()
                    .unwrap(),
            )
        },
    ];
    for wallet in wallets {
        let (orders, hmac) = prepared(wallet);
        let mut body = Vec::with_capacity(2048);
        let mut total = 0;
        for version in [ExchangeVersion::V2, ExchangeVersion::V3] {
            for (i, tick) in TickSize::ALL.into_iter().enumerate() {
                let market = MarketContext::new(
                    Chain::Polygon,
                    version,
                    TOKEN.parse().unwrap(),
                    tick,
                    i % 2 == 0,
                )
                .unwrap();
                let price = tick.as_price();
                let limit = LimitOrder::new(Side::Buy, price, "21.04".parse().unwrap())
                    .order_type(OrderType::Gtd)
                    .expiration(4_000_000_000)
                    .post_only(true);
                let market_req = MarketOrder::new(
                    Side::Sell,
                    polyclob::order::MarketAmount::Shares("55.55".parse().unwrap()),
                    price,
                )
                .order_type(OrderType::Fak);
                // Warm-up: the ECDSA context and the thread's first clock reads.
                let _ = orders.limit_order(&market, &limit).unwrap();
                let ((), allocs) = counting_alloc::count(|| {
                    for _ in 0..20 {
                        body.clear();
                        let signed = orders.limit_order(&market, &limit).unwrap();
                        signed.write_json(OWNER, &mut body);
                        let sig = hmac.sign(1_767_225_600, "POST", "/order", &body);
                        assert_eq!(sig.as_str().len(), 44);
                        body.clear();
                        let signed = orders.market_order(&market, &market_req).unwrap();
                        signed.write_json(OWNER, &mut body);
                        let _ = hmac.sign(1_767_225_600, "POST", "/order", &body);
                    }
                });
                total += allocs;
            }
        }
        assert_eq!(total, 0, "prepared order path allocated {total} times");
    }
}

#[test]
fn batch_cancel_and_auth_headers_allocate_nothing() {
    let (orders, hmac) = prepared(|_| Wallet::Eoa);
    let market = MarketContext::new(
        Chain::Polygon,
        ExchangeVersion::V2,
        TOKEN.parse().unwrap(),
        TickSize::Hundredth,
        false,
    )
    .unwrap();
    let req = LimitOrder::new(Side::Buy, "0.56".parse().unwrap(), "10".parse().unwrap());
    let mut body = Vec::with_capacity(16 * 1024);
    let signer = orders.signer().clone();
    let _ = L1Headers::new(&signer, 137, 1, alloy_primitives::U256::ZERO).unwrap();
    let ((), allocs) = counting_alloc::count(|| {
        let mut batch = [orders.limit_order(&market, &req).unwrap(); 15];
        for slot in &mut batch {
            *slot = orders.limit_order(&market, &req).unwrap();
        }
        body.clear();
        write_batch_body(&batch, OWNER, &mut body).unwrap();
        let _ = hmac.sign(1, "POST", "/orders", &body);
        body.clear();
        write_cancel_body(&B256::repeat_byte(0x23), &mut body);
        let _ = hmac.sign(1, "DELETE", "/order", &body);
        let h = L1Headers::new(&signer, 137, 1_767_225_600, alloy_primitives::U256::ZERO).unwrap();
        assert_eq!(h.signature().len(), 132);
    });
    assert_eq!(allocs, 0);
}
