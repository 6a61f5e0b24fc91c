//! The account layer: one account's trading surface, and the fill tracker.

mod pnl;
mod tracker;
mod trading;
