//! Fork safety of the precomputed-nonce pool (feature `presign`, Unix).
//!
//! A child created by `fork()` must never sign with an entry its parent generated: two
//! signatures over different digests with one nonce reveal the private key. This binary has no
//! test harness (`harness = false`), so each fork happens in a process whose only thread is
//! `main` — except where a scenario starts a refill thread on purpose.
//!
//! Each scenario forks; parent and child sign different digests; the child sends its
//! signatures back over a socket; the parent checks that no `r` appears on both sides, that the
//! child's first signature is RFC 6979 (its inherited pool is empty), and that the child then
//! signs from entries of its own.

#[cfg(all(unix, feature = "presign"))]
fn main() {
    scenarios::run();
}

#[cfg(not(all(unix, feature = "presign")))]
fn main() {
    println!("presign_fork: skipped (needs Unix and feature `presign`)");
}

// The test forks and waits through libc.
#[cfg(all(unix, feature = "presign"))]
#[allow(unsafe_code)]
mod scenarios {
    use std::collections::HashSet;
    use std::io::{Read, Write};
    use std::os::unix::net::UnixStream;
    use std::time::{Duration, Instant};

    use alloy_primitives::keccak256;
    use polyclob::sign::eip712::recover_address;
    use polyclob::sign::presign::{NoncePool, PoolConfig, Refill};
    use polyclob::sign::{Signature, Signer};

    const KEY: &str = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
    const DEPTH: usize = 32;

    fn digest(tag: &str, i: usize) -> [u8; 32] {
        keccak256(format!("{tag}-{i}")).0
    }

    fn r_of(sig: &Signature) -> [u8; 32] {
        sig.as_bytes()[..32].try_into().expect("65-byte signature")
    }

    /// What the child reports: `ok` or the failed check, then its pooled signatures' `r`.
    fn child(signer: &Signer, pool: &NoncePool, refill: Refill) -> Result<Vec<[u8; 32]>, String> {
        let plain = Signer::from_hex(KEY).map_err(|e| e.to_string())?;

        // First touch of the pool in the child is a signature: the inherited pool must be
        // empty, so this is RFC 6979 (the same bytes a signer without a pool makes), counted
        // as a fallback. (Any touch detects the fork, `stats()` included.)
        let d0 = digest("child-first", 0);
        let first = signer.sign_prehash(&d0).map_err(|e| e.to_string())?;
        let want = plain.sign_prehash(&d0).map_err(|e| e.to_string())?;
        if first != want {
            return Err("the child's first signature used an inherited nonce".into());
        }
        let after = pool.stats();
        // The parent had a full pool, no fork and no fallback when it forked. With
        // wipe-on-fork the kernel gave the child zeroed slots, so nothing was left to discard;
        // without it the child's copy was found and zeroized.
        let inherited = if pool.wiped_on_fork() {
            0
        } else {
            DEPTH as u64
        };
        // With a refill thread, the child's respawned thread may already have made entries of
        // its own (never the parent's: the r sets are checked disjoint below); with manual
        // refill nothing can be there yet.
        let own_refill = if matches!(refill, Refill::Manual) {
            0
        } else {
            after.available
        };
        if (
            after.forks,
            after.fallbacks,
            after.discarded,
            after.available,
        ) != (1, 1, inherited, own_refill)
        {
            return Err(format!(
                "after the first signature: {after:?}, expected forks 1, fallbacks 1, \
                 discarded {inherited}, available {own_refill} (the child's own refill)"
            ));
        }

        // The child's own entries.
        match refill {
            Refill::Manual => {
                let made = pool.refill();
                if made != DEPTH {
                    return Err(format!("child refilled {made} of {DEPTH}"));
                }
            }
            _ => wait_full(pool, "child's own refill thread")?,
        }
        let mut rs = Vec::new();
        for i in 0..DEPTH {
            let d = digest("child", i);
            let sig = signer.sign_prehash(&d).map_err(|e| e.to_string())?;
            if recover_address(&d, &sig).map_err(|e| e.to_string())? != signer.address() {
                return Err("a child signature does not recover to the signer".into());
            }
            rs.push(r_of(&sig));
        }
        let stats = pool.stats();
        if stats.fallbacks != after.fallbacks {
            return Err(format!("child fell back after its refill: {stats:?}"));
        }
        Ok(rs)
    }

    fn wait_full(pool: &NoncePool, what: &str) -> Result<(), String> {
        let deadline = Instant::now() + Duration::from_secs(20);
        while pool.stats().available < DEPTH {
            if Instant::now() > deadline {
                return Err(format!("{what} never filled the pool: {:?}", pool.stats()));
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        Ok(())
    }

    fn encode(result: &Result<Vec<[u8; 32]>, String>) -> Vec<u8> {
        match result {
            Ok(rs) => {
                let mut out = b"ok\n".to_vec();
                for r in rs {
                    out.extend_from_slice(r);
                }
                out
            }
            Err(e) => format!("err {e}\n").into_bytes(),
        }
    }

    fn decode(bytes: &[u8]) -> Result<Vec<[u8; 32]>, String> {
        if let Some(rest) = bytes.strip_prefix(b"ok\n") {
            if rest.len() % 32 != 0 {
                return Err(format!("child sent {} bytes of r values", rest.len()));
            }
            return Ok(rest
                .chunks(32)
                .map(|c| c.try_into().expect("32-byte chunk"))
                .collect());
        }
        Err(String::from_utf8_lossy(bytes).into_owned())
    }

    /// Forks; the child runs [`child`] and exits; the parent signs its own digests and checks.
    fn scenario(name: &str, refill: Refill) {
        let pool = NoncePool::new(PoolConfig::new().depth(DEPTH).refill(refill));
        match refill {
            Refill::Manual => assert_eq!(pool.refill(), DEPTH),
            _ => wait_full(&pool, "the parent's refill thread").unwrap(),
        }
        let signer = Signer::from_hex(KEY)
            .unwrap()
            .with_nonce_pool(pool.clone())
            .unwrap();
        let (mut parent_end, mut child_end) = UnixStream::pair().unwrap();

        // SAFETY: `fork` has no preconditions; the child only runs this crate's code and
        // leaves through `_exit`, never returning into the parent's flow.
        let pid = unsafe { libc::fork() };
        assert!(pid >= 0, "fork failed");
        if pid == 0 {
            drop(parent_end);
            let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                child(&signer, &pool, refill)
            }))
            .unwrap_or_else(|_| Err("child panicked".into()));
            let code = i32::from(result.is_err());
            let _ = child_end.write_all(&encode(&result));
            drop(child_end);
            // SAFETY: ends the child at once, without running the parent's exit handlers.
            unsafe { libc::_exit(code) };
        }
        drop(child_end);

        // The parent signs different digests with the entries it generated before the fork.
        let mut parent_rs = HashSet::new();
        for i in 0..DEPTH {
            let d = digest("parent", i);
            let sig = signer.sign_prehash(&d).unwrap();
            assert_eq!(recover_address(&d, &sig).unwrap(), signer.address());
            parent_rs.insert(r_of(&sig));
        }
        let stats = pool.stats();
        assert_eq!(
            stats.forks, 0,
            "{name}: the parent is not a fork: {stats:?}"
        );
        assert_eq!(stats.fallbacks, 0, "{name}: the parent's pool was full");

        let mut reply = Vec::new();
        parent_end.read_to_end(&mut reply).unwrap();
        let mut status = 0;
        // SAFETY: waits for the child forked above.
        let waited = unsafe { libc::waitpid(pid, &mut status, 0) };
        assert_eq!(waited, pid);
        let child_rs = decode(&reply).unwrap_or_else(|e| panic!("{name}: child: {e}"));
        assert!(
            libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
            "{name}: child exit status {status}"
        );
        assert_eq!(child_rs.len(), DEPTH, "{name}");
        assert_eq!(parent_rs.len(), DEPTH, "{name}: the parent repeated an r");
        let child_set: HashSet<_> = child_rs.iter().copied().collect();
        assert_eq!(child_set.len(), DEPTH, "{name}: the child repeated an r");
        assert!(
            parent_rs.is_disjoint(&child_set),
            "{name}: parent and child signed with the same nonce"
        );
        println!(
            "presign_fork {name}: ok ({DEPTH} parent and {DEPTH} child signatures, no shared r; \
             wiped_on_fork: {})",
            pool.wiped_on_fork()
        );
    }

    /// A fork of a fork: the grandchild discards the child's entries too.
    fn nested() {
        let pool = NoncePool::new(PoolConfig::new().depth(DEPTH).refill(Refill::Manual));
        pool.refill();
        let (mut parent_end, mut child_end) = UnixStream::pair().unwrap();
        // SAFETY: as in `scenario`.
        let pid = unsafe { libc::fork() };
        assert!(pid >= 0, "fork failed");
        if pid == 0 {
            drop(parent_end);
            let result = std::panic::catch_unwind(|| {
                pool.refill(); // the child's own entries (after discarding the parent's)
                let child_forks = pool.stats().forks;
                // SAFETY: as above.
                let grand = unsafe { libc::fork() };
                if grand == 0 {
                    let ok = pool.stats().available == 0 && pool.stats().forks == child_forks + 1;
                    // SAFETY: as above.
                    unsafe { libc::_exit(i32::from(!ok)) };
                }
                let mut status = 0;
                // SAFETY: waits for the grandchild forked above.
                unsafe { libc::waitpid(grand, &mut status, 0) };
                child_forks == 1
                    && pool.stats().available == DEPTH
                    && libc::WIFEXITED(status)
                    && libc::WEXITSTATUS(status) == 0
            })
            .unwrap_or(false);
            let _ = child_end.write_all(if result { b"ok" } else { b"no" });
            // SAFETY: as above.
            unsafe { libc::_exit(0) };
        }
        drop(child_end);
        let mut reply = Vec::new();
        parent_end.read_to_end(&mut reply).unwrap();
        // SAFETY: waits for the child forked above.
        unsafe { libc::waitpid(pid, &mut 0, 0) };
        assert_eq!(
            reply, b"ok",
            "nested fork: the grandchild kept its parent's entries"
        );
        assert_eq!(
            pool.stats().available,
            DEPTH,
            "the parent's pool is untouched"
        );
        println!("presign_fork nested: ok");
    }

    pub(super) fn run() {
        scenario("manual refill", Refill::Manual);
        nested();
        // Last: this one leaves a refill thread running in the parent.
        scenario("refill thread", Refill::Thread);
        println!("presign_fork: 3 passed, 0 failed");
    }
}
