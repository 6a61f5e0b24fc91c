//! Emits `polyclob_simd` on x86_64 with rustc >= 1.89, so the JSON scanner's SSE2 string scan
//! (`src/json/simd.rs`) is compiled only there; older compilers (the MSRV is 1.85) and other
//! targets build its portable twin alone.

use std::env;
use std::process::Command;

fn main() {
    println!("cargo::rustc-check-cfg=cfg(polyclob_simd)");
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-env-changed=RUSTC");
    // `POLYCLOB_NO_SIMD=1` builds the portable paths only (to test them on a machine that
    // would otherwise use the kernels).
    println!("cargo::rerun-if-env-changed=POLYCLOB_NO_SIMD");
    let disabled = env::var_os("POLYCLOB_NO_SIMD").is_some_and(|v| !v.is_empty() && v != "0");
    let x86_64 = env::var("CARGO_CFG_TARGET_ARCH").is_ok_and(|a| a == "x86_64");
    if !disabled && x86_64 && rustc_minor().is_some_and(|minor| minor >= 89) {
        println!("cargo::rustc-cfg=polyclob_simd");
    }
}

/// The minor version of the compiler cargo uses (`rustc 1.95.0 (...)` → 95); `None` when it
/// cannot be read, which keeps the portable path.
fn rustc_minor() -> Option<u32> {
    let rustc = env::var_os("RUSTC")?;
    let out = Command::new(rustc).arg("--version").output().ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    let version = text.split_whitespace().nth(1)?;
    let mut parts = version.split('.');
    if parts.next()? != "1" {
        return None;
    }
    parts.next()?.parse().ok()
}
