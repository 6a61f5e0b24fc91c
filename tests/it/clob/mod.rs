mod account;
mod auth;
mod http2;
mod lane;
mod orders;
mod parity;
mod session_signers;
mod transport;
