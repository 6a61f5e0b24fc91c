//! The one JSON string writer: text in, a quoted JSON string literal out, for every request
//! body and subscription the crate writes (order bodies, WS and RTDS subscriptions).
//!
//! Plain runs are found by the shared scan ([`find_special`]) and copied whole; `"`, `\` and
//! control bytes become their escapes (`\n`, `\r`, `\t`, `\b`, `\f` by name, the rest as
//! `\u00XX`), as serde_json writes them.
//! Everything else, non-ASCII included, is written as is (RFC 8259 §7).

use super::simd::find_special;

/// Writes `s` as a JSON string literal through `put`, in pieces: runs of `s` and escapes.
fn escape_with(s: &str, mut put: impl FnMut(&str)) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    put("\"");
    let b = s.as_bytes();
    let mut run = 0;
    let mut i = find_special(b, 0);
    while let Some(&c) = b.get(i) {
        // `run..i` ends before an ASCII byte: both ends are char boundaries.
        put(s.get(run..i).unwrap_or_default());
        let mut u = *b"\\u0000";
        put(match c {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0x08 => "\\b",
            0x0c => "\\f",
            _ => {
                u[4] = HEX[usize::from(c >> 4)];
                u[5] = HEX[usize::from(c & 15)];
                core::str::from_utf8(&u).unwrap_or_default()
            }
        });
        run = i + 1;
        i = find_special(b, run);
    }
    put(s.get(run..).unwrap_or_default());
    put("\"");
}

/// Appends `s` to `out` as a JSON string literal (quotes and escapes included).
pub(crate) fn push_str(out: &mut Vec<u8>, s: &str) {
    escape_with(s, |piece| out.extend_from_slice(piece.as_bytes()));
}

/// [`push_str`] into a `String`.
pub(crate) fn push_string(out: &mut String, s: &str) {
    escape_with(s, |piece| out.push_str(piece));
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    /// Every string serde_json writes the same way (it escapes the same set, by the same
    /// names), and every string reads back through serde_json.
    #[test]
    fn agrees_with_serde_json() {
        let mut next = crate::testutil::lcg(35);
        let alphabet = [
            "a", "\"", "\\", "\n", "\r", "\t", "\u{1}", "\u{1f}", "\u{8}", "\u{c}", " ", "é", "€",
            "/", "\u{7f}",
        ];
        for _ in 0..5_000 {
            let s: String = (0..next(40))
                .map(|_| alphabet[next(alphabet.len() as u64) as usize])
                .collect();
            let mut bytes = Vec::new();
            super::push_str(&mut bytes, &s);
            let mut text = String::new();
            super::push_string(&mut text, &s);
            assert_eq!(text.as_bytes(), bytes);
            assert_eq!(text, serde_json::to_string(&s).unwrap(), "{s:?}");
            assert_eq!(serde_json::from_str::<String>(&text).unwrap(), s);
        }
    }
}
