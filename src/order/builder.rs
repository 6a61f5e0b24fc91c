//! The prepared order signer: wallet checked once, addresses formatted once, then
//! build → validate → hash → sign with no allocation.

use alloy_primitives::{Address, B256};

use super::args::Common;
use super::{
    LimitOrder, MarketContext, MarketOrder, Order, OrderError, SignedOrder, limit_amounts,
};
use crate::sign::Signer;
use crate::sign::wallet::Wallet;
use crate::types::{Chain, ExchangeVersion, OrderType, SignatureType};

/// The largest salt the body can carry as a JSON number without precision loss.
pub(crate) const MAX_SALT: u64 = (1 << 53) - 1;

/// A fresh random salt ≤ 2⁵³ − 1 from the OS entropy source.
///
/// The OS is asked for 4 KiB at a time per thread and each salt consumes 8 of them once, so
/// the order path pays one system call every 512 orders instead of every order. Salts are
/// public once sent; they only need to be unpredictable and unique, not secret.
///
/// # Errors
/// [`OrderError::Entropy`] if the OS source fails.
pub(crate) fn random_salt() -> Result<u64, OrderError> {
    use std::cell::RefCell;
    const BUF: usize = 4096;
    thread_local! {
        static ENTROPY: RefCell<([u8; BUF], usize)> = const { RefCell::new(([0; BUF], BUF)) };
    }
    ENTROPY.with(|cell| {
        let (buf, pos) = &mut *cell.borrow_mut();
        if *pos + 8 > BUF {
            getrandom::fill(buf).map_err(|_| OrderError::Entropy)?;
            *pos = 0;
        }
        let mut word = [0u8; 8];
        word.copy_from_slice(&buf[*pos..*pos + 8]);
        *pos += 8;
        Ok(u64::from_le_bytes(word) & MAX_SALT)
    })
}

/// A signer prepared for orders: the key, the chain, the wallet (maker/signer addresses and
/// signature type, validated once), and the builder code and metadata every order carries.
///
/// Cheap to clone (the key is shared). The order methods validate the request against the
/// market, compute the amounts with exact integer math, hash with the precomputed domain and
/// sign — without touching the network or the heap.
///
/// ```
/// use polyclob::order::{LimitOrder, MarketContext, OrderSigner};
/// use polyclob::sign::{Signer, wallet::Wallet};
/// use polyclob::types::{Chain, ExchangeVersion, Side, TickSize};
///
/// let signer = Signer::from_hex("ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80")?;
/// let orders = OrderSigner::new(signer, Chain::Polygon, Wallet::Eoa)?;
/// let market = MarketContext::new(Chain::Polygon, ExchangeVersion::V2, "1234".parse()?, TickSize::Hundredth, false)?;
/// let signed = orders.limit_order(&market, &LimitOrder::new(Side::Buy, "0.56".parse()?, "21.04".parse()?))?;
/// assert_eq!(signed.order().maker_amount, 11_782_400);
/// let body = signed.to_json("f4f247b7-4ac7-ff29-a152-04fda0a8755a");
/// assert!(body.starts_with(br#"{"order":{"salt":"#));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct OrderSigner {
    signer: Signer,
    chain: Chain,
    wallet: Wallet,
    maker: Address,
    order_signer: Address,
    maker_hex: [u8; 42],
    signer_hex: [u8; 42],
    builder: B256,
    metadata: B256,
}

pub(crate) fn checksum_hex(a: &Address) -> [u8; 42] {
    let mut out = [0u8; 42];
    out.copy_from_slice(a.to_checksum_buffer(None).as_str().as_bytes());
    out
}

impl OrderSigner {
    /// Prepares `signer` to place orders on `chain` through `wallet`.
    ///
    /// # Errors
    /// [`OrderError::FunderMissing`] when a proxy, Safe or deposit wallet is the zero address
    /// or the EOA itself (the SDKs' silent default, and a classic "invalid signature").
    pub fn new(signer: Signer, chain: Chain, wallet: Wallet) -> Result<Self, OrderError> {
        let eoa = signer.address();
        if let Some(funder) = wallet.funder() {
            if funder == Address::ZERO || funder == eoa {
                return Err(OrderError::FunderMissing {
                    signature_type: wallet.signature_type(),
                });
            }
        }
        let maker = wallet.maker(eoa);
        let order_signer = wallet.signer(eoa);
        Ok(Self {
            maker_hex: checksum_hex(&maker),
            signer_hex: checksum_hex(&order_signer),
            signer,
            chain,
            wallet,
            maker,
            order_signer,
            builder: B256::ZERO,
            metadata: B256::ZERO,
        })
    }

    /// Prepares a signer from the SDK-style pair (signature type, optional funder).
    ///
    /// # Errors
    /// [`OrderError::FunderMissing`] for a non-EOA type without a funder;
    /// [`OrderError::FunderNotAllowed`] for an EOA with a funder other than itself.
    pub fn from_signature_type(
        signer: Signer,
        chain: Chain,
        signature_type: SignatureType,
        funder: Option<Address>,
    ) -> Result<Self, OrderError> {
        let eoa = signer.address();
        let wallet = match (signature_type, funder) {
            (SignatureType::Eoa, None) => Wallet::Eoa,
            (SignatureType::Eoa, Some(f)) if f == eoa => Wallet::Eoa,
            (SignatureType::Eoa, Some(_)) => return Err(OrderError::FunderNotAllowed),
            (t, None) => return Err(OrderError::FunderMissing { signature_type: t }),
            (t, Some(f)) => Wallet::from_parts(t, f),
        };
        Self::new(signer, chain, wallet)
    }

    /// Sets the V2/V3 builder code carried (and signed) by every order. Default is zero.
    #[must_use]
    pub const fn builder_code(mut self, code: B256) -> Self {
        self.builder = code;
        self
    }

    /// Sets the V2/V3 `metadata` carried (and signed) by every order. Default is zero.
    #[must_use]
    pub const fn metadata(mut self, metadata: B256) -> Self {
        self.metadata = metadata;
        self
    }

    /// The key.
    #[must_use]
    pub const fn signer(&self) -> &Signer {
        &self.signer
    }

    /// The wallet.
    #[must_use]
    pub const fn wallet(&self) -> Wallet {
        self.wallet
    }

    /// The chain.
    #[must_use]
    pub const fn chain(&self) -> Chain {
        self.chain
    }

    /// The order's `maker` (the funder).
    #[must_use]
    pub const fn maker(&self) -> Address {
        self.maker
    }

    /// Builds and signs a limit (GTC/GTD) order.
    ///
    /// # Errors
    /// Any validation error of [`OrderError`] (price grid and range, lot rounding, expiration,
    /// order type, wallet against the market), or a signing failure.
    pub fn limit_order(
        &self,
        market: &MarketContext,
        req: &LimitOrder,
    ) -> Result<SignedOrder, OrderError> {
        let c = &req.common;
        if c.order_type.is_immediate() {
            return Err(OrderError::OrderTypeNotAllowed {
                order_type: c.order_type,
            });
        }
        let (maker_amount, taker_amount) =
            limit_amounts(req.side, req.price, req.size, market.tick())?;
        self.finish(market, req.side, maker_amount, taker_amount, c)
    }

    /// Builds and signs a market (FOK/FAK) order.
    ///
    /// # Errors
    /// As [`limit_order`](Self::limit_order); post-only and GTC/GTD are rejected.
    pub fn market_order(
        &self,
        market: &MarketContext,
        req: &MarketOrder,
    ) -> Result<SignedOrder, OrderError> {
        let c = &req.common;
        if c.post_only && c.order_type.is_immediate() {
            return Err(OrderError::PostOnlyNotAllowed {
                order_type: c.order_type,
            });
        }
        if !c.order_type.is_immediate() {
            return Err(OrderError::OrderTypeNotAllowed {
                order_type: c.order_type,
            });
        }
        let (maker_amount, taker_amount) = req.amounts(market.tick(), market.version())?;
        self.finish(market, req.side, maker_amount, taker_amount, c)
    }

    fn finish(
        &self,
        market: &MarketContext,
        side: crate::types::Side,
        maker_amount: u64,
        taker_amount: u64,
        c: &Common,
    ) -> Result<SignedOrder, OrderError> {
        if market.chain() != self.chain {
            return Err(OrderError::ChainMismatch {
                signer: self.chain,
                market: market.chain(),
            });
        }
        let signature_type = self.wallet.signature_type();
        if !signature_type.allowed_on(market.version()) {
            return Err(OrderError::SignatureTypeNotAllowed {
                signature_type,
                version: market.version(),
            });
        }
        let created_at_ms = match c.created_at_ms {
            Some(ms) => ms,
            None => self.signer.next_timestamp_ms(),
        };
        validate_flags(c, created_at_ms / 1000)?;
        let salt = match c.salt {
            Some(s) if s > MAX_SALT => return Err(OrderError::SaltTooLarge),
            Some(s) => s,
            None => random_salt()?,
        };
        let v1 = market.version() == ExchangeVersion::V1;
        let order = Order {
            version: market.version(),
            salt,
            maker: self.maker,
            signer: self.order_signer,
            taker: if v1 { c.taker } else { Address::ZERO },
            token_id: *market.token_id(),
            maker_amount,
            taker_amount,
            expiration: c.expiration,
            nonce: if v1 { c.nonce } else { 0 },
            fee_rate_bps: if v1 { c.fee_rate_bps } else { 0 },
            side,
            signature_type,
            timestamp_ms: if v1 { 0 } else { created_at_ms },
            metadata: if v1 { B256::ZERO } else { self.metadata },
            builder: if v1 { B256::ZERO } else { self.builder },
        };
        SignedOrder::sign_prepared(
            &self.signer,
            market,
            order,
            (c.order_type, c.post_only, c.defer_exec),
            self.maker_hex,
            self.signer_hex,
            self.wallet.is_session(),
        )
    }
}

/// Order-type, post-only and expiration rules (protocol.md §3.5).
fn validate_flags(c: &Common, now_secs: u64) -> Result<(), OrderError> {
    if c.post_only && c.order_type.is_immediate() {
        return Err(OrderError::PostOnlyNotAllowed {
            order_type: c.order_type,
        });
    }
    match c.order_type {
        OrderType::Gtd => {
            if c.expiration == 0 {
                return Err(OrderError::ExpirationMissing);
            }
            let earliest = now_secs.saturating_add(60);
            if c.expiration < earliest {
                return Err(OrderError::ExpirationTooSoon {
                    expiration: c.expiration,
                    earliest,
                });
            }
        }
        other if c.expiration != 0 => {
            return Err(OrderError::ExpirationNotAllowed { order_type: other });
        }
        _ => {}
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixed::{Price, Size};
    use crate::order::MarketAmount;
    use crate::sign::eip712::recover_address;
    use crate::types::{Side, TickSize};

    const KEY: &str = "ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
    const NOW_MS: u64 = 1_767_225_600_123;

    fn signer() -> Signer {
        Signer::from_hex(KEY).unwrap()
    }

    #[test]
    fn signed_order_is_a_small_stack_value() {
        // A signed order stays a stack value well under a page.
        assert!(core::mem::size_of::<crate::order::SignedOrder>() < 1024);
    }
    fn p(s: &str) -> Price {
        s.parse().unwrap()
    }
    fn q(s: &str) -> Size {
        s.parse().unwrap()
    }
    fn market(version: ExchangeVersion, neg_risk: bool) -> MarketContext {
        MarketContext::new(
            Chain::Polygon,
            version,
            "1234".parse().unwrap(),
            TickSize::Hundredth,
            neg_risk,
        )
        .unwrap()
    }
    fn eoa() -> OrderSigner {
        OrderSigner::new(signer(), Chain::Polygon, Wallet::Eoa).unwrap()
    }
    fn limit() -> LimitOrder {
        LimitOrder::new(Side::Buy, p("0.5"), q("10")).created_at_ms(NOW_MS)
    }

    #[test]
    fn wallet_combinations_are_validated() {
        let s = signer();
        let me = s.address();
        let other = Address::repeat_byte(0x11);
        let cases: &[(SignatureType, Option<Address>, Option<OrderError>)] = &[
            (SignatureType::Eoa, None, None),
            (SignatureType::Eoa, Some(me), None),
            (
                SignatureType::Eoa,
                Some(other),
                Some(OrderError::FunderNotAllowed),
            ),
            (
                SignatureType::PolyProxy,
                None,
                Some(OrderError::FunderMissing {
                    signature_type: SignatureType::PolyProxy,
                }),
            ),
            (
                SignatureType::PolyGnosisSafe,
                Some(me),
                Some(OrderError::FunderMissing {
                    signature_type: SignatureType::PolyGnosisSafe,
                }),
            ),
            (
                SignatureType::Poly1271,
                Some(Address::ZERO),
                Some(OrderError::FunderMissing {
                    signature_type: SignatureType::Poly1271,
                }),
            ),
            (SignatureType::PolyProxy, Some(other), None),
            (SignatureType::Poly1271, Some(other), None),
        ];
        for &(ty, funder, ref want) in cases {
            let got = OrderSigner::from_signature_type(s.clone(), Chain::Polygon, ty, funder);
            assert_eq!(got.as_ref().err(), want.as_ref(), "{ty:?} {funder:?}");
        }
        // POLY_1271 exists from V2 on.
        let dw = OrderSigner::new(s.clone(), Chain::Polygon, Wallet::DepositWallet(other)).unwrap();
        assert_eq!(
            dw.limit_order(&market(ExchangeVersion::V1, false), &limit())
                .err(),
            Some(OrderError::SignatureTypeNotAllowed {
                signature_type: SignatureType::Poly1271,
                version: ExchangeVersion::V1
            })
        );
        let signed = dw
            .limit_order(&market(ExchangeVersion::V2, false), &limit())
            .unwrap();
        assert_eq!(signed.order().maker, other);
        assert_eq!(signed.order().signer, other);
        assert!(signed.signature().is_poly_1271());
        // Chain mismatch.
        let amoy = OrderSigner::new(s, Chain::Amoy, Wallet::Eoa).unwrap();
        assert_eq!(
            amoy.limit_order(&market(ExchangeVersion::V2, false), &limit())
                .err(),
            Some(OrderError::ChainMismatch {
                signer: Chain::Amoy,
                market: Chain::Polygon
            })
        );
    }

    #[test]
    fn order_type_expiration_and_post_only_rules() {
        let o = eoa();
        let m = market(ExchangeVersion::V2, false);
        let now = NOW_MS / 1000;
        let err = |r: Result<SignedOrder, OrderError>| r.err();
        assert_eq!(
            err(o.limit_order(&m, &limit().expiration(now + 3600))),
            Some(OrderError::ExpirationNotAllowed {
                order_type: OrderType::Gtc
            })
        );
        assert_eq!(
            err(o.limit_order(&m, &limit().order_type(OrderType::Gtd))),
            Some(OrderError::ExpirationMissing)
        );
        assert_eq!(
            err(o.limit_order(&m, &limit().order_type(OrderType::Gtd).expiration(now + 59))),
            Some(OrderError::ExpirationTooSoon {
                expiration: now + 59,
                earliest: now + 60
            })
        );
        let gtd = o
            .limit_order(
                &m,
                &limit()
                    .order_type(OrderType::Gtd)
                    .expiration(now + 60)
                    .post_only(true),
            )
            .unwrap();
        assert_eq!(gtd.order().expiration, now + 60);
        assert!(gtd.post_only());
        assert_eq!(
            err(o.limit_order(&m, &limit().order_type(OrderType::Fok))),
            Some(OrderError::OrderTypeNotAllowed {
                order_type: OrderType::Fok
            })
        );
        let mkt = MarketOrder::new(Side::Buy, MarketAmount::Usdc(q("10")), p("0.5"))
            .created_at_ms(NOW_MS);
        assert_eq!(
            err(o.market_order(&m, &mkt.post_only(true))),
            Some(OrderError::PostOnlyNotAllowed {
                order_type: OrderType::Fok
            })
        );
        assert_eq!(
            err(o.market_order(&m, &mkt.order_type(OrderType::Fak).post_only(true))),
            Some(OrderError::PostOnlyNotAllowed {
                order_type: OrderType::Fak
            })
        );
        assert_eq!(
            err(o.market_order(&m, &mkt.order_type(OrderType::Gtc))),
            Some(OrderError::OrderTypeNotAllowed {
                order_type: OrderType::Gtc
            })
        );
        assert_eq!(
            err(o.market_order(&m, &mkt.expiration(now + 3600))),
            Some(OrderError::ExpirationNotAllowed {
                order_type: OrderType::Fok
            })
        );
        assert_eq!(
            err(o.limit_order(&m, &limit().salt(MAX_SALT + 1))),
            Some(OrderError::SaltTooLarge)
        );
        assert!(o.limit_order(&m, &limit().salt(MAX_SALT)).is_ok());
        assert!(matches!(
            err(o.limit_order(&m, &LimitOrder::new(Side::Buy, p("0.555"), q("1")))),
            Some(OrderError::PriceOffGrid { .. })
        ));
        assert!(matches!(
            err(o.limit_order(&m, &LimitOrder::new(Side::Buy, p("0.5"), q("0.001")))),
            Some(OrderError::SizeZeroAfterRounding { .. })
        ));
        // V1-only ticks.
        assert_eq!(
            MarketContext::new(
                Chain::Polygon,
                ExchangeVersion::V1,
                "1".parse().unwrap(),
                TickSize::FiveThousandths,
                false
            )
            .err(),
            Some(OrderError::TickNotAllowed {
                tick: TickSize::FiveThousandths,
                version: ExchangeVersion::V1
            })
        );
        // Errors name their cause in text.
        let e = OrderError::ExchangeMismatch { neg_risk: true };
        assert_eq!(
            e.to_string(),
            "neg-risk market signed against the standard exchange"
        );
        let e = OrderError::from(crate::sign::SignError::RecoveryFailed);
        assert!(std::error::Error::source(&e).is_some());
    }

    #[test]
    fn salts_are_random_and_json_safe() {
        let o = eoa();
        let m = market(ExchangeVersion::V2, false);
        let mut seen = std::collections::HashSet::new();
        for _ in 0..2000 {
            let s = o
                .limit_order(&m, &LimitOrder::new(Side::Buy, p("0.5"), q("10")))
                .unwrap();
            assert!(s.order().salt <= MAX_SALT);
            seen.insert(s.order().salt);
        }
        assert!(seen.len() >= 1999, "salts repeat: {} distinct", seen.len());
        // Some salt uses the top bits (a clock-times-random salt would not reach them).
        assert!(seen.iter().any(|&s| s > 1 << 52));
    }

    #[test]
    fn v2_timestamps_strictly_increase_and_v1_fields_are_dropped() {
        let o = eoa();
        let m = market(ExchangeVersion::V2, false);
        let mut last = 0;
        for _ in 0..500 {
            let s = o
                .limit_order(
                    &m,
                    &LimitOrder::new(Side::Sell, p("0.5"), q("10"))
                        .nonce(9)
                        .fee_rate_bps(100),
                )
                .unwrap();
            assert!(s.order().timestamp_ms > last);
            last = s.order().timestamp_ms;
            assert_eq!((s.order().nonce, s.order().fee_rate_bps), (0, 0));
        }
        let v1 = o
            .limit_order(
                &market(ExchangeVersion::V1, false),
                &limit().nonce(9).fee_rate_bps(100),
            )
            .unwrap();
        assert_eq!(
            (
                v1.order().nonce,
                v1.order().fee_rate_bps,
                v1.order().timestamp_ms
            ),
            (9, 100, 0)
        );
    }

    /// Random orders on every generation and exchange recover to the signer over their hash.
    #[test]
    fn random_orders_recover_to_the_signer() {
        let o = eoa();
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for i in 0..200 {
            let version = [
                ExchangeVersion::V1,
                ExchangeVersion::V2,
                ExchangeVersion::V3,
            ][i % 3];
            let neg_risk = i % 2 == 0;
            let tick = if version == ExchangeVersion::V1 {
                [
                    TickSize::Tenth,
                    TickSize::Hundredth,
                    TickSize::Thousandth,
                    TickSize::TenThousandth,
                ][(next() % 4) as usize]
            } else {
                TickSize::ALL[(next() % 6) as usize]
            };
            let m = MarketContext::new(
                Chain::Polygon,
                version,
                crate::order::TokenId::from_u256(alloy_primitives::U256::from(next())),
                tick,
                neg_risk,
            )
            .unwrap();
            let ticks_in_range = Price::SCALE / tick.as_micros() - 1;
            let price =
                Price::new((1 + (next() as u32 % ticks_in_range)) * tick.as_micros()).unwrap();
            let size = Size::from_micros(10_000 + next() % 1_000_000_000);
            let side = if next() % 2 == 0 {
                Side::Buy
            } else {
                Side::Sell
            };
            let s = o
                .limit_order(&m, &LimitOrder::new(side, price, size))
                .unwrap();
            assert_eq!(
                *s.hash(),
                crate::sign::eip712::order_hash(m.domain_separator(), s.order())
            );
            let sig = crate::sign::Signature::from_bytes(s.signature().ecdsa_part()).unwrap();
            assert_eq!(
                recover_address(&s.hash().0, &sig).unwrap(),
                o.signer().address()
            );
        }
    }
}
