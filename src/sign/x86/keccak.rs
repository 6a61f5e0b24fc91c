//! Keccak-256 with AVX-512: one Keccak-f\[1600\] lane per `xmm` register.
//!
//! # Layout
//!
//! The 25 lanes live in 25 of the 32 `xmm` registers (qword 0 of each; AVX-512VL gives the
//! ternary-logic and rotate instructions at 128 bits). One round is about 100 vector
//! instructions and no shuffle at all:
//!
//! 1. θ: each column parity `C[x]` is a three-way XOR (`vpternlogq`) and two XORs, then
//!    `D[x] = C[x-1] ^ rot(C[x+1], 1)`, and one XOR per lane adds `D[x]`.
//! 2. ρ: one immediate rotate (`vprolq`) per lane.
//! 3. π: free — it only decides which register the next step reads.
//! 4. χ: `B[x] ^ (!B[x+1] & B[x+2])` is one ternary-logic op per lane; ι one XOR.
//!
//! The earlier kernel kept the state in five `zmm` rows and paid ~20 cross-lane shuffles a
//! round (π and a 5×5 transpose), five of them on the dependency chain. On AMD Zen 5 the
//! `keccak256_1_block` bench row went from 281–290 ns with that kernel to 197 ns with this one
//! (BENCHMARKS.md); on Intel Ice Lake a first version of the lane-per-register layout had
//! measured the same as the five rows. The round is written once, in the `round!` macro, with
//! the ρ offsets and the π sources computed from the FIPS 202 tables at compile time.

use core::arch::x86_64::{
    __m128i, _mm_cvtsi64_si128, _mm_cvtsi128_si64, _mm_or_si128, _mm_rol_epi64, _mm_setzero_si128,
    _mm_slli_epi64, _mm_srli_epi64, _mm_ternarylogic_epi64, _mm_xor_si128,
};

use crate::sign::keccak::RATE;

/// The 24 round constants of Keccak-f\[1600\] (FIPS 202 §3.2.5; recomputed from the LFSR in the
/// tests).
pub(super) const ROUND_CONSTANTS: [u64; 24] = [
    0x0000_0000_0000_0001,
    0x0000_0000_0000_8082,
    0x8000_0000_0000_808a,
    0x8000_0000_8000_8000,
    0x0000_0000_0000_808b,
    0x0000_0000_8000_0001,
    0x8000_0000_8000_8081,
    0x8000_0000_0000_8009,
    0x0000_0000_0000_008a,
    0x0000_0000_0000_0088,
    0x0000_0000_8000_8009,
    0x0000_0000_8000_000a,
    0x0000_0000_8000_808b,
    0x8000_0000_0000_008b,
    0x8000_0000_0000_8089,
    0x8000_0000_0000_8003,
    0x8000_0000_0000_8002,
    0x8000_0000_0000_0080,
    0x0000_0000_0000_800a,
    0x8000_0000_8000_000a,
    0x8000_0000_8000_8081,
    0x8000_0000_0000_8080,
    0x0000_0000_8000_0001,
    0x8000_0000_8000_8008,
];

/// ρ rotation offsets `RHO[y][x]` (FIPS 202 §3.2.2; recomputed in the tests).
pub(super) const RHO: [[i64; 5]; 5] = [
    [0, 1, 62, 28, 27],
    [36, 44, 6, 55, 20],
    [3, 10, 43, 25, 39],
    [41, 45, 15, 21, 8],
    [18, 2, 61, 56, 14],
];

/// `vpternlogq` truth tables: `a ^ b ^ c` and `a ^ (!b & c)`.
const XOR3: i32 = 0x96;
const CHI: i32 = 0xd2;

/// The state: lane `A[x, y]` (index `x + 5y`, FIPS 202 §3.1) in qword 0 of register `x + 5y`.
type State = [__m128i; 25];

/// One round of Keccak-f\[1600\] on a `State` held in registers, with round constant `$rc`.
/// A macro rather than a function so that every lane index and rotate count is a constant
/// (a `#[target_feature]` function cannot be `#[inline(always)]`, and a call would send the
/// state through memory).
///
/// Written for register pressure: `vpternlogq` overwrites its first operand, so every input
/// that is still needed costs a register copy, and with 25 lanes live there are few
/// registers to spare. θ's `D[x]` is computed once (5 registers instead of 10 for `C[x-1]`
/// and `rot(C[x+1])`), and the round is produced output row by output row (five `B` lanes,
/// then their χ), so each old lane dies as soon as ρ has read it. On Zen 5 this took
/// `order_hash` from 0.89 µs (the straightforward order: θ for all lanes, then ρ/π for all,
/// then χ for all) to 0.75 µs.
macro_rules! round {
    ($a:ident, $rc:expr) => {{
        let a = &mut $a;
        let xor = |x, y| _mm_xor_si128(x, y);
        // Column parities; the non-destructive XORs first and last save two copies a column.
        let c: [__m128i; 5] = core::array::from_fn(|x| {
            let t = _mm_ternarylogic_epi64::<XOR3>(xor(a[x], a[x + 5]), a[x + 10], a[x + 15]);
            xor(t, a[x + 20])
        });
        // θ: D[x] = C[x-1] ^ rot(C[x+1], 1) goes into every lane of column x.
        let d: [__m128i; 5] =
            core::array::from_fn(|x| xor(c[(x + 4) % 5], _mm_rol_epi64::<1>(c[(x + 1) % 5])));
        let old = *a;
        // θ and ρ for the lane that π moves to B[x, y]: π sends A[x0, y0] to B[y0, 2x0 + 3y0],
        // so B[x, y] comes from A[x + 3y, x].
        macro_rules! theta_rho {
            ($x:literal, $y:literal) => {
                _mm_rol_epi64::<{ RHO[$x][($x + 3 * $y) % 5] as i32 }>(xor(
                    old[($x + 3 * $y) % 5 + 5 * $x],
                    d[($x + 3 * $y) % 5],
                ))
            };
        }
        // One output row: its five B lanes, then χ.
        macro_rules! row {
            ($y:literal) => {
                let b = [
                    theta_rho!(0, $y),
                    theta_rho!(1, $y),
                    theta_rho!(2, $y),
                    theta_rho!(3, $y),
                    theta_rho!(4, $y),
                ];
                for x in 0..5 {
                    a[x + 5 * $y] =
                        _mm_ternarylogic_epi64::<CHI>(b[x], b[(x + 1) % 5], b[(x + 2) % 5]);
                }
            };
        }
        row!(0);
        row!(1);
        row!(2);
        row!(3);
        row!(4);
        // ι
        a[0] = xor(a[0], lane($rc));
    }};
}

/// Keccak-f\[1600\] (24 rounds) on a `State` local. A macro for the same reason as
/// `round!`: each use is one copy of the loop, with the state in registers throughout.
macro_rules! permute {
    ($a:ident) => {
        // Two rounds per iteration (one, two, four and 24 measured within noise of each
        // other on Zen 5).
        for rc in ROUND_CONSTANTS.chunks_exact(2) {
            round!($a, rc[0]);
            round!($a, rc[1]);
        }
    };
}

/// Whether this CPU runs [`keccak256`]'s AVX-512 code (checked once per call; the standard
/// library caches the CPUID result).
pub(crate) fn available() -> bool {
    std::is_x86_feature_detected!("avx512f") && std::is_x86_feature_detected!("avx512vl")
}

/// Keccak-256 of `data`, or `None` when the CPU lacks AVX-512F/VL.
pub(crate) fn keccak256(data: &[u8]) -> Option<[u8; 32]> {
    if !available() {
        return None;
    }
    // SAFETY: AVX-512F and AVX-512VL support were detected at run time just above
    // (`is_x86_feature_detected` also checks that the OS saves the extended register state).
    Some(unsafe { sponge(data) })
}

/// The EIP-712 signing hash `keccak256(0x19 0x01 ‖ domain ‖ keccak256(encoded))`, or `None`
/// when the CPU lacks AVX-512F/VL.
pub(crate) fn eip712_hash(domain: &[u8; 32], encoded: &[u8]) -> Option<[u8; 32]> {
    if !available() {
        return None;
    }
    // SAFETY: AVX-512F and AVX-512VL support were detected just above.
    Some(unsafe { eip712(domain, encoded) })
}

/// A lane from a little-endian qword.
#[target_feature(enable = "avx512f,avx512vl")]
#[inline]
fn lane(q: u64) -> __m128i {
    _mm_cvtsi64_si128(q as i64)
}

/// Little-endian qword `i` of `bytes`.
#[inline]
fn qword(bytes: &[u8], i: usize) -> u64 {
    let mut q = [0u8; 8];
    q.copy_from_slice(&bytes[8 * i..8 * i + 8]);
    u64::from_le_bytes(q)
}

/// The 32-byte digest: lanes 0..4, little-endian.
#[target_feature(enable = "avx512f,avx512vl")]
#[inline]
fn squeeze(a: &State) -> [u8; 32] {
    let mut out = [0u8; 32];
    for (chunk, lane) in out.chunks_exact_mut(8).zip(a) {
        chunk.copy_from_slice(&(_mm_cvtsi128_si64(*lane) as u64).to_le_bytes());
    }
    out
}

/// XORs one 136-byte rate block into lanes 0..17.
#[target_feature(enable = "avx512f,avx512vl")]
#[inline]
fn absorb(a: &mut State, block: &[u8; RATE]) {
    for (i, l) in a.iter_mut().take(RATE / 8).enumerate() {
        *l = _mm_xor_si128(*l, lane(qword(block, i)));
    }
}

/// The sponge: absorb every full block, pad the tail (Keccak's `0x01 … 0x80`, not SHA-3's
/// `0x06`), squeeze 32 bytes.
#[target_feature(enable = "avx512f,avx512vl")]
fn sponge(data: &[u8]) -> [u8; 32] {
    squeeze(&absorb_all(data))
}

/// The second hash of [`eip712_hash`] without a round trip through memory: its one block
/// `0x19 0x01 ‖ domain ‖ h ‖ 0x01 … 0x80` is assembled in registers from the first hash `h`
/// (lanes 0..4). Byte 34 is where `h` starts, so `h` is shifted by two bytes: qword `k` of the
/// block (k = 5..8) is `h[k-4] << 16 | h[k-5] >> 48`, qword 4 the last two domain bytes and
/// `h[0] << 16`.
#[target_feature(enable = "avx512f,avx512vl")]
fn eip712(domain: &[u8; 32], encoded: &[u8]) -> [u8; 32] {
    // Qwords 0..5 of the block before `h` (independent of the first hash, so built while it
    // runs).
    let mut head = [0u8; 40];
    head[0] = 0x19;
    head[1] = 0x01;
    head[2..34].copy_from_slice(domain);
    let h = absorb_all(encoded);
    let up = |l: __m128i| _mm_slli_epi64::<16>(l);
    let down = |l: __m128i| _mm_srli_epi64::<48>(l);
    let zero = _mm_setzero_si128();
    let mut a = [zero; 25];
    for (i, l) in a.iter_mut().take(4).enumerate() {
        *l = lane(qword(&head, i));
    }
    a[4] = _mm_or_si128(lane(qword(&head, 4)), up(h[0]));
    a[5] = _mm_or_si128(up(h[1]), down(h[0]));
    a[6] = _mm_or_si128(up(h[2]), down(h[1]));
    a[7] = _mm_or_si128(up(h[3]), down(h[2]));
    // The 0x01 padding byte is byte 66 = qword 8, byte 2.
    a[8] = _mm_or_si128(down(h[3]), lane(1 << 16));
    // The 0x80 padding byte: byte 135 = qword 16, top byte.
    a[16] = lane(1 << 63);
    permute!(a);
    squeeze(&a)
}

/// Absorbs `data` with Keccak padding and returns the state (the digest is lanes 0..4).
#[target_feature(enable = "avx512f,avx512vl")]
#[inline]
fn absorb_all(data: &[u8]) -> State {
    let (blocks, tail) = data.as_chunks::<RATE>();
    let mut last = [0u8; RATE];
    last[..tail.len()].copy_from_slice(tail);
    last[tail.len()] ^= 0x01;
    last[RATE - 1] ^= 0x80;
    let mut a = [_mm_setzero_si128(); 25];
    // One loop over the full blocks and the padded last one, so the permutation is expanded
    // once here.
    for block in blocks.iter().chain(core::iter::once(&last)) {
        absorb(&mut a, block);
        permute!(a);
    }
    a
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The round constants from the LFSR of FIPS 202 §3.2.5 (`rc(t)`, x⁸+x⁶+x⁵+x⁴+1).
    #[test]
    fn round_constants_follow_the_lfsr() {
        let rc_bit = |t: usize| {
            let mut r: u16 = 1;
            for _ in 0..t % 255 {
                r <<= 1;
                if r & 0x100 != 0 {
                    r ^= 0x171;
                }
            }
            u64::from(r & 1)
        };
        for (round, &want) in ROUND_CONSTANTS.iter().enumerate() {
            let mut rc = 0u64;
            for j in 0..7 {
                rc |= rc_bit(j + 7 * round) << ((1 << j) - 1);
            }
            assert_eq!(rc, want, "round {round}");
        }
    }

    /// The ρ offsets from FIPS 202 §3.2.2: walk (x, y) ← (y, 2x + 3y) from (1, 0).
    #[test]
    fn rho_offsets_follow_the_walk() {
        let mut want = [[0i64; 5]; 5];
        let (mut x, mut y) = (1usize, 0usize);
        for t in 0..24 {
            want[y][x] = ((t + 1) * (t + 2) / 2 % 64) as i64;
            (x, y) = (y, (2 * x + 3 * y) % 5);
        }
        assert_eq!(RHO, want);
    }
}
