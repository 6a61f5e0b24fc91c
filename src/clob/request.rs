//! [`Req`]: one CLOB request, the transport's request and the auth level it is signed with.

use super::auth::Level;
use crate::http;

/// One CLOB request: the transport's request and the auth level it is signed with.
#[derive(Debug)]
pub(crate) struct Req<'a> {
    req: http::Req<'a>,
    pub(crate) auth: Level,
}

impl<'a> core::ops::Deref for Req<'a> {
    type Target = http::Req<'a>;

    fn deref(&self) -> &Self::Target {
        &self.req
    }
}

impl<'a> Req<'a> {
    fn public(req: http::Req<'a>) -> Self {
        Self {
            req,
            auth: Level::None,
        }
    }

    pub(crate) fn get(path: &'a str) -> Self {
        Self::public(http::Req::get(path))
    }

    pub(crate) fn post(path: &'a str, body: Vec<u8>) -> Self {
        Self::public(http::Req::post(path, body))
    }

    pub(crate) fn post_empty(path: &'a str) -> Self {
        Self::public(http::Req::post_empty(path))
    }

    /// Cancels are idempotent: cancelling twice has the same effect as once.
    pub(crate) fn delete(path: &'a str, body: Option<Vec<u8>>) -> Self {
        Self::public(http::Req::delete(path, body))
    }

    pub(crate) fn query(mut self, key: &str, value: &str) -> Self {
        self.req = self.req.query(key, value);
        self
    }

    pub(crate) fn query_opt(mut self, key: &str, value: Option<&str>) -> Self {
        self.req = self.req.query_opt(key, value);
        self
    }

    pub(crate) fn auth(mut self, level: Level) -> Self {
        self.auth = level;
        self
    }

    pub(crate) fn idempotent(mut self, yes: bool) -> Self {
        self.req = self.req.idempotent(yes);
        self
    }
}
