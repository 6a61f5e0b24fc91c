//! The one TLS configuration both transports use: rustls with the `ring` provider and the
//! operating system's certificate verifier. reqwest is built with `rustls-no-provider` and gets
//! this configuration explicitly (Cargo.toml says why ring).
//!
//! HTTP (reqwest) and WebSocket (tokio-tungstenite) connections share this stack so the crate
//! links one TLS implementation. The provider is passed explicitly, so the library never
//! installs a process-wide default provider behind the application's back.

use std::sync::Arc;

use rustls_platform_verifier::BuilderVerifierExt;

/// A client configuration offering `alpn` protocols (empty = no ALPN).
pub(crate) fn client_config(alpn: &[&[u8]]) -> Result<rustls::ClientConfig, rustls::Error> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()?
        .with_platform_verifier()?
        .with_no_client_auth();
    config.alpn_protocols = alpn.iter().map(|p| p.to_vec()).collect();
    Ok(config)
}
