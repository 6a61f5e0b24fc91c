//! A market-maker skeleton: one bid and one ask around the mid of a book, kept there as the
//! market moves, with the safety rails a real quoting bot needs.
//!
//! ```text
//! cargo run --release --example market_maker              # 8 s against the embedded simulator
//! cargo run --release --example market_maker -- --secs 3  # shorter
//! ```
//!
//! What it shows, in the order the code does it:
//! - the market feed keeps the book; its zero-copy `Handler` only marks it changed, and the
//!   quoting decision is made between deliveries, with the books borrowed (`book()` shows a
//!   book only while it is live: after a break the bot does not quote on old levels);
//! - the fair mid is taken from *other* traders' orders: our own quote is subtracted from its
//!   level, so the bot never chases itself;
//! - cancel/replace when that mid moves by a threshold (half a tick here), or when a quote is
//!   filled; cancels go first, so no more than two quotes ever rest;
//! - post-only quotes (a quote that would cross is refused by the exchange, never taken);
//! - an inventory limit from the user channel's `trade` events: at the limit the side that
//!   would grow the position stops quoting;
//! - heartbeats on: if this process dies, the exchange cancels its quotes (cancel-on-disconnect);
//! - the rate governor on: `Throttle::Wait` paces orders and cancels to the account's tier
//!   instead of meeting `429`s;
//! - a clean shutdown that cancels everything and checks nothing is left.
//!
//! The simulator's traders move the book every few milliseconds, so the loop re-quotes many
//! times in a few seconds. The example checks its own invariants (never more than two quotes
//! resting, the exchange agreeing, the position within its limit, nothing left at exit, at least
//! a few re-quotes) and exits non-zero when one fails. Against the real exchange: drop the
//! simulator, the `.host(..)`/`.url(..)` calls and the test key; load your own key; size and
//! spread are yours to choose. A real bot would also route SIGINT/SIGTERM to the same shutdown.

use std::collections::HashMap;
use std::process::ExitCode;
use std::time::Duration;

use polyclob::account::user_events::{TradeStatus, UserEvent, UserFeed, UserStream};
use polyclob::book::{Book, Outcome};
use polyclob::clob::ApiKeyNonce;
use polyclob::clob::{Client, ClientBuilder, OrderFilter, TradeFilter};
use polyclob::fixed::{Price, Size};
use polyclob::http::{Bucket, Throttle, Tier};
use polyclob::order::{LimitOrder, OrderSigner};
use polyclob::sign::Signer;
use polyclob::sign::wallet::Wallet;
use polyclob::types::{Chain, Side};
use polyclob::ws::event::Status;
use polyclob::ws::feed::{Cx, Handler};
use polyclob::ws::market::{MarketFeed, MarketMessage, MarketStream};
use polyclob_sim::{MarketSpec, Simulator};

type Res<T> = Result<T, Box<dyn std::error::Error + Send + Sync>>;

/// Hardhat account #0: a public test key, never funded. Used only against the simulator.
const TEST_KEY: &str = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";

/// The quoting parameters.
struct Params {
    /// Shares per quote.
    size: Size,
    /// Distance of each quote from the fair mid before rounding away from it to the tick:
    /// half a tick joins the best bid and ask of a one- or two-tick spread.
    edge: Price,
    /// Re-quote when the fair mid moves by at least this much.
    requote_move: Price,
    /// Largest position (shares, either sign) at which the side that would grow it still quotes.
    max_inventory: Size,
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let mut secs = 8u64;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match (arg.as_str(), args.next().map(|v| v.parse::<u64>())) {
            ("--secs", Some(Ok(n))) if (1..=600).contains(&n) => secs = n,
            _ => {
                eprintln!("usage: market_maker [--secs N]  (1 ≤ N ≤ 600; got {arg:?})");
                return ExitCode::from(2);
            }
        }
    }
    match run(Duration::from_secs(secs)).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("market_maker failed: {e}");
            ExitCode::FAILURE
        }
    }
}

async fn run(length: Duration) -> Res<()> {
    // A local exchange with one market whose simulated traders rest, cancel and take every
    // 4 ms (on one of its two tokens each time), which enforces the trading rate limits of the
    // Standard tier and cancels the orders of an account whose heartbeats stop for 3 s.
    let sim = Simulator::builder()
        .seed(11)
        .markets(MarketSpec::defaults().into_iter().take(1).collect())
        .activity(Some(Duration::from_millis(4)))
        .rate_limits(Some(Tier::Standard))
        .heartbeat_timeout(Duration::from_secs(3))
        .start()
        .await?;
    let market = &sim.markets()[0];
    let token = market.tokens()[0].token_id().to_owned();
    let condition = market.condition_id().to_owned();

    let signer = Signer::from_hex(TEST_KEY)?;
    // The simulator enforces balances like the exchange: pUSD to buy, outcome tokens to sell
    // (1,000 pUSD and 100 shares of each token, as a split would leave them).
    sim.fund(signer.address(), 1_000 * 1_000_000);
    for m in sim.markets() {
        for t in m.tokens() {
            sim.fund_tokens(signer.address(), t.token_id(), 100 * 1_000_000);
        }
    }
    let client = ClientBuilder::new()
        .host(sim.http_url())
        .signer(signer.clone())
        // Orders and cancels the account's buckets would refuse wait up to 1 s on the client.
        .throttle(Throttle::Wait(Duration::from_secs(1)))
        .rate_limit_tier(Tier::Standard)
        // Orders and cancels on kept-alive HTTP/1.1 connections of their own.
        .order_lane(true)
        .build()?;
    let creds = client.create_or_derive_api_key(ApiKeyNonce::ZERO).await?;
    client.set_credentials(creds.clone());
    client.set_token_market(&token, &condition);
    let orders = OrderSigner::new(signer, Chain::Polygon, Wallet::Eoa)?;
    let ctx = client.market_context(&token).await?;
    let params = Params {
        size: Size::from_micros(10_000_000),
        edge: Price::new(5_000).ok_or("bad edge")?,
        requote_move: Price::new(5_000).ok_or("bad threshold")?,
        max_inventory: Size::from_micros(20_000_000),
    };
    println!(
        "quoting    {}…  size {}, edge {} (tick {}), re-quote on a {} move, inventory limit {}",
        &token[..12],
        params.size,
        params.edge,
        ctx.tick().as_str(),
        params.requote_move,
        params.max_inventory
    );

    // Heartbeats: while this task runs the exchange keeps our orders; if the process dies or
    // hangs, they stop and the exchange cancels every order of the account. The client also
    // refuses new orders itself as soon as a heartbeat fails.
    let beats = client.start_heartbeats(Duration::from_millis(500));

    // The market channel through the zero-copy handler tier (books), the user channel for our
    // fills.
    let mut market_ws = MarketStream::builder()
        .url(sim.market_ws_url())
        .assets([token.clone()])
        .tick_size_cache(&client)
        .build()?;
    let mut feed = Changed::default();
    let mut user_ws = UserStream::builder(creds.clone())
        .url(sim.user_ws_url())
        .markets([condition.clone()])
        .build()?;
    let mut fills = Fills::default();

    let mut mm = Maker {
        client: &client,
        orders: &orders,
        token: &token,
        condition: &condition,
        params,
        quotes: Quotes::default(),
        stats: Stats::default(),
        inventory: 0,
    };
    let deadline = tokio::time::Instant::now() + length;
    let outcome = loop {
        tokio::select! {
            biased;
            () = tokio::time::sleep_until(deadline) => break Ok(()),
            alive = user_ws.dispatch(&mut fills) => if !alive { break Err("user stream ended".into()) },
            alive = market_ws.dispatch(&mut feed) => if !alive { break Err("market stream ended".into()) },
        }
        // Fills first: they change the position and may have used up a quote.
        for fill in fills.pending.drain(..) {
            mm.on_fill(&fill);
        }
        let changed = std::mem::take(&mut feed.changed);
        if changed || mm.quotes.needs_refill() {
            let Some(book) = market_ws.state().book(&token) else {
                continue;
            };
            if let Err(e) = mm.maybe_requote(book).await {
                break Err(e);
            }
        }
    };

    // Shutdown, also after an error: cancel everything, stop heartbeating, check.
    market_ws.handle().shutdown();
    let cancelled = client.cancel_all().await?;
    let heartbeats = beats.status();
    beats.stop();
    let left = client
        .orders(
            &OrderFilter {
                asset_id: Some(token.clone()),
                ..OrderFilter::default()
            },
            None,
        )
        .await?
        .data
        .len();
    println!(
        "shutdown   cancel-all cancelled {} order(s); {left} left open",
        cancelled.canceled.len()
    );
    outcome?;

    // Fills that happened before the cancel may still be on their way: read the user channel
    // a little longer, then reconcile the position with the exchange's trade history.
    let until = tokio::time::Instant::now() + Duration::from_millis(300);
    while let Ok(true) = tokio::time::timeout_at(until, user_ws.dispatch(&mut fills)).await {}
    for fill in fills.pending.drain(..) {
        mm.on_fill(&fill);
    }
    let (trades, _) = client
        .all_trades(&TradeFilter {
            asset_id: Some(token.clone()),
            market: Some(condition.clone()),
            ..TradeFilter::default()
        })
        .await?;
    let mut from_rest = 0i64;
    for leg in trades.iter().flat_map(|t| &t.maker_orders) {
        if let Some(side) = mm.quotes.ours.get(&leg.order_id) {
            let micros = i64::try_from(leg.matched_amount.as_micros()).unwrap_or(i64::MAX);
            from_rest += if *side == Side::Buy { micros } else { -micros };
        }
    }
    println!(
        "reconcile  position {} from the user channel, {} from GET /data/trades",
        signed(mm.inventory),
        signed(from_rest)
    );
    mm.stats.print(&mm, &client);
    println!(
        "streams    {} heartbeats sent ({} failed), {} market-stream gaps, {} unreadable \
         user-channel elements",
        heartbeats.sent, heartbeats.failed, feed.gaps, fills.bad_frames
    );
    mm.check(left, heartbeats.failed, from_rest)
}

/// Marks the book as changed when an event was applied to it.
#[derive(Default)]
struct Changed {
    changed: bool,
    gaps: u64,
}

impl Handler<MarketFeed> for Changed {
    fn on_message(&mut self, msg: &MarketMessage<'_>, _: &Cx<'_, MarketFeed>) {
        self.changed |= matches!(msg, MarketMessage::Update(u) if u.outcome == Outcome::Applied);
    }

    fn on_status(&mut self, status: &Status, _: &Cx<'_, MarketFeed>) {
        // The feed has already stopped trusting the book until a fresh snapshot arrives.
        if !matches!(
            status,
            Status::Connected {
                reconnect: false,
                ..
            }
        ) {
            self.gaps += 1;
        }
    }
}

/// A fill of one of our orders, as the user channel reported it.
struct Fill {
    order_id: String,
    size: Size,
}

/// Collects maker fills from the user feed's trades: each trade is counted once, at its first
/// delivery (the feed delivers each status change once, in order: MATCHED, MINED, CONFIRMED).
#[derive(Default)]
struct Fills {
    pending: Vec<Fill>,
    bad_frames: u64,
}

impl Handler<UserFeed> for Fills {
    fn on_message(&mut self, msg: &UserEvent, _: &Cx<'_, UserFeed>) {
        let UserEvent::Trade(t) = msg else {
            return;
        };
        if !t.first || t.status == TradeStatus::Failed {
            return;
        }
        self.pending.extend(t.maker_fills.iter().map(|leg| Fill {
            order_id: leg.order_id.clone(),
            size: leg.matched,
        }));
    }

    fn on_invalid(&mut self, _: &polyclob::decode::DecodeError, _: &Cx<'_, UserFeed>) {
        self.bad_frames += 1;
    }
}

/// One resting quote.
#[derive(Clone, Debug)]
struct Quote {
    id: String,
    price: Price,
    remaining: Size,
}

/// Our quotes and what we know of every order we ever placed.
#[derive(Default)]
struct Quotes {
    bid: Option<Quote>,
    ask: Option<Quote>,
    /// Every order id we placed, with its side: fills may arrive after a cancel.
    ours: HashMap<String, Side>,
    /// The fair mid (micro-units) the current quotes were made for.
    quoted_mid: Option<u32>,
    /// A quote was filled away: quote again even if the mid did not move.
    refill: bool,
}

impl Quotes {
    fn resting(&self) -> usize {
        usize::from(self.bid.is_some()) + usize::from(self.ask.is_some())
    }

    fn slot(&mut self, side: Side) -> &mut Option<Quote> {
        match side {
            Side::Buy => &mut self.bid,
            Side::Sell => &mut self.ask,
        }
    }

    fn needs_refill(&self) -> bool {
        self.refill
    }
}

#[derive(Default)]
struct Stats {
    requotes: u64,
    posted: u64,
    refused_post_only: u64,
    cancels: u64,
    fills: u64,
    max_resting: usize,
    max_open_on_exchange: usize,
    max_abs_inventory: i64,
    printed: u64,
    printed_position: i64,
}

impl Stats {
    fn print(&self, mm: &Maker<'_>, client: &Client) {
        let g = client.governor();
        println!(
            "summary    {} re-quotes: {} quotes posted, {} refused as post-only crossers, \
             {} cancelled",
            self.requotes, self.posted, self.refused_post_only, self.cancels
        );
        println!(
            "           {} fills, position {} shares (largest {}), at most {} quotes resting \
             ({} seen on the exchange)",
            self.fills,
            signed(mm.inventory),
            signed(self.max_abs_inventory),
            self.max_resting,
            self.max_open_on_exchange
        );
        println!(
            "governor   tier {:?}: {}/{} order tokens, {}/{} cancel tokens left; exchange says \
             {:?} orders remaining",
            g.tier(),
            g.available(Bucket::Order),
            g.burst(Bucket::Order),
            g.available(Bucket::Cancel),
            g.burst(Bucket::Cancel),
            client
                .rate_limit_status(Bucket::Order)
                .and_then(|s| s.remaining),
        );
        for (name, bucket) in [("orders", Bucket::Order), ("cancels", Bucket::Cancel)] {
            let st = g.stats(bucket);
            println!(
                "           {name}: {} admitted, {} delayed (longest {:?}, {:?} in all), {} \
                 refused, {} HTTP 429",
                st.admitted, st.delayed, st.max_delay, st.total_delay, st.refused, st.rate_limited
            );
        }
    }
}

/// Micro-shares as a signed decimal.
fn signed(micros: i64) -> String {
    let sign = if micros < 0 { "-" } else { "+" };
    format!("{sign}{}", Size::from_micros(micros.unsigned_abs()))
}

struct Maker<'a> {
    client: &'a Client,
    orders: &'a OrderSigner,
    token: &'a str,
    condition: &'a str,
    params: Params,
    quotes: Quotes,
    stats: Stats,
    /// Signed position in micro-shares (+ long, − short), from our fills.
    inventory: i64,
}

impl Maker<'_> {
    fn on_fill(&mut self, fill: &Fill) {
        let Some(&side) = self.quotes.ours.get(&fill.order_id) else {
            return; // another account's order in the same trade
        };
        let micros = i64::try_from(fill.size.as_micros()).unwrap_or(i64::MAX);
        self.inventory += match side {
            Side::Buy => micros,
            Side::Sell => -micros,
        };
        self.stats.fills += 1;
        self.stats.max_abs_inventory = self.stats.max_abs_inventory.max(self.inventory.abs());
        let slot = self.quotes.slot(side);
        if let Some(q) = slot.as_mut().filter(|q| q.id == fill.order_id) {
            q.remaining = q.remaining.saturating_sub(fill.size);
            if q.remaining.is_zero() {
                *slot = None;
            }
        }
        // Re-evaluate at once: a quote may be gone, or the position at its limit.
        self.quotes.refill = true;
    }

    /// The best price on `side` among other traders' orders: our quote's size is taken off
    /// its level, and a level holding only our quote is skipped.
    fn others_best(book: &Book, side: Side, mine: Option<&Quote>) -> Option<Price> {
        book.levels(side)
            .find(|l| mine.is_none_or(|q| q.price != l.price || l.size > q.remaining))
            .map(|l| l.price)
    }

    /// Cancel/replace when the fair mid moved by the threshold or a quote needs replacing.
    async fn maybe_requote(&mut self, book: &Book) -> Res<()> {
        let best_bid = Self::others_best(book, Side::Buy, self.quotes.bid.as_ref());
        let best_ask = Self::others_best(book, Side::Sell, self.quotes.ask.as_ref());
        let (Some(best_bid), Some(best_ask)) = (best_bid, best_ask) else {
            return Ok(()); // no two-sided market to quote around
        };
        // Tick size from the client's cache (kept fresh by the feed's tick-size hook).
        let ctx = self.client.market_context(self.token).await?;
        let tick = ctx.tick();
        let t = tick.as_micros();
        let fair = (best_bid.as_micros() + best_ask.as_micros()) / 2;
        let moved = self
            .quotes
            .quoted_mid
            .is_none_or(|q| q.abs_diff(fair) >= self.params.requote_move.as_micros());
        if !moved && !self.quotes.refill {
            return Ok(());
        }
        let edge = self.params.edge.as_micros();
        let limit = i64::try_from(self.params.max_inventory.as_micros()).unwrap_or(i64::MAX);
        // Post-only: never at or through the other side (as the book shows it now).
        let bid = fair
            .checked_sub(edge)
            .and_then(Price::new)
            .map(|p| tick.floor(p))
            .zip(best_ask.as_micros().checked_sub(t).and_then(Price::new))
            .map(|(p, under_ask)| p.min(under_ask))
            .filter(|p| tick.in_range(*p) && self.inventory < limit);
        let ask = Price::new(fair + edge)
            .map(|p| tick.ceil(p))
            .zip(Price::new(best_bid.as_micros() + t))
            .map(|(p, over_bid)| p.max(over_bid))
            .filter(|p| tick.in_range(*p) && self.inventory > -limit);

        // Cancels first: a replaced quote is gone before its successor is posted.
        let mut cancel = Vec::new();
        let mut post = Vec::new();
        for (side, want) in [(Side::Buy, bid), (Side::Sell, ask)] {
            let slot = self.quotes.slot(side);
            if slot.as_ref().map(|q| q.price) == want {
                continue; // already there
            }
            if let Some(q) = slot.take() {
                cancel.push(q.id);
            }
            if let Some(price) = want {
                post.push((side, price));
            }
        }
        if !cancel.is_empty() {
            let ids: Vec<&str> = cancel.iter().map(String::as_str).collect();
            let r = self.client.cancel_orders(&ids).await?;
            self.stats.cancels += r.canceled.len() as u64;
            // The rest were filled (or cancelled by the exchange) meanwhile; their fills
            // reach the position through the user channel.
        }
        if !post.is_empty() {
            let signed = post
                .iter()
                .map(|&(side, price)| {
                    let req = LimitOrder::new(side, price, self.params.size).post_only(true);
                    self.orders.limit_order(&ctx, &req)
                })
                .collect::<Result<Vec<_>, _>>()?;
            let answers = self.client.post_orders(&signed).await?;
            for (&(side, price), answer) in post.iter().zip(&answers) {
                if answer.success && !answer.order_id.is_empty() {
                    self.stats.posted += 1;
                    self.quotes.ours.insert(answer.order_id.clone(), side);
                    *self.quotes.slot(side) = Some(Quote {
                        id: answer.order_id.clone(),
                        price,
                        remaining: self.params.size,
                    });
                } else if answer.is_post_only_crossing() {
                    // The book moved between our read and the exchange: not a failure.
                    self.stats.refused_post_only += 1;
                } else {
                    return Err(format!("quote refused: {}", answer.error_msg).into());
                }
            }
        }
        self.quotes.quoted_mid = Some(fair);
        self.quotes.refill = false;
        self.stats.requotes += 1;
        self.stats.max_resting = self.stats.max_resting.max(self.quotes.resting());

        // Trust, but verify: the exchange's view of our open orders on this token.
        let open = self
            .client
            .orders(
                &OrderFilter {
                    asset_id: Some(self.token.to_owned()),
                    market: Some(self.condition.to_owned()),
                    ..OrderFilter::default()
                },
                None,
            )
            .await?
            .data
            .len();
        self.stats.max_open_on_exchange = self.stats.max_open_on_exchange.max(open);

        // The first few re-quotes, then those after a fill.
        if self.stats.printed < 4
            || (self.stats.printed < 16 && self.stats.printed_position != self.inventory)
        {
            self.stats.printed += 1;
            self.stats.printed_position = self.inventory;
            let px = |q: &Option<Quote>| q.as_ref().map_or("-".into(), |q| q.price.to_string());
            let held = match (bid.is_none(), ask.is_none()) {
                (true, false) if self.inventory >= limit => "  (bid withheld: long at the limit)",
                (false, true) if self.inventory <= -limit => "  (ask withheld: short at the limit)",
                _ => "",
            };
            println!(
                "re-quote   mid {:.4}  bid {:<5} ask {:<5} position {:>4}, {open} open on the \
                 exchange{held}",
                f64::from(fair) / 1e6,
                px(&self.quotes.bid),
                px(&self.quotes.ask),
                signed(self.inventory),
            );
        }
        Ok(())
    }

    /// The invariants this skeleton promises; an error names the first one broken.
    fn check(&self, left_open: usize, heartbeat_failures: u64, rest_position: i64) -> Res<()> {
        let limit = i64::try_from(self.params.max_inventory.as_micros()).unwrap_or(i64::MAX);
        let size = i64::try_from(self.params.size.as_micros()).unwrap_or(i64::MAX);
        let s = &self.stats;
        let broken = [
            (s.max_resting > 2, "more than two quotes resting"),
            (
                s.max_open_on_exchange > 2,
                "the exchange listed more than two open orders",
            ),
            (left_open != 0, "orders left open after shutdown"),
            (
                s.requotes < 3,
                "fewer than three re-quotes: the mid did not move?",
            ),
            // A quote placed just under the limit can fill once more: limit + one quote.
            (
                s.max_abs_inventory > limit + size,
                "position beyond the inventory limit",
            ),
            (heartbeat_failures != 0, "a heartbeat failed"),
            (
                rest_position != self.inventory,
                "the position from the user channel differs from the trade history",
            ),
        ];
        match broken.iter().find(|(bad, _)| *bad) {
            Some((_, what)) => Err(format!("invariant broken: {what}").into()),
            None => {
                println!("invariants ok");
                Ok(())
            }
        }
    }
}
