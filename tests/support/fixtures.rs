//! Locates `../shared/fixtures` (present in CI beside the clone) and skips politely without it.
#![allow(dead_code, unreachable_pub)]

use std::path::PathBuf;

/// `relative` under the shared fixtures directory (`POLYCLOB_FIXTURES` when set, for a
/// worktree that has no `../shared`), or `None` (with a printed notice) when it is absent.
pub fn shared(relative: &str) -> Option<PathBuf> {
    let root = std::env::var_os("POLYCLOB_FIXTURES").map_or_else(default_root, PathBuf::from);
    let path = root.join(relative);
    if path.exists() {
        Some(path)
    } else {
        println!(
            "SKIP: shared fixture {} not found; skipping this check",
            path.display()
        );
        None
    }
}

/// Reads a shared fixture file as bytes, or `None` (with a printed notice) when absent.
pub fn read_shared(relative: &str) -> Option<Vec<u8>> {
    let path = shared(relative)?;
    match std::fs::read(&path) {
        Ok(bytes) => Some(bytes),
        Err(e) => panic!("cannot read {}: {e}", path.display()),
    }
}

/// `../shared/fixtures` beside the checkout, found from the crate being tested: polyclob at
/// the root, or a crate under `crates/` two levels down. Without one, the crate's own
/// `../shared/fixtures` (which the skip notice then names).
fn default_root() -> PathBuf {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let beside = |dir: &std::path::Path| dir.join("../shared/fixtures");
    manifest
        .ancestors()
        .take(3)
        .map(beside)
        .find(|p| p.is_dir())
        .unwrap_or_else(|| beside(&manifest))
}
