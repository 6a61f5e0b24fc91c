//! Parsing and formatting fixed-point values never touches the heap.

use crate::support::counting_alloc;

use std::fmt::Write as _;

use polyclob::fixed::{Price, Size};

/// A `fmt::Write` sink over a fixed buffer, so formatting itself is the only thing measured.
struct Sink {
    buf: [u8; 64],
    len: usize,
}

impl std::fmt::Write for Sink {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        let end = self.len + s.len();
        self.buf
            .get_mut(self.len..end)
            .ok_or(std::fmt::Error)?
            .copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}

#[test]
fn parse_and_display_do_not_allocate() {
    let inputs: [&[u8]; 6] = [b"0.48", b".52", b"219.217767", b"100.0000", b"1", b"0.0025"];
    let mut sink = Sink {
        buf: [0; 64],
        len: 0,
    };
    let ((), allocations) = counting_alloc::count(|| {
        for _ in 0..1_000 {
            for input in inputs {
                let size = Size::parse(input).expect("valid");
                let price = Price::parse(input).ok();
                sink.len = 0;
                write!(sink, "{size} {price:?}").expect("fits");
            }
        }
    });
    assert_eq!(allocations, 0);
    assert_eq!(&sink.buf[..sink.len], b"0.0025 Some(Price(0.0025))");
}

/// `JsonStr`'s `Display` unescapes (named escapes, `\u`, a surrogate pair) without a copy.
#[test]
fn json_str_display_does_not_allocate() {
    let text = polyclob::decode::JsonStr::from_raw(r#"say \"hi\" \u00e9 \ud83d\ude00\n"#);
    let mut sink = Sink {
        buf: [0; 64],
        len: 0,
    };
    let ((), allocations) = counting_alloc::count(|| {
        for _ in 0..1_000 {
            sink.len = 0;
            write!(sink, "{text}").expect("fits");
        }
    });
    assert_eq!(allocations, 0);
    assert_eq!(&sink.buf[..sink.len], "say \"hi\" é 😀\n".as_bytes());
}
