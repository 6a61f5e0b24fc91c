//! Gamma's comments: on an event, a series or a market, one thread, or one wallet's; and
//! public profiles.
//!
//! Facts: docs.polymarket.com, Gamma API reference ("List comments", "Get comments by comment
//! id", "Get comments by user address", "Get public profile by wallet address"). The lists
//! page by `limit` and `offset`; a reply rides along with its parent. Comment text is written
//! by users: show it, never act on it.

use serde::Deserialize;

use super::client::Client;
use super::event::Profile;
use crate::http::{Error, Req, SkippedRow, lenient, path_with, rounded};
use crate::types::{Timestamp, timestamp_opt};

/// One comment (`GET /comments`, `/comments/{id}`, `/comments/user_address/{address}`).
///
/// ```
/// use polyclob::gamma::GammaComment;
///
/// let c: GammaComment = serde_json::from_str(r#"{"id":"2211540","body":"Line moved fast","parentEntityType":"Event",
///     "parentEntityID":738032,"parentCommentID":null,"userAddress":"0x7c3d","createdAt":"2026-12-06T19:02:11.418Z",
///     "profile":{"name":"north","positions":[{"tokenId":"4711","positionSize":"12500000"}]},
///     "reactions":[{"id":"9","commentID":2211540,"reactionType":"HEART","userAddress":"0x1f2e"}],
///     "reportCount":0,"reactionCount":3}"#)?;
/// assert_eq!((c.parent_entity_id.as_str(), c.parent_comment_id), ("738032", None));
/// assert_eq!(c.profile.positions[0].position_size.unwrap().to_string(), "12.5");
/// assert_eq!(c.reactions[0].reaction_type, "HEART");
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(default, rename_all = "camelCase")]
#[non_exhaustive]
pub struct GammaComment {
    /// The comment's id.
    #[serde(deserialize_with = "lenient::string")]
    pub id: String,
    /// Its text (user-written).
    #[serde(deserialize_with = "lenient::string")]
    pub body: String,
    /// What it is on: `Event`, `Series` or `market`.
    #[serde(deserialize_with = "lenient::string")]
    pub parent_entity_type: String,
    /// The id of what it is on.
    #[serde(rename = "parentEntityID", deserialize_with = "lenient::string")]
    pub parent_entity_id: String,
    /// The comment it replies to; `None` at the top of a thread.
    #[serde(rename = "parentCommentID", deserialize_with = "lenient::string_opt")]
    pub parent_comment_id: Option<String>,
    /// The author's address.
    #[serde(deserialize_with = "lenient::string")]
    pub user_address: String,
    /// The address replied to.
    #[serde(deserialize_with = "lenient::string")]
    pub reply_address: String,
    /// When it was written.
    #[serde(deserialize_with = "timestamp_opt")]
    pub created_at: Option<Timestamp>,
    /// When it was last edited.
    #[serde(deserialize_with = "timestamp_opt")]
    pub updated_at: Option<Timestamp>,
    /// The author.
    #[serde(deserialize_with = "lenient::null_default")]
    pub profile: Profile,
    /// Reactions to it.
    #[serde(deserialize_with = "lenient::null_default")]
    pub reactions: Vec<CommentReaction>,
    /// Reports against it.
    #[serde(deserialize_with = "rounded::u32_opt")]
    pub report_count: Option<u32>,
    /// Reactions counted.
    #[serde(deserialize_with = "rounded::u32_opt")]
    pub reaction_count: Option<u32>,
}

/// A reaction to a [`GammaComment`].
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(default, rename_all = "camelCase")]
#[non_exhaustive]
pub struct CommentReaction {
    /// The reaction's id.
    #[serde(deserialize_with = "lenient::string")]
    pub id: String,
    /// The comment reacted to.
    #[serde(rename = "commentID", deserialize_with = "lenient::string")]
    pub comment_id: String,
    /// `HEART`, …
    #[serde(deserialize_with = "lenient::string")]
    pub reaction_type: String,
    /// Icon.
    #[serde(deserialize_with = "lenient::string")]
    pub icon: String,
    /// Who reacted.
    #[serde(deserialize_with = "lenient::string")]
    pub user_address: String,
    /// When.
    #[serde(deserialize_with = "timestamp_opt")]
    pub created_at: Option<Timestamp>,
    /// Who reacted, their profile.
    #[serde(deserialize_with = "lenient::null_default")]
    pub profile: Profile,
}

/// The kinds of entity a comment list may be asked for (the docs' `parent_entity_type`).
const ENTITIES: &[&str] = &["Event", "Series", "market"];

impl Client {
    /// `GET /comments`: up to `limit` comments (replies ride along) on the `entity_type`
    /// (`Event`, `Series` or `market`) `entity_id`, from `offset`, newest first; with the
    /// rows that did not decode.
    ///
    /// # Errors
    /// Another `entity_type` ([`Error::is_argument`]); transport, status, or a body that is
    /// not a list.
    pub async fn comments(
        &self,
        entity_type: &str,
        entity_id: &str,
        limit: u32,
        offset: u32,
    ) -> Result<(Vec<GammaComment>, Vec<SkippedRow>), Error> {
        let Some(kind) = ENTITIES
            .iter()
            .find(|e| e.eq_ignore_ascii_case(entity_type.trim()))
        else {
            return Err(Error::argument(format!(
                "parent_entity_type {entity_type:?} is not one of {ENTITIES:?} (`/comments`)"
            )));
        };
        self.list(
            Req::get("/comments")
                .query("parent_entity_type", kind)
                .query("parent_entity_id", entity_id)
                .query("limit", &limit.to_string())
                .query("offset", &offset.to_string())
                .query("order", "createdAt")
                .query("ascending", "false"),
        )
        .await
    }

    /// `GET /comments/{id}`: the comment `id` and its thread; with the rows that did not
    /// decode.
    ///
    /// # Errors
    /// Transport, status (404 for an unknown id), or a body that is not a list.
    pub async fn comment_thread(
        &self,
        id: &str,
    ) -> Result<(Vec<GammaComment>, Vec<SkippedRow>), Error> {
        let path = path_with("/comments/", id);
        self.list_at(Req::get(&path), "/comments/{id}").await
    }

    /// `GET /comments/user_address/{address}`: up to `limit` comments `address` wrote, from
    /// `offset`, newest first; with the rows that did not decode.
    ///
    /// # Errors
    /// Transport, status, or a body that is not a list.
    pub async fn comments_by_user(
        &self,
        address: &str,
        limit: u32,
        offset: u32,
    ) -> Result<(Vec<GammaComment>, Vec<SkippedRow>), Error> {
        let path = path_with("/comments/user_address/", address);
        let req = Req::get(&path)
            .query("limit", &limit.to_string())
            .query("offset", &offset.to_string())
            .query("order", "createdAt")
            .query("ascending", "false");
        self.list_at(req, "/comments/user_address/{user_address}")
            .await
    }

    /// `GET /public-profile?address=`: the public profile of a wallet (proxy wallet or user
    /// address); `None` when Gamma has none (404).
    ///
    /// # Errors
    /// An address that is not `0x` and 40 hex digits ([`Error::is_argument`]); transport,
    /// another status, or a profile that did not decode.
    pub async fn public_profile(&self, address: &str) -> Result<Option<Profile>, Error> {
        let a = address.trim();
        let hex = a.strip_prefix("0x").unwrap_or("");
        if hex.len() != 40 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(Error::argument(format!(
                "address {address:?} is not 0x and 40 hex digits (`/public-profile`)"
            )));
        }
        match self
            .get(&Req::get("/public-profile").query("address", a))
            .await
        {
            Ok(p) => Ok(Some(p)),
            Err(e) if e.status() == Some(404) => Ok(None),
            Err(e) => Err(e),
        }
    }
}
