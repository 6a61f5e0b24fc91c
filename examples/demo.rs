//! polyclob end to end, in seconds and offline.
//!
//! ```text
//! cargo run --release --example demo            # embedded simulator, no network
//! cargo run --release --example demo -- --live  # read-only against clob.polymarket.com
//! POLYCLOB_PRIVATE_KEY=0x… cargo run --release --example demo -- --live --trade
//! ```
//!
//! Offline it starts the simulator (seeded, with simulated traders so books move), connects
//! the REST client and the market stream, streams a few books, creates an API key with an
//! L1 signature, places a signed post-only limit order far from the market, sees it in the
//! open orders and on the user channel, cancels it, and prints where the time went.
//!
//! `--live` reads a markets page, streams a few books for ~10 s and prints the same summary.
//! It trades only with `--trade` and `POLYCLOB_PRIVATE_KEY` (an EOA key; API credentials come
//! from `POLYCLOB_API_KEY`/`POLYCLOB_API_SECRET`/`POLYCLOB_API_PASSPHRASE` or are derived with
//! L1), and then only one small post-only BUY at the lowest tick, cancelled at once.

use std::error::Error as StdError;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use polyclob::account::user_events::UserStream;
use polyclob::book::{BookManager, Outcome};
use polyclob::clob::ApiKeyNonce;
use polyclob::clob::{Client, ClientBuilder, Credentials, MarketList, OrderFilter};
use polyclob::fixed::{Amount, Price, Size};
use polyclob::order::{LimitOrder, MarketContext, OrderSigner};
use polyclob::sign::Signer;
use polyclob::sign::wallet::Wallet;
use polyclob::types::{Chain, Side};
use polyclob::ws::event::Status;
use polyclob::ws::feed::{Cx, FeedEvent, FrameStream, Handler};
use polyclob::ws::market::{MarketFeed, MarketMessage, MarketStream};
use polyclob_sim::Simulator;

type Res<T> = Result<T, Box<dyn StdError + Send + Sync>>;

/// Hardhat account #0: a public test key, never funded. Used only against the simulator.
const TEST_KEY: &str = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
const LIVE_WS: &str = "wss://ws-subscriptions-clob.polymarket.com/ws/market";
const BOOKS: usize = 3;
/// Place/cancel cycles timed for the build → signed → posted summary.
const CYCLES: usize = 20;

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> ExitCode {
    let mut live = false;
    let mut trade = false;
    for arg in std::env::args().skip(1) {
        match arg.as_str() {
            "--live" => live = true,
            "--trade" => trade = true,
            _ => {
                eprintln!("usage: demo [--live [--trade]]  (unknown argument {arg:?})");
                return ExitCode::from(2);
            }
        }
    }
    let result = match (live, trade) {
        (false, true) => Err("--trade needs --live (offline mode always trades)".into()),
        (false, false) => offline().await,
        (true, _) => live_run(trade).await,
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("demo failed: {e}");
            ExitCode::FAILURE
        }
    }
}

async fn offline() -> Res<()> {
    let t0 = Instant::now();
    let sim = Simulator::builder()
        .seed(7)
        .activity(Some(Duration::from_millis(5)))
        .start()
        .await?;
    println!(
        "simulator  {} (seed 7, simulated traders on)",
        sim.http_url()
    );
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
        // Orders and cancels on kept-alive HTTP/1.1 connections of their own.
        .order_lane(true)
        .build()?;
    let (tokens, conditions) = pick_markets(&client).await?;
    let mut stages = Stages::default();
    let books = stream_books(
        &sim.market_ws_url(),
        &tokens,
        Duration::from_millis(1500),
        &mut stages,
    )
    .await?;

    // L1: the key signs a ClobAuth message; the server answers with L2 credentials.
    let creds = client.create_api_key(ApiKeyNonce::ZERO).await?;
    println!("api key    {} (created with L1)", creds.api_key());
    client.set_credentials(creds.clone());
    let mut user = UserStream::builder(creds.clone())
        .url(sim.user_ws_url())
        .markets(conditions.iter().take(1).cloned())
        .frames()
        .build()?;
    wait_connected(&mut user).await?;

    let orders = OrderSigner::new(signer, Chain::Polygon, Wallet::Eoa)?;
    let token = &tokens[0];
    let ctx = client.market_context(token).await?; // tick, neg-risk, version: fetched, cached
    let tick = ctx.tick().as_price().as_micros();
    let bid = books
        .book(token)
        .and_then(|b| b.best_bid())
        .map_or(0, |l| l.price.as_micros());
    // Ten ticks under the best bid (at least one tick): post-only and far from the market.
    let price = Price::new(bid.saturating_sub(10 * tick).max(tick)).ok_or("price out of range")?;
    let size = Size::from_micros(10_000_000);
    place_observe_cancel(
        &client,
        &orders,
        &ctx,
        price,
        size,
        Some(&mut user),
        &mut stages,
    )
    .await?;
    println!(
        "cycles     {} more post → cancel cycles for the timings",
        CYCLES - 1
    );
    for _ in 1..CYCLES {
        let id = place(&client, &orders, &ctx, price, size, &mut stages).await?;
        cancel(&client, &id).await?;
    }
    stages.print();
    println!("done in {:.2} s", t0.elapsed().as_secs_f64());
    Ok(())
}

async fn live_run(trade: bool) -> Res<()> {
    let t0 = Instant::now();
    let key = std::env::var("POLYCLOB_PRIVATE_KEY").ok();
    if trade && key.is_none() {
        return Err("--trade needs POLYCLOB_PRIVATE_KEY in the environment".into());
    }
    let mut builder = ClientBuilder::new(); // https://clob.polymarket.com
    let signer = match (&key, trade) {
        (Some(k), true) => Some(Signer::from_hex(k.trim())?),
        _ => None,
    };
    if let Some(s) = &signer {
        builder = builder.signer(s.clone());
    }
    let client = builder.build()?;
    println!("live       server time {}", client.server_time().await?);
    let (tokens, _) = pick_markets(&client).await?;
    let mut stages = Stages::default();
    stream_books(LIVE_WS, &tokens, Duration::from_secs(10), &mut stages).await?;
    if let Some(signer) = signer {
        let creds = match live_creds() {
            Some(c) => c,
            None => client.create_or_derive_api_key(ApiKeyNonce::ZERO).await?,
        };
        client.set_credentials(creds);
        let orders = OrderSigner::new(signer, Chain::Polygon, Wallet::Eoa)?;
        let ctx = client.market_context(&tokens[0]).await?;
        // A BUY at the lowest tick never crosses; post-only makes sure of it.
        let price = ctx.tick().as_price();
        let size = Size::from_micros(5_000_000);
        place_observe_cancel(&client, &orders, &ctx, price, size, None, &mut stages).await?;
    } else {
        println!(
            "trading    off (read-only; --trade with POLYCLOB_PRIVATE_KEY to place one order)"
        );
    }
    stages.print();
    println!("done in {:.2} s", t0.elapsed().as_secs_f64());
    Ok(())
}

fn live_creds() -> Option<Credentials> {
    let v = |k| std::env::var(k).ok();
    Some(Credentials::new(
        v("POLYCLOB_API_KEY")?,
        v("POLYCLOB_API_SECRET")?,
        v("POLYCLOB_API_PASSPHRASE")?,
    ))
}

/// First page of markets → the first token of up to [`BOOKS`] tradable markets.
async fn pick_markets(client: &Client) -> Res<(Vec<String>, Vec<String>)> {
    let t = Instant::now();
    let page = client.markets(MarketList::Sampling, None).await?;
    let picked: Vec<_> = page
        .data
        .iter()
        .filter(|m| m.active && !m.closed && m.enable_order_book)
        .filter_map(|m| {
            Some((
                m.tokens.first()?.token_id.to_string(),
                m.condition_id.to_string(),
            ))
        })
        .take(BOOKS)
        .collect();
    // Open-order queries by token need the token's market too (from 2026-12-14).
    for (token, condition) in &picked {
        client.set_token_market(token, condition);
    }
    println!(
        "markets    {} on the first page in {} µs; streaming {} books",
        page.data.len(),
        t.elapsed().as_micros(),
        picked.len()
    );
    if picked.is_empty() {
        return Err("no active market with an order book on the first page".into());
    }
    Ok(picked.into_iter().unzip())
}

/// The zero-copy handler tier: counts book events that changed a book, and times each frame
/// from the connection's task taking it off the socket to its books updated (the handler is
/// called after each element was applied; the frame's first element is timed).
struct Timed<'a> {
    applied: u64,
    last: Option<Instant>,
    stages: &'a mut Stages,
}

impl Handler<MarketFeed> for Timed<'_> {
    fn on_message(&mut self, msg: &MarketMessage<'_>, cx: &Cx<'_, MarketFeed>) {
        if let MarketMessage::Update(u) = msg {
            self.applied += u64::from(u.outcome == Outcome::Applied);
        }
        let Some(received) = cx.frame().map(|f| f.received_at()) else {
            return;
        };
        if self.last != Some(received) {
            self.last = Some(received);
            self.stages.frame_to_book.push(received.elapsed());
        }
    }
}

async fn stream_books(
    url: &str,
    tokens: &[String],
    run: Duration,
    stages: &mut Stages,
) -> Res<BookManager> {
    let mut stream = MarketStream::builder()
        .url(url)
        .assets(tokens.iter().cloned())
        .build()?;
    let mut timed = Timed {
        applied: 0,
        last: None,
        stages,
    };
    let start = tokio::time::Instant::now();
    let step = run / 3;
    for round in 1..=3u32 {
        let until = start + step * round;
        loop {
            match tokio::time::timeout_at(until, stream.dispatch(&mut timed)).await {
                Ok(true) => {}
                Ok(false) => return Err("market stream ended".into()),
                Err(_) => break, // time to print
            }
        }
        println!("books at {:>5} ms:", (until - start).as_millis());
        for t in tokens {
            print_book(stream.state(), t);
        }
    }
    stream.handle().shutdown();
    let frames = timed.stages.frame_to_book.len();
    println!(
        "stream     {frames} frames, {} book events applied",
        timed.applied
    );
    if frames == 0 {
        return Err("no frame received on the market stream".into());
    }
    Ok(std::mem::take(stream.books_mut()))
}

fn print_book(books: &BookManager, token: &str) {
    let short = format!(
        "{}…{}",
        &token[..token.len().min(6)],
        &token[token.len().saturating_sub(4)..]
    );
    let Some(b) = books.book(token) else {
        println!("  {short:<12} (no snapshot yet)");
        return;
    };
    let lvl = |l: Option<polyclob::decode::Level>| {
        l.map_or("-".to_owned(), |l| format!("{} x {}", l.price, l.size))
    };
    let spread = b
        .spread_micros()
        .map_or("-".to_owned(), |s| Amount::from_micros(s).to_string());
    println!(
        "  {short:<12} bid {:<14} ask {:<14} spread {spread:<6} depth {}/{} levels",
        lvl(b.best_bid()),
        lvl(b.best_ask()),
        b.len(Side::Buy),
        b.len(Side::Sell)
    );
}

async fn wait_connected(user: &mut FrameStream) -> Res<()> {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    loop {
        match tokio::time::timeout_at(deadline, user.next_event()).await {
            Ok(Some(FeedEvent::Status(Status::Connected { .. }))) => return Ok(()),
            Ok(Some(_)) => {}
            Ok(None) => return Err("user stream ended".into()),
            Err(_) => return Err("user stream: not connected after 5 s".into()),
        }
    }
}

/// Build → sign → post one order, timing each stage. Returns the order id.
async fn place(
    client: &Client,
    orders: &OrderSigner,
    ctx: &MarketContext,
    price: Price,
    size: Size,
    st: &mut Stages,
) -> Res<String> {
    let t0 = Instant::now();
    let req = LimitOrder::new(Side::Buy, price, size).post_only(true);
    let t1 = Instant::now();
    let signed = orders.limit_order(ctx, &req)?;
    let t2 = Instant::now();
    let resp = client.post_order(&signed).await?;
    let t3 = Instant::now();
    st.build.push(t1 - t0);
    st.sign.push(t2 - t1);
    st.post.push(t3 - t2);
    if !resp.success || resp.order_id.is_empty() {
        return Err(format!("order refused: {} ({})", resp.error_msg, resp.status).into());
    }
    Ok(resp.order_id)
}

async fn cancel(client: &Client, id: &str) -> Res<()> {
    let r = client.cancel(id).await?;
    if !r.canceled.iter().any(|c| c == id) {
        return Err(format!("order {id} not cancelled: {:?}", r.not_canceled).into());
    }
    Ok(())
}

async fn place_observe_cancel(
    client: &Client,
    orders: &OrderSigner,
    ctx: &MarketContext,
    price: Price,
    size: Size,
    user: Option<&mut FrameStream>,
    st: &mut Stages,
) -> Res<String> {
    let token = ctx.token_id().to_string();
    let id = place(client, orders, ctx, price, size, st).await?;
    let sent = Instant::now();
    println!(
        "order      BUY {size} @ {price} post-only → {}…",
        &id[..id.len().min(18)]
    );
    let o = client.order(&id).await?;
    let open = client
        .orders(
            &OrderFilter {
                asset_id: Some(token),
                ..OrderFilter::default()
            },
            None,
        )
        .await?;
    let listed = open.data.iter().any(|x| x.id == id);
    println!(
        "observed   GET /data/order: {:?}; in open orders: {listed}",
        o.status
    );
    if !listed {
        return Err("the order is missing from the open orders".into());
    }
    if let Some(user) = user {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
        loop {
            match tokio::time::timeout_at(deadline, user.next_event()).await {
                Ok(Some(FeedEvent::Message(f))) if f.as_str().is_some_and(|s| s.contains(&id)) => {
                    break;
                }
                Ok(Some(_)) => {}
                Ok(None) => return Err("user stream ended".into()),
                Err(_) => return Err("no user-channel event for the order within 5 s".into()),
            }
        }
        st.user_event = Some(sent.elapsed());
        println!("observed   user channel `order` event (PLACEMENT)");
    }
    cancel(client, &id).await?;
    println!("cancelled  DELETE /order ok");
    Ok(id)
}

#[derive(Default)]
struct Stages {
    frame_to_book: Vec<Duration>,
    build: Vec<Duration>,
    sign: Vec<Duration>,
    post: Vec<Duration>,
    user_event: Option<Duration>,
}

impl Stages {
    fn print(&mut self) {
        println!("latency (µs)              n        p50  p99 (=max when n<100)");
        row("socket → book updated", &mut self.frame_to_book);
        row("build (order args)", &mut self.build);
        row("build → signed", &mut self.sign);
        row("signed → posted", &mut self.post);
        if let Some(d) = self.user_event {
            println!(
                "  posted → user event (1 sample) {:>9.1}",
                d.as_secs_f64() * 1e6
            );
        }
    }
}

fn row(name: &str, v: &mut [Duration]) {
    if v.is_empty() {
        return;
    }
    v.sort_unstable();
    let q = |p: f64| v[((v.len() - 1) as f64 * p).round() as usize].as_secs_f64() * 1e6;
    println!(
        "  {name:<20} {:>5} {:>10.1} {:>10.1}",
        v.len(),
        q(0.50),
        q(0.99)
    );
}
