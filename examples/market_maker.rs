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
//! - position and P&L from the account's [`Tracker`], fed the posts and the user channel and
//!   told the market's fee schedule: an inventory limit (at the limit the bid stops), asks
//!   only for shares held, and at exit the realized and unrealized P&L, the fees and the
//!   maker rebate the venue reports, all exact (no float, no hand arithmetic);
//! - heartbeats on: if this process dies, the exchange cancels its quotes (cancel-on-disconnect);
//! - the rate governor on: `Throttle::Wait` paces orders and cancels to the account's tier
//!   instead of meeting `429`s;
//! - a clean shutdown that cancels everything, checks nothing is left, and flattens the
//!   position with a FAK sell of the lot it can sell (a taker: it pays the fee; the dust
//!   stays).
//!
//! The market charges fees (a 4% taker rate, taker-only, a quarter rebated to makers), as a
//! politics market does. The simulator's traders move the book every few milliseconds, so the
//! loop re-quotes many times in a few seconds. The example checks its own invariants (never
//! more than two quotes resting, the exchange agreeing, the position within its limit, nothing
//! left at exit, at least a few re-quotes, the tracker's shares, average price, fees and
//! realized P&L equal to the Data API's to the micro-unit) and exits non-zero when one fails. Against the real exchange: drop the
//! simulator, the `.host(..)`/`.url(..)` calls and the test key; load your own key; size and
//! spread are yours to choose. A real bot would also route SIGINT/SIGTERM to the same shutdown.

use std::process::ExitCode;
use std::time::Duration;

use futures_util::StreamExt;
use polyclob::account::Tracker;
use polyclob::account::tracker::TrackerEvent;
use polyclob::account::user_events::UserStream;
use polyclob::book::{Book, Outcome};
use polyclob::clob::ApiKeyNonce;
use polyclob::clob::{Client, ClientBuilder, OrderFilter};
use polyclob::data;
use polyclob::fixed::{Price, Size};
use polyclob::http::{Bucket, Throttle, Tier};
use polyclob::order::{LimitOrder, MarketAmount, MarketOrder, OrderSigner};
use polyclob::sign::Signer;
use polyclob::sign::wallet::Wallet;
use polyclob::types::{Chain, FeeSchedule, OrderType, Side, Timestamp};
use polyclob::ws::event::Status;
use polyclob::ws::feed::{Cx, FeedEvent, Handler};
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
    /// Largest position (shares) at which the bid still quotes.
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
    // A local exchange with one fee-enabled market (a politics market's schedule: 4% taker
    // rate, taker-only, a quarter of it rebated to makers) whose simulated traders rest, cancel
    // and take every 4 ms (on one of its two tokens each time), which enforces the trading rate
    // limits of the Standard tier and cancels the orders of an account whose heartbeats stop
    // for 3 s.
    let politics = FeeSchedule::new("0.04".parse()?, 1, true, Some("0.25".parse()?))
        .ok_or("bad fee schedule")?;
    let sim = Simulator::builder()
        .seed(11)
        .markets(vec![MarketSpec::defaults().remove(0).fees(politics)])
        .activity(Some(Duration::from_millis(4)))
        .rate_limits(Some(Tier::Standard))
        .heartbeat_timeout(Duration::from_secs(3))
        .start()
        .await?;
    let market = &sim.markets()[0];
    let token = market.tokens()[0].token_id().to_owned();
    let condition = market.condition_id().to_owned();

    let signer = Signer::from_hex(TEST_KEY)?;
    let me = signer.address();
    // The simulator enforces balances like the exchange: pUSD to buy, outcome tokens to sell.
    // The bot starts with 1,000 pUSD and no shares: it sells only what it bought, so every
    // share it holds has a cost and its P&L is all accounted for.
    sim.fund(me, 1_000 * 1_000_000);
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

    // The market channel through the zero-copy feed (books), the user channel for our fills.
    let mut market_ws = MarketStream::builder()
        .url(sim.market_ws_url())
        .assets([token.clone()])
        .tick_size_cache(&client)
        .build()?;
    let mut feed = Changed::default();
    // Each status change of each trade once, in order: the tracker settles fills by them.
    let mut user = UserStream::builder(creds.clone())
        .url(sim.user_ws_url())
        .markets([condition.clone()])
        .build()?;
    // The tracker: our orders and fills, positions and P&L. It is told the market's fees (the
    // CLOB's `fd`), so each confirmed leg carries its fee.
    let mut tracker = Tracker::new().maker(me);
    tracker.set_fee_schedule(&condition, client.fee_schedule(&token).await?);

    let mut mm = Maker {
        client: &client,
        orders: &orders,
        token: &token,
        condition: &condition,
        params,
        quotes: Quotes::default(),
        stats: Stats::default(),
        tracker: &mut tracker,
    };
    let deadline = tokio::time::Instant::now() + length;
    let outcome = loop {
        tokio::select! {
            biased;
            () = tokio::time::sleep_until(deadline) => break Ok(()),
            ev = user.next() => match ev {
                Some(FeedEvent::Message(ev)) => mm.tracker.on_user_event(&ev),
                Some(_) => {}
                None => break Err("user stream ended".into()),
            },
            alive = market_ws.dispatch(&mut feed) => if !alive { break Err("market stream ended".into()) },
        }
        // Fills first: they change the position and may have used up a quote.
        mm.on_tracker_events();
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
    // a little longer.
    let until = tokio::time::Instant::now() + Duration::from_millis(300);
    while let Ok(Some(ev)) = tokio::time::timeout_at(until, user.next()).await {
        if let FeedEvent::Message(ev) = ev {
            mm.tracker.on_user_event(&ev);
        }
    }
    mm.on_tracker_events();

    // Flatten: sell the lot of what is held into the best bids (a taker: it pays the fee),
    // keeping the dust the exchange will not take.
    let (lot, dust) = mm.held().split_lot();
    let book = client.book(&token).await?;
    let bids = || book.bids.iter().rev().map(|l| (l.price, l.size));
    // The worst bid: a FAK at that price takes every level the lot needs.
    let worst = book.bids.first().map(|l| l.price);
    if let (false, Some(worst)) = (lot.is_zero(), worst) {
        let sell = MarketOrder::new(Side::Sell, MarketAmount::Shares(lot), worst)
            .order_type(OrderType::Fak);
        let quote = sell.quote(ctx.tick(), bids(), Some(politics))?;
        let order = orders.market_order(&ctx, &sell)?;
        let answer = client.post_order(&order).await;
        mm.tracker.posted(&order, &answer);
        // A refusal (the shares sold before the user channel said so) leaves the position to
        // the checks below, which hold whatever it is.
        match answer {
            Ok(r) if r.success && !r.order_id.is_empty() => {
                let settled = mm
                    .tracker
                    .wait_for_settlement(
                        &client,
                        &r.order_id,
                        Duration::from_millis(20),
                        Duration::from_secs(30),
                    )
                    .await?;
                println!(
                    "flatten    sold {} of {} shares into the bids for {} pUSD, fee {} (quoted); \
                     {} shares of dust kept ({} confirmed, {} failed)",
                    quote.shares,
                    mm.held().checked_add(lot).unwrap_or(Size::MAX),
                    quote.value,
                    quote.fee,
                    dust,
                    settled.confirmed,
                    settled.failed
                );
            }
            Ok(r) => println!("flatten    refused: {}", r.error_msg),
            Err(e) => println!("flatten    refused: {e}"),
        }
    }

    // The Data API's view of the account, against the tracker's.
    let data = data::Client::builder().host(sim.data_api_url()).build()?;
    let (rows, unreadable) = data
        .collect(data::Query::positions(me.to_checksum(None)))
        .await?;
    let differs = !unreadable.is_empty() || !mm.tracker.reconcile(&rows).is_empty();
    let position = mm.tracker.position(&token).unwrap_or_default();
    let basis = position.basis;
    let row = rows.iter().find(|r| r.token_id == token);
    let pnl_differs = row.is_some_and(|r| {
        r.avg_price.filter(|p| !p.is_zero()) != basis.avg_price()
            || r.entry_fees != Some(basis.fees())
            || r.realized_pnl != Some(basis.realized())
    }) || (row.is_none() && !basis.realized().is_zero());
    let mid = book.bids.last().zip(book.asks.last());
    let mark = mid
        .and_then(|(b, a)| Price::new((b.price.as_micros() + a.price.as_micros()) / 2))
        .unwrap_or(Price::ZERO);
    let today = Timestamp::from_secs(unix_now())
        .map(|t| t.to_string())
        .unwrap_or_default();
    let (rebates, _) = client
        .current_rebates(&today[..10.min(today.len())], &me.to_checksum(None))
        .await?;
    let rebate = rebates
        .iter()
        .filter(|r| r.condition_id == condition)
        .map(|r| r.rebated_fees)
        .fold(Size::ZERO, |a, r| a.checked_add(r).unwrap_or(Size::MAX));
    println!(
        "P&L        realized {} pUSD (net of fees), unrealized {} at {mark}; {} shares held at \
             {} (entry fees {}); maker rebate accrued today {} pUSD",
        basis.realized(),
        basis.unrealized(mark),
        basis.held(),
        basis
            .avg_price()
            .map_or_else(|| "-".to_owned(), |p| p.to_string()),
        basis.fees(),
        rebate
    );
    println!(
        "reconcile  tracker and Data API {}",
        if differs || pnl_differs {
            "DIFFER"
        } else {
            "agree (shares, average price, fees, realized P&L)"
        }
    );
    mm.stats.print(&mm, &client);
    println!(
        "streams    {} heartbeats sent ({} failed), {} market-stream gaps",
        heartbeats.sent, heartbeats.failed, feed.gaps,
    );
    mm.check(
        left,
        heartbeats.failed,
        differs || pnl_differs || position.fees_unknown,
    )
}

/// Unix seconds now.
fn unix_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
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
    /// The fair mid the current quotes were made for.
    quoted_mid: Option<Price>,
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
    refused_unreported: u64,
    cancels: u64,
    fills: u64,
    max_resting: usize,
    max_open_on_exchange: usize,
    max_inventory: Size,
    printed: u64,
    printed_position: Size,
}

impl Stats {
    fn print(&self, mm: &Maker<'_>, client: &Client) {
        let g = client.governor();
        println!(
            "summary    {} re-quotes: {} quotes posted, {} refused as post-only crossers, {} asks \
             refused for shares sold but not yet reported, {} cancelled",
            self.requotes,
            self.posted,
            self.refused_post_only,
            self.refused_unreported,
            self.cancels
        );
        println!(
            "           {} fills, position {} shares (largest {}), at most {} quotes resting \
             ({} seen on the exchange)",
            self.fills,
            mm.held(),
            self.max_inventory,
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

struct Maker<'a> {
    client: &'a Client,
    orders: &'a OrderSigner,
    token: &'a str,
    condition: &'a str,
    params: Params,
    quotes: Quotes,
    stats: Stats,
    /// Our orders, fills, position and P&L.
    tracker: &'a mut Tracker,
}

impl Maker<'_> {
    /// Shares held, by the tracker: confirmed fills, and those still settling (the exchange
    /// has matched them; the inventory limit must count them).
    fn held(&self) -> Size {
        let p = self.tracker.position(self.token).unwrap_or_default();
        let held = p.held().unwrap_or(Size::ZERO);
        held.checked_add(p.pending_buy)
            .unwrap_or(Size::MAX)
            .saturating_sub(p.pending_sell)
    }

    /// The tracker's news: each new fill of ours shrinks its quote.
    fn on_tracker_events(&mut self) {
        for event in self.tracker.take_events() {
            let TrackerEvent::Fill(fill) = event else {
                continue;
            };
            self.stats.fills += 1;
            let slot = self.quotes.slot(fill.side);
            if let Some(q) = slot.as_mut().filter(|q| q.id == fill.order_id) {
                q.remaining = q.remaining.saturating_sub(fill.size);
                if q.remaining.is_zero() {
                    *slot = None;
                }
            }
            // Re-evaluate at once: a quote may be gone, or the position at its limit.
            self.quotes.refill = true;
        }
        self.stats.max_inventory = self.stats.max_inventory.max(self.held());
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
        let fair = Price::new((best_bid.as_micros() + best_ask.as_micros()) / 2).ok_or("mid")?;
        let moved = self
            .quotes
            .quoted_mid
            .is_none_or(|q| q.max(fair).checked_sub(q.min(fair)) >= Some(self.params.requote_move));
        if !moved && !self.quotes.refill {
            return Ok(());
        }
        let edge = self.params.edge;
        let held = self.held();
        // Post-only: never at or through the other side (as the book shows it now). The bid
        // stops at the inventory limit; the ask sells shares held only.
        let bid = fair
            .checked_sub(edge)
            .map(|p| tick.floor(p))
            .zip(best_ask.as_micros().checked_sub(t).and_then(Price::new))
            .map(|(p, under_ask)| p.min(under_ask))
            .filter(|p| tick.in_range(*p) && held < self.params.max_inventory);
        let ask = fair
            .checked_add(edge)
            .map(|p| tick.ceil(p))
            .zip(Price::new(best_bid.as_micros() + t))
            .map(|(p, over_bid)| p.max(over_bid))
            .filter(|p| tick.in_range(*p) && held >= self.params.size);

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
            for ((&(side, price), answer), order) in post.iter().zip(&answers).zip(&signed) {
                // The tracker knows each order from its post, before any fill is reported.
                self.tracker.posted(order, &Ok(answer.clone()));
                if answer.success && !answer.order_id.is_empty() {
                    self.stats.posted += 1;
                    *self.quotes.slot(side) = Some(Quote {
                        id: answer.order_id.clone(),
                        price,
                        remaining: self.params.size,
                    });
                } else if answer.is_post_only_crossing() {
                    // The book moved between our read and the exchange: not a failure.
                    self.stats.refused_post_only += 1;
                } else if side == Side::Sell && answer.error_msg.starts_with("not enough balance") {
                    // The exchange filled our last ask before the user channel told us: the
                    // shares are gone. The fill is on its way and its event re-quotes.
                    self.stats.refused_unreported += 1;
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
            || (self.stats.printed < 16 && self.stats.printed_position != held)
        {
            self.stats.printed += 1;
            self.stats.printed_position = held;
            let px = |q: &Option<Quote>| q.as_ref().map_or("-".into(), |q| q.price.to_string());
            let why = match (bid.is_none(), ask.is_none()) {
                (true, _) if held >= self.params.max_inventory => "  (bid withheld: at the limit)",
                (_, true) if held < self.params.size => "  (no ask: not enough shares held)",
                _ => "",
            };
            println!(
                "re-quote   mid {fair:<6} bid {:<5} ask {:<5} position {held:>4}, {open} open on \
                 the exchange{why}",
                px(&self.quotes.bid),
                px(&self.quotes.ask),
            );
        }
        Ok(())
    }

    /// The invariants this skeleton promises; an error names the first one broken.
    fn check(&self, left_open: usize, heartbeat_failures: u64, books_differ: bool) -> Res<()> {
        let s = &self.stats;
        // A bid placed just under the limit can fill once more: limit + one quote.
        let beyond = self
            .params
            .max_inventory
            .checked_add(self.params.size)
            .is_none_or(|most| s.max_inventory > most);
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
            (beyond, "position beyond the inventory limit"),
            (heartbeat_failures != 0, "a heartbeat failed"),
            (
                books_differ,
                "the tracker's position or P&L differs from the Data API's",
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
