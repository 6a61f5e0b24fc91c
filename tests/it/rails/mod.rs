mod governor_stats;
mod heartbeat;
mod ip_limits;
mod limits;
mod preflight;
mod restrictions;
