//! The prepared order path stays allocation-free when the signer draws its nonces from a
//! precomputed pool (feature `presign`); the pool's signing is checked in `it::presign`.
#![cfg(feature = "presign")]

use polyclob::sign::Signer;
use polyclob::sign::presign::{NoncePool, PoolConfig, Refill};
use polyclob::types::{Chain, ExchangeVersion, Side};

use crate::support::counting_alloc;

const KEY: &str = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";

#[test]
fn prepared_order_path_stays_allocation_free_with_the_pool() {
    use polyclob::order::{LimitOrder, MarketContext, OrderSigner};
    use polyclob::sign::hmac::HmacKey;
    use polyclob::sign::wallet::Wallet;
    use polyclob::types::TickSize;

    let pool = NoncePool::new(PoolConfig::new().depth(256).refill(Refill::Manual));
    let signer = Signer::from_hex(KEY)
        .unwrap()
        .with_nonce_pool(pool.clone())
        .unwrap();
    let orders = OrderSigner::new(signer.clone(), Chain::Polygon, Wallet::Eoa).unwrap();
    let hmac = HmacKey::from_base64url("-_-_-_-_-_-_-_-_-_-_-_-_-_-_-_-_-_-_-_-_AQI=").unwrap();
    let token = "71321045679252212594626385532706912750332728571942532289631379312455583992563";
    let market = MarketContext::new(
        Chain::Polygon,
        ExchangeVersion::V2,
        token.parse().unwrap(),
        TickSize::Hundredth,
        false,
    )
    .unwrap();
    let limit = LimitOrder::new(Side::Buy, "0.56".parse().unwrap(), "21.04".parse().unwrap());
    let mut body = Vec::with_capacity(2048);
    pool.refill();
    let _ = orders.limit_order(&market, &limit).unwrap(); // warm-up
    let ((), allocations) = counting_alloc::count(|| {
        for _ in 0..200 {
            body.clear();
            let signed = orders.limit_order(&market, &limit).unwrap();
            signed.write_json("f4f247b7-4ac7-ff29-a152-04fda0a8755a", &mut body);
            let _ = hmac.sign(1_767_225_600, "POST", "/order", &body);
        }
    });
    assert_eq!(allocations, 0);
    let stats = pool.stats();
    assert_eq!(
        (stats.taken, stats.fallbacks),
        (201, 0),
        "every signature came from the pool"
    );
}
