mod auth;
mod http2;
mod lane;
mod orders;
mod parity;
mod protocol_v2;
mod session_signers;
mod transport;
