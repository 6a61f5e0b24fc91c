//! L1 authentication: the ClobAuth EIP-712 signature and its headers (<https://docs.polymarket.com/api-reference/authentication>).

use alloy_primitives::{Address, U256};

use super::eip712::{clob_auth_domain, clob_auth_struct_hash, signing_hash};
use super::{SignError, Signature, Signer};

/// Signs the ClobAuth struct for `POST /auth/api-key` / `GET /auth/derive-api-key`.
///
/// The domain is `ClobAuthDomain`/`"1"`/`chain_id` with no verifying contract; the struct is
/// `(address, timestamp as a decimal string, nonce, fixed message)`.
///
/// # Errors
/// Only if the ECDSA backend fails.
///
/// ```
/// use alloy_primitives::U256;
/// use polyclob::sign::{Signer, clob_auth::sign_clob_auth};
///
/// let signer = Signer::from_hex("ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80")?;
/// // Polymarket's own test vector (Amoy, ts = 10000000, nonce = 23).
/// let sig = sign_clob_auth(&signer, 80002, 10_000_000, U256::from(23))?;
/// assert!(sig.to_string().starts_with("0xf62319a987514da40e57e2f4d7529f7bac38f0355bd88bb5adbb3768d80de6c1"));
/// # Ok::<(), polyclob::sign::SignError>(())
/// ```
pub fn sign_clob_auth(
    signer: &Signer,
    chain_id: u64,
    timestamp_secs: u64,
    nonce: U256,
) -> Result<Signature, SignError> {
    signer.sign_prehash(&clob_auth_digest(signer.address(), chain_id, timestamp_secs, nonce).0)
}

/// The ClobAuth signing hash (what [`sign_clob_auth`] signs).
#[must_use]
pub fn clob_auth_digest(
    address: Address,
    chain_id: u64,
    timestamp_secs: u64,
    nonce: U256,
) -> alloy_primitives::B256 {
    signing_hash(
        &clob_auth_domain(chain_id),
        &clob_auth_struct_hash(address, timestamp_secs, nonce),
    )
}

/// The four L1 header values, formatted on the stack.
///
/// ```
/// use alloy_primitives::U256;
/// use polyclob::sign::{Signer, clob_auth::L1Headers};
///
/// let signer = Signer::from_hex("ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80")?;
/// let h = L1Headers::new(&signer, 137, 1_767_225_600, U256::ZERO)?;
/// assert_eq!(h.address(), "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266");
/// assert_eq!(h.timestamp(), "1767225600");
/// assert_eq!(h.nonce(), "0");
/// assert_eq!(h.signature().len(), 132);
/// # Ok::<(), polyclob::sign::SignError>(())
/// ```
#[derive(Clone, Copy, Debug)]
pub struct L1Headers {
    address: [u8; 42],
    signature: [u8; 132],
    timestamp: [u8; 20],
    timestamp_start: u8,
    nonce: [u8; 78],
    nonce_len: u8,
}

impl L1Headers {
    /// `POLY_ADDRESS`, `POLY_SIGNATURE`, `POLY_TIMESTAMP`, `POLY_NONCE` for a ClobAuth request.
    /// The address is EIP-55 checksummed (as the Python and TypeScript SDKs send it).
    ///
    /// # Errors
    /// Only if the ECDSA backend fails.
    pub fn new(
        signer: &Signer,
        chain_id: u64,
        timestamp_secs: u64,
        nonce: U256,
    ) -> Result<Self, SignError> {
        let sig = sign_clob_auth(signer, chain_id, timestamp_secs, nonce)?;
        let mut signature = [0u8; 132];
        sig.write_hex(&mut signature);
        let mut address = [0u8; 42];
        address.copy_from_slice(
            signer
                .address()
                .to_checksum_buffer(None)
                .as_str()
                .as_bytes(),
        );
        let mut timestamp = [0u8; 20];
        let start = 20 - super::eip712::write_u64_decimal(timestamp_secs, &mut timestamp).len();
        let id = crate::types::TokenId::from_u256(nonce);
        let mut nonce_buf = [0u8; 78];
        let n = id.as_str().len();
        nonce_buf[..n].copy_from_slice(id.as_str().as_bytes());
        Ok(Self {
            address,
            signature,
            timestamp,
            timestamp_start: start as u8,
            nonce: nonce_buf,
            nonce_len: n as u8,
        })
    }

    /// `POLY_ADDRESS`.
    #[must_use]
    pub fn address(&self) -> &str {
        ascii(&self.address)
    }

    /// `POLY_SIGNATURE`.
    #[must_use]
    pub fn signature(&self) -> &str {
        ascii(&self.signature)
    }

    /// `POLY_TIMESTAMP`.
    #[must_use]
    pub fn timestamp(&self) -> &str {
        ascii(&self.timestamp[usize::from(self.timestamp_start)..])
    }

    /// `POLY_NONCE`.
    #[must_use]
    pub fn nonce(&self) -> &str {
        ascii(&self.nonce[..usize::from(self.nonce_len)])
    }
}

fn ascii(b: &[u8]) -> &str {
    // Every buffer here holds ASCII written by this module.
    core::str::from_utf8(b).unwrap_or("")
}
