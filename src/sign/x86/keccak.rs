//! Keccak-256 with AVX-512: the whole Keccak-f\[1600\] state lives in five `zmm` registers.
//!
//! # Layout
//!
//! Lane `A[x, y]` (lane index `x + 5y` of the state, FIPS 202 §3.1) sits in register `y`, qword
//! `x` ("rows"); qwords 5..7 carry garbage that never flows into qwords 0..4 (every permute
//! below reads only qwords 0..4 of a row, and the rows are rebuilt from qwords 0..4 only).
//! One round:
//!
//! 1. θ: the column parities `C` are the XOR of the five rows (two three-way XORs); `D` needs
//!    `C` shifted by one qword each way (two permutes); each row gets `row ^ C[x-1] ^
//!    rot(C[x+1], 1)` in one three-way XOR.
//! 2. ρ: one variable rotate per row.
//! 3. π: `B[y, 2x+3y] = A[x, y]` sends row `y` of `A` to column `y` of `B`, so one permute
//!    per row turns rows into columns (register `x` holds `B[x, 0..5]`).
//! 4. χ: with columns in registers, `B[x] ^ (!B[x+1] & B[x+2])` is one ternary-logic op per
//!    register, no shuffles; ι XORs the round constant into column 0.
//! 5. A 5×5 transpose (unpack, then two levels of two-source permutes) turns the columns back
//!    into rows. Column 0 (the one ι touched) joins only in the last level, so ι costs no
//!    latency.

use core::arch::x86_64::{
    __m512i, _mm512_mask_storeu_epi64, _mm512_maskz_loadu_epi64, _mm512_maskz_permutexvar_epi64,
    _mm512_maskz_set1_epi64, _mm512_or_si512, _mm512_permutex2var_epi64, _mm512_permutexvar_epi64,
    _mm512_rol_epi64, _mm512_rolv_epi64, _mm512_set_epi64, _mm512_setzero_si512, _mm512_slli_epi64,
    _mm512_srli_epi64, _mm512_ternarylogic_epi64, _mm512_unpackhi_epi64, _mm512_unpacklo_epi64,
    _mm512_xor_si512,
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

/// Qwords 0..4: a row or column of the state.
const ROW: u8 = 0x1f;

/// Whether this CPU runs [`keccak256`]'s AVX-512 code (checked once per call; the standard
/// library caches the CPUID result).
pub(crate) fn available() -> bool {
    std::is_x86_feature_detected!("avx512f")
}

/// Keccak-256 of `data`, or `None` when the CPU lacks AVX-512F.
pub(crate) fn keccak256(data: &[u8]) -> Option<[u8; 32]> {
    if !available() {
        return None;
    }
    // SAFETY: AVX-512F support was detected at run time just above (`is_x86_feature_detected`
    // also checks that the OS saves the zmm state).
    Some(unsafe { sponge(data) })
}

/// A vector from qwords 0..7.
#[target_feature(enable = "avx512f")]
#[inline]
fn v(q: [i64; 8]) -> __m512i {
    _mm512_set_epi64(q[7], q[6], q[5], q[4], q[3], q[2], q[1], q[0])
}

/// XORs one 136-byte rate block into the rows (lanes 0..16 = rows 0, 1, 2 and two lanes of row 3).
#[target_feature(enable = "avx512f")]
#[inline]
fn absorb(a: &mut [__m512i; 5], block: &[u8; RATE]) {
    let p = block.as_ptr().cast::<i64>();
    // SAFETY: each masked load reads only the qwords its mask selects: qwords 0..5, 5..10,
    // 10..15 and 15..17 of the block, all inside its 136 bytes (17 qwords); masked-off qwords
    // are not accessed. Unaligned addresses are allowed by `vmovdqu64`.
    unsafe {
        a[0] = _mm512_xor_si512(a[0], _mm512_maskz_loadu_epi64(ROW, p));
        a[1] = _mm512_xor_si512(a[1], _mm512_maskz_loadu_epi64(ROW, p.add(5)));
        a[2] = _mm512_xor_si512(a[2], _mm512_maskz_loadu_epi64(ROW, p.add(10)));
        a[3] = _mm512_xor_si512(a[3], _mm512_maskz_loadu_epi64(0x03, p.add(15)));
    }
}

/// The EIP-712 signing hash `keccak256(0x19 0x01 ‖ domain ‖ keccak256(encoded))`, or `None`
/// when the CPU lacks AVX-512F.
pub(crate) fn eip712_hash(domain: &[u8; 32], encoded: &[u8]) -> Option<[u8; 32]> {
    if !available() {
        return None;
    }
    // SAFETY: AVX-512F support was detected just above.
    Some(unsafe { eip712(domain, encoded) })
}

/// The sponge: absorb every full block, pad the tail (Keccak's `0x01 … 0x80`, not SHA-3's
/// `0x06`), squeeze 32 bytes from row 0.
#[target_feature(enable = "avx512f")]
fn sponge(data: &[u8]) -> [u8; 32] {
    let a = absorb_all(data);
    let mut out = [0u8; 32];
    // SAFETY: the mask selects qwords 0..4 only, i.e. exactly the 32 bytes of `out`.
    unsafe { _mm512_mask_storeu_epi64(out.as_mut_ptr().cast::<i64>(), 0x0f, a[0]) };
    out
}

/// The second hash of [`eip712_hash`] without a round trip through memory: its one block
/// `0x19 0x01 ‖ domain ‖ h ‖ 0x01 … 0x80` is assembled in registers from the first hash `h`
/// (row 0, qwords 0..3). Byte 34 is where `h` starts, so `h` is shifted by two bytes: qword
/// `k` of the block (k = 4..8) is `h[k-4] << 16 | h[k-5] >> 48`.
#[target_feature(enable = "avx512f")]
fn eip712(domain: &[u8; 32], encoded: &[u8]) -> [u8; 32] {
    // Qwords 0..4 of the block before `h`: 0x19 0x01, the domain, and in qword 4 the last two
    // domain bytes (independent of the first hash, so built while it runs).
    let mut head = [0u8; 40];
    head[0] = 0x19;
    head[1] = 0x01;
    head[2..34].copy_from_slice(domain);
    // SAFETY: the mask selects qwords 0..5, the 40 bytes of `head`.
    let head = unsafe { _mm512_maskz_loadu_epi64(ROW, head.as_ptr().cast::<i64>()) };
    let h = absorb_all(encoded)[0];
    let up = _mm512_slli_epi64::<16>(h);
    let down = _mm512_srli_epi64::<48>(h);
    // Row 0: qword 4 gets h[0] << 16.
    let row0 = _mm512_or_si512(head, _mm512_maskz_permutexvar_epi64(0x10, v([0; 8]), up));
    // Row 1 (qwords 5..9): h[x+1] << 16 | h[x] >> 48 for x = 0..3 (h[4] being nothing), and
    // the 0x01 padding byte at byte 66 = qword 8, byte 2.
    let row1 = _mm512_ternarylogic_epi64::<0xfe>(
        _mm512_maskz_permutexvar_epi64(0x07, v([1, 2, 3, 0, 0, 0, 0, 0]), up),
        _mm512_maskz_permutexvar_epi64(0x0f, v([0, 1, 2, 3, 0, 0, 0, 0]), down),
        v([0, 0, 0, 1 << 16, 0, 0, 0, 0]),
    );
    // The 0x80 padding byte: byte 135 = qword 16 = row 3, qword 1, top byte.
    let row3 = v([0, i64::MIN, 0, 0, 0, 0, 0, 0]);
    let zero = _mm512_setzero_si512();
    let mut a = [row0, row1, zero, row3, zero];
    permute(&mut a);
    let mut out = [0u8; 32];
    // SAFETY: the mask selects qwords 0..4 only, i.e. exactly the 32 bytes of `out`.
    unsafe { _mm512_mask_storeu_epi64(out.as_mut_ptr().cast::<i64>(), 0x0f, a[0]) };
    out
}

/// Absorbs `data` with Keccak padding and returns the state (the digest is row 0, qwords 0..3).
#[target_feature(enable = "avx512f")]
#[inline]
fn absorb_all(mut data: &[u8]) -> [__m512i; 5] {
    let zero = _mm512_setzero_si512();
    let mut a = [zero; 5];
    while let Some((block, rest)) = data.split_first_chunk::<RATE>() {
        absorb(&mut a, block);
        permute(&mut a);
        data = rest;
    }
    let tail = data;
    let mut last = [0u8; RATE];
    last[..tail.len()].copy_from_slice(tail);
    last[tail.len()] ^= 0x01;
    last[RATE - 1] ^= 0x80;
    absorb(&mut a, &last);
    permute(&mut a);
    a
}

/// Keccak-f\[1600\] on the rows (24 rounds).
#[target_feature(enable = "avx512f")]
#[inline]
fn permute(state: &mut [__m512i; 5]) {
    let [mut a0, mut a1, mut a2, mut a3, mut a4] = *state;
    // θ: qword x of `prev` holds C[x-1], of `next` C[x+1].
    let prev = v([4, 0, 1, 2, 3, 4, 0, 0]);
    let next = v([1, 2, 3, 4, 0, 1, 0, 0]);
    let rho = |y: usize| {
        let r = RHO[y];
        v([r[0], r[1], r[2], r[3], r[4], 0, 0, 0])
    };
    let (r0, r1, r2, r3, r4) = (rho(0), rho(1), rho(2), rho(3), rho(4));
    // π: row y becomes column y; qword y' of that column is B[y, y'] = A[3y' + y mod 5, y].
    let pi = |y: i64| {
        v([
            y,
            (3 + y) % 5,
            (6 + y) % 5,
            (9 + y) % 5,
            (12 + y) % 5,
            0,
            0,
            0,
        ])
    };
    let (p0, p1, p2, p3, p4) = (pi(0), pi(1), pi(2), pi(3), pi(4));
    // Transpose, level 2: pairs of unpacked columns → rows {0,2} and {1,3} (x = 1..4), row 4.
    let even = v([0, 1, 8, 9, 2, 3, 10, 11]);
    let four = v([4, 5, 12, 13, 4, 5, 12, 13]);
    // Level 3: qword 0 from column 0, qwords 1..4 from the level-2 vector.
    let low = |y: i64| v([y, 8, 9, 10, 11, 0, 0, 0]);
    let high = |y: i64| v([y, 12, 13, 14, 15, 0, 0, 0]);
    let (w0, w1, w2, w3, w4) = (low(0), low(1), high(2), high(3), low(4));
    for rc in ROUND_CONSTANTS {
        // θ
        let c = _mm512_ternarylogic_epi64::<XOR3>(a0, a1, a2);
        let c = _mm512_ternarylogic_epi64::<XOR3>(c, a3, a4);
        let cp = _mm512_permutexvar_epi64(prev, c);
        let cn = _mm512_rol_epi64::<1>(_mm512_permutexvar_epi64(next, c));
        // θ, ρ, π
        let step = |a, r, p| {
            let a = _mm512_ternarylogic_epi64::<XOR3>(a, cp, cn);
            _mm512_permutexvar_epi64(p, _mm512_rolv_epi64(a, r))
        };
        let b0 = step(a0, r0, p0);
        let b1 = step(a1, r1, p1);
        let b2 = step(a2, r2, p2);
        let b3 = step(a3, r3, p3);
        let b4 = step(a4, r4, p4);
        // χ, ι
        let o0 = _mm512_ternarylogic_epi64::<CHI>(b0, b1, b2);
        let o0 = _mm512_xor_si512(o0, _mm512_maskz_set1_epi64(1, rc as i64));
        let o1 = _mm512_ternarylogic_epi64::<CHI>(b1, b2, b3);
        let o2 = _mm512_ternarylogic_epi64::<CHI>(b2, b3, b4);
        let o3 = _mm512_ternarylogic_epi64::<CHI>(b3, b4, b0);
        let o4 = _mm512_ternarylogic_epi64::<CHI>(b4, b0, b1);
        // Columns → rows.
        let t0 = _mm512_unpacklo_epi64(o1, o2);
        let t1 = _mm512_unpackhi_epi64(o1, o2);
        let t2 = _mm512_unpacklo_epi64(o3, o4);
        let t3 = _mm512_unpackhi_epi64(o3, o4);
        let u0 = _mm512_permutex2var_epi64(t0, even, t2);
        let u1 = _mm512_permutex2var_epi64(t1, even, t3);
        let u2 = _mm512_permutex2var_epi64(t0, four, t2);
        a0 = _mm512_permutex2var_epi64(o0, w0, u0);
        a1 = _mm512_permutex2var_epi64(o0, w1, u1);
        a2 = _mm512_permutex2var_epi64(o0, w2, u0);
        a3 = _mm512_permutex2var_epi64(o0, w3, u1);
        a4 = _mm512_permutex2var_epi64(o0, w4, u2);
    }
    *state = [a0, a1, a2, a3, a4];
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
