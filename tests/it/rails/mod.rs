mod governor_stats;
mod heartbeat;
mod limits;
mod preflight;
mod restrictions;
