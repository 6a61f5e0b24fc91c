//! The proxy tunnel's reply parsers (the `CONNECT` answer head, the SOCKS5 method choice and
//! reply) take any bytes without panicking; an accepted `CONNECT` answer has a real status
//! and never claims more head than it was given.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Some((status, head)) = polyclob::http::fuzz_proxy_replies(data) {
        assert!((100..1000).contains(&status));
        assert!(head <= data.len());
    }
});
