//! Balances and allowances (`GET /balance-allowance`, and the refresh from the chain) and the
//! account's notifications (L2).

use super::auth::Level;
use super::client::Client;
use super::request::Req;
use super::types::{AssetKind, BalanceAllowance, Notification};
use crate::http::{Error, SkippedRow, decode_rows};
use crate::types::SignatureType;

impl Client {
    /// The asset a balance query names on the wire: a position of a Protocol V2 market is
    /// `CONDITIONAL-V2` (docs `/migrate/polymarket-v2/api-integrations`), whichever of the two
    /// outcome kinds the caller passed, when the token is known to be a position id
    /// ([`is_position_token`](Self::is_position_token)).
    pub(crate) fn wire_asset(&self, asset: AssetKind, token_id: Option<&str>) -> AssetKind {
        match (asset, token_id) {
            (AssetKind::Conditional, Some(t)) if self.is_position_token(t) => {
                AssetKind::ConditionalV2
            }
            _ => asset,
        }
    }

    fn balance_req<'a>(
        &self,
        path: &'a str,
        asset: AssetKind,
        token_id: Option<&str>,
        sig: SignatureType,
    ) -> Req<'a> {
        Req::get(path)
            .query("asset_type", self.wire_asset(asset, token_id).as_str())
            .query_opt("token_id", token_id)
            .query("signature_type", &sig.as_u8().to_string())
            .auth(Level::L2)
    }

    /// `GET /balance-allowance` (L2). An outcome balance of a Protocol V2 market goes out as
    /// `asset_type=CONDITIONAL-V2` when the token is known to be a position id (from Gamma,
    /// `clob_market` or [`set_position_token`](Self::set_position_token)).
    ///
    /// # Errors
    ///
    /// Missing credentials, transport, status or decode.
    pub async fn balance_allowance(
        &self,
        asset: AssetKind,
        token_id: Option<&str>,
        sig: SignatureType,
    ) -> Result<BalanceAllowance, Error> {
        self.json(&self.balance_req("/balance-allowance", asset, token_id, sig))
            .await
    }

    /// `GET /balance-allowance/update` (L2): asks the CLOB to re-read the chain.
    ///
    /// # Errors
    ///
    /// Missing credentials, transport or status.
    pub async fn update_balance_allowance(
        &self,
        asset: AssetKind,
        token_id: Option<&str>,
        sig: SignatureType,
    ) -> Result<(), Error> {
        self.send(&self.balance_req("/balance-allowance/update", asset, token_id, sig))
            .await
            .map(drop)
    }

    /// `GET /notifications` (L2): the notifications, and those that did not decode (index,
    /// reason, raw text).
    ///
    /// # Errors
    ///
    /// Missing credentials, transport, status, or a body that is not an array (or `null`).
    pub async fn notifications(
        &self,
        sig: SignatureType,
    ) -> Result<(Vec<Notification>, Vec<SkippedRow>), Error> {
        let req = Req::get("/notifications")
            .query("signature_type", &sig.as_u8().to_string())
            .auth(Level::L2);
        self.rows(&req, |b| decode_rows(b)).await
    }

    /// `DELETE /notifications?ids=a,b` (L2).
    ///
    /// # Errors
    ///
    /// Missing credentials, transport or status.
    pub async fn drop_notifications(&self, ids: &[&str]) -> Result<(), Error> {
        self.send(
            &Req::delete("/notifications", None)
                .query("ids", &ids.join(","))
                .auth(Level::L2),
        )
        .await
        .map(drop)
    }
}
