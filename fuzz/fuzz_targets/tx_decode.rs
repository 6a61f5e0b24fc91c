//! Raw transaction and revert-data decoding take any bytes without panicking; whatever
//! decodes re-encodes to the same bytes and hashes to them.
#![no_main]

use libfuzzer_sys::fuzz_target;
use polyclob::onchain::{SignedTx, decode_revert_reason};

fuzz_target!(|data: &[u8]| {
    let _ = decode_revert_reason(data);
    if let Ok(tx) = SignedTx::decode(data) {
        assert_eq!(tx.raw(), data);
        assert_eq!(tx.hash(), alloy_primitives::keccak256(data));
        let _ = tx.recover_sender();
    }
});
