//! Wallets: CREATE2 derivation of Polymarket proxy and Gnosis Safe addresses, and the
//! ERC-7739 signature of POLY_1271 deposit wallets (protocol.md §1.5).
