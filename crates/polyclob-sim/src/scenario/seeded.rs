//! Scenario data the exchange does not produce itself, seeded by a test through the handle
//! and served by the read front-ends: combo positions (the simulator does not trade combos),
//! Gamma comments, and when each market was resolved (the biggest wins read it).

use std::collections::HashMap;
use std::time::{SystemTime, UNIX_EPOCH};

use alloy_primitives::{U256, keccak256};

/// Unix seconds now.
pub(crate) fn unix_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// A combo position seeded for a wallet: its legs (market index, outcome index), the shares
/// held and what they cost.
#[derive(Debug, Clone)]
pub(crate) struct ComboSeed {
    pub(crate) wallet: String,
    pub(crate) legs: Vec<(usize, usize)>,
    pub(crate) shares: u64,
    pub(crate) cost: u64,
    pub(crate) at: u64,
    /// `0x03` ‖ 30 bytes of the legs' hash: a combo condition id's shape (module byte 3).
    pub(crate) condition_id: String,
    /// The YES position of the combo: the condition's 31 bytes ‖ outcome index 0, as a V2
    /// position id is built.
    pub(crate) position_id: String,
}

impl ComboSeed {
    pub(crate) fn new(wallet: String, legs: Vec<(usize, usize)>, shares: u64, cost: u64) -> Self {
        let mut words = Vec::new();
        for (m, o) in &legs {
            words.extend_from_slice(&(*m as u64).to_be_bytes());
            words.extend_from_slice(&(*o as u64).to_be_bytes());
        }
        let h = keccak256(&words);
        let mut id = [0u8; 32];
        id[0] = 0x03;
        id[1..31].copy_from_slice(&h[..30]);
        let condition_id = format!("0x{}", alloy_primitives::hex::encode(&id[..31]));
        let position_id = U256::from_be_bytes(id).to_string();
        Self {
            wallet,
            legs,
            shares,
            cost,
            at: unix_secs(),
            condition_id,
            position_id,
        }
    }
}

/// A Gamma comment seeded on an event.
#[derive(Debug, Clone)]
pub(crate) struct CommentSeed {
    pub(crate) id: u64,
    pub(crate) event_id: String,
    pub(crate) author: String,
    pub(crate) body: String,
    pub(crate) parent: Option<u64>,
    pub(crate) at: u64,
}

/// Everything seeded so far.
#[derive(Debug, Default)]
pub(crate) struct Seeded {
    pub(crate) combos: Vec<ComboSeed>,
    pub(crate) comments: Vec<CommentSeed>,
    /// When each market was resolved (condition id, lowercase), unix seconds.
    pub(crate) resolved_at: HashMap<String, u64>,
}

impl Seeded {
    /// Adds a comment on `event_id` (a reply when `parent` names one) and returns its id.
    pub(crate) fn comment(
        &mut self,
        event_id: &str,
        author: String,
        body: &str,
        parent: Option<u64>,
    ) -> u64 {
        let id = 2_000_000 + self.comments.len() as u64;
        self.comments.push(CommentSeed {
            id,
            event_id: event_id.to_owned(),
            author,
            body: body.to_owned(),
            parent,
            at: unix_secs(),
        });
        id
    }
}
