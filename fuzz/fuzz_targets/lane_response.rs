//! The order lane's HTTP/1.1 response reader takes any bytes, fed in pieces, without
//! panicking; a response it accepts never claims more body than it was given.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Some((status, body)) = polyclob::clob::fuzz_read_response(data) {
        assert!((100..1000).contains(&status));
        assert!(body <= data.len());
    }
});
