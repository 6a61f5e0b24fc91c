//! The transport floor under `ws_end_to_end`: loopback TCP with no WebSocket, no runtime and no
//! decoding. A server thread writes a 64-byte message every 1 ms stamped with the time just
//! before its write, and notes the time its write returned (on loopback the kernel has then
//! queued the bytes on the client's socket); the client reads it with a blocking read (the
//! thread sleeps, as every client's reactor does) or spins on a non-blocking read, and records
//! arrival − stamp, and arrival − return ("in socket", 0 when the read won the race). No client
//! can beat this on the same machine; rows of `ws_end_to_end` read against it. A Unix socket
//! pair, read the same two ways, shows how much of that floor is the TCP/IP stack.
//!
//!     cargo bench --manifest-path benches/peers/Cargo.toml --bench transport_floor
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::os::unix::net::UnixStream;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Loopback TCP with `TCP_NODELAY`, as every client here uses.
fn tcp_pair() -> (TcpStream, TcpStream) {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let c = TcpStream::connect(l.local_addr().unwrap()).unwrap();
    let (s, _) = l.accept().unwrap();
    s.set_nodelay(true).unwrap();
    c.set_nodelay(true).unwrap();
    (s, c)
}

fn run(spin: bool, n: usize, gap: Duration, sender_sleeps: bool) -> Latencies {
    let (s, c) = tcp_pair();
    c.set_nonblocking(spin).unwrap();
    stamp_and_read(s, c, n, gap, sender_sleeps)
}

/// The same over a Unix socket pair: the machine's floor for a wake-up between two threads
/// without the TCP/IP stack (no exchange feed comes this way; it shows what TCP costs here).
fn run_unix(spin: bool, n: usize) -> Latencies {
    let (s, c) = UnixStream::pair().unwrap();
    c.set_nonblocking(spin).unwrap();
    stamp_and_read(s, c, n, Duration::from_millis(1), false)
}

/// Nanoseconds from the stamp before the write, and from the write's return, to the read.
struct Latencies {
    from_write: Vec<u64>,
    in_socket: Vec<u64>,
}

fn stamp_and_read<S: Read + Write + Send + 'static>(
    mut s: S,
    mut c: S,
    n: usize,
    gap: Duration,
    sender_sleeps: bool,
) -> Latencies {
    let base = Instant::now();
    let written: Arc<Vec<AtomicU64>> = Arc::new((0..n).map(|_| AtomicU64::new(0)).collect());
    let returned = Arc::clone(&written);
    let srv = std::thread::spawn(move || {
        let mut next = Instant::now() + Duration::from_millis(50);
        for i in 0..n {
            if sender_sleeps {
                std::thread::sleep(gap);
            }
            while !sender_sleeps && Instant::now() < next {
                let left = next - Instant::now();
                if left > Duration::from_micros(200) {
                    std::thread::sleep(left - Duration::from_micros(100));
                }
            }
            let mut msg = [0u8; 64];
            let t = base.elapsed().as_nanos() as u64;
            msg[..8].copy_from_slice(&t.to_le_bytes());
            msg[8..16].copy_from_slice(&(i as u64).to_le_bytes());
            s.write_all(&msg).unwrap();
            returned[i].store(base.elapsed().as_nanos() as u64, Ordering::Release);
            next += gap;
        }
        s
    });
    let mut out = Vec::with_capacity(n);
    let mut arrived = Vec::with_capacity(n);
    let mut buf = [0u8; 64];
    let mut have = 0;
    while out.len() < n {
        match c.read(&mut buf[have..]) {
            Ok(0) => break,
            Ok(k) => {
                have += k;
                if have == 64 {
                    let now = base.elapsed().as_nanos() as u64;
                    let t = u64::from_le_bytes(buf[..8].try_into().unwrap());
                    out.push(now - t);
                    arrived.push((u64::from_le_bytes(buf[8..16].try_into().unwrap()), now));
                    have = 0;
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => std::hint::spin_loop(),
            Err(e) => panic!("{e}"),
        }
    }
    srv.join().unwrap();
    let in_socket = arrived
        .iter()
        .map(|&(i, now)| now.saturating_sub(written[i as usize].load(Ordering::Acquire)))
        .collect();
    Latencies {
        from_write: out,
        in_socket,
    }
}

impl Latencies {
    /// Percentiles of both clocks, microseconds.
    fn summary(mut self) -> String {
        format!(
            "p50 {:.1} µs  p99 {:.1} µs  p99.9 {:.1} µs; in socket p50 {:.1} µs  p99 {:.1} µs",
            pct(&mut self.from_write, 0.5),
            pct(&mut self.from_write, 0.99),
            pct(&mut self.from_write, 0.999),
            pct(&mut self.in_socket, 0.5),
            pct(&mut self.in_socket, 0.99)
        )
    }
}

fn pct(v: &mut [u64], p: f64) -> f64 {
    v.sort_unstable();
    v[((v.len() as f64 - 1.0) * p) as usize] as f64 / 1000.0
}

fn main() {
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!(
        "transport_floor: load average {}",
        load.split_whitespace()
            .take(3)
            .collect::<Vec<_>>()
            .join(" ")
    );
    for (name, spin) in [("blocking read", false), ("spinning read", true)] {
        let v = run(spin, 5000, Duration::from_millis(1), false);
        println!("{name:14} 1000 msg/s: {}", v.summary());
    }
    for (name, spin) in [("blocking read", false), ("spinning read", true)] {
        let v = run_unix(spin, 5000);
        println!("{name:14} 1000 msg/s, Unix socket: {}", v.summary());
    }
    // tick_to_trade's pace: one message after 30 ms of idle, what each of its two legs meets.
    // "sender sleeps": the sender sleeps the whole gap and writes as soon as it wakes (as
    // tick_to_trade's servers do); otherwise it spins the last 100 µs before its write.
    for (name, spin, sleeps) in [
        ("blocking read ", false, false),
        ("spinning read ", true, false),
        ("blocking read , sender sleeps", false, true),
        ("spinning read , sender sleeps", true, true),
    ] {
        let mut v = run(spin, 400, Duration::from_millis(30), sleeps).from_write;
        println!(
            "{name} one per 30 ms: p50 {:.1} µs  p99 {:.1} µs",
            pct(&mut v, 0.5),
            pct(&mut v, 0.99)
        );
    }
}
