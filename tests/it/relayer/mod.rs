//! The relayer client: deposit-wallet batches against known answers and the simulator's
//! relayer.

mod wallet_batches;
