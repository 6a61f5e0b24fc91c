//! What every HTTP front-end shares: JSON responses, the exchange's `{"error"}` shape and a
//! refusal that becomes one ([`Reject`]), query-string parsing, and the CLOB's cursor pages
//! (`MA==` … `LTE=`).

use bytes::Bytes;
use http_body_util::Full;
use hyper::{Response, StatusCode};
use serde_json::{Value, json};

/// An HTTP answer.
pub(crate) type Resp = Response<Full<Bytes>>;

/// A JSON response.
pub(crate) fn json_response(status: StatusCode, body: String) -> Resp {
    let mut r = Response::new(Full::new(Bytes::from(body)));
    *r.status_mut() = status;
    r.headers_mut().insert(
        hyper::header::CONTENT_TYPE,
        hyper::header::HeaderValue::from_static("application/json"),
    );
    r
}

/// A refused request: status and `{"error"}` message, turned into a response at the edge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Reject {
    pub(crate) status: StatusCode,
    pub(crate) msg: std::borrow::Cow<'static, str>,
}

impl Reject {
    pub(crate) fn new(status: StatusCode, msg: impl Into<std::borrow::Cow<'static, str>>) -> Self {
        Self {
            status,
            msg: msg.into(),
        }
    }

    pub(crate) fn bad(msg: impl Into<std::borrow::Cow<'static, str>>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, msg)
    }

    pub(crate) fn into_response(self) -> Resp {
        error_response(self.status, &self.msg)
    }
}

/// The exchange's error shape: `{"error": "<message>"}`.
pub(crate) fn error_response(status: StatusCode, msg: &str) -> Resp {
    json_response(status, serde_json::json!({ "error": msg }).to_string())
}

/// A `200` with `v` as its body.
pub(crate) fn ok(v: &Value) -> Resp {
    json_response(StatusCode::OK, v.to_string())
}

/// The first cursor and the end marker of paginated endpoints (base64 of "0" and "-1").
pub(crate) const FIRST_CURSOR: &str = "MA==";
pub(crate) const END_CURSOR: &str = "LTE=";

/// Decoded query string pairs (minimal percent-decoding; ids are digits and hex).
pub(crate) fn parse_query(q: Option<&str>) -> Vec<(String, String)> {
    q.unwrap_or("")
        .split('&')
        .filter(|s| !s.is_empty())
        .map(|kv| {
            let (k, v) = kv.split_once('=').unwrap_or((kv, ""));
            (percent_decode(k), percent_decode(v))
        })
        .collect()
}

fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'%' if i + 2 < b.len() => {
                let hex = std::str::from_utf8(&b[i + 1..i + 3])
                    .ok()
                    .and_then(|h| u8::from_str_radix(h, 16).ok());
                match hex {
                    Some(v) => {
                        out.push(v);
                        i += 3;
                    }
                    None => {
                        out.push(b'%');
                        i += 1;
                    }
                }
            }
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            c => {
                out.push(c);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

pub(crate) fn q<'a>(query: &'a [(String, String)], key: &str) -> Option<&'a str> {
    query
        .iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.as_str())
        .filter(|v| !v.is_empty())
}

fn encode_cursor(offset: usize) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(offset.to_string())
}

/// The offset a cursor stands for; `None` for the end marker.
fn decode_cursor(c: Option<&str>) -> Result<Option<usize>, Reject> {
    use base64::Engine as _;
    match c {
        None | Some(FIRST_CURSOR) => Ok(Some(0)),
        Some(END_CURSOR) => Ok(None),
        Some(c) => base64::engine::general_purpose::STANDARD
            .decode(c)
            .ok()
            .and_then(|b| String::from_utf8(b).ok())
            .and_then(|s| s.parse::<usize>().ok())
            .map(Some)
            .ok_or_else(|| Reject::bad(format!("invalid next_cursor {c:?}"))),
    }
}

/// A page `{"data","next_cursor","limit","count"}` of `items` starting at the cursor.
pub(crate) fn page(items: Vec<Value>, cursor: Option<&str>, size: usize) -> Resp {
    let start = match decode_cursor(cursor) {
        Ok(Some(s)) => s,
        Ok(None) => {
            return ok(&json!({"data": [], "next_cursor": END_CURSOR, "limit": size, "count": 0}));
        }
        Err(r) => return r.into_response(),
    };
    let total = items.len();
    let data: Vec<Value> = items.into_iter().skip(start).take(size).collect();
    let end = start.saturating_add(data.len());
    let next = if end < total {
        encode_cursor(end)
    } else {
        END_CURSOR.to_owned()
    };
    ok(&json!({"data": data, "next_cursor": next, "limit": size, "count": data.len()}))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursors_round_trip() {
        assert_eq!(encode_cursor(0), FIRST_CURSOR);
        assert_eq!(decode_cursor(Some(FIRST_CURSOR)).ok(), Some(Some(0)));
        assert_eq!(
            decode_cursor(Some(&encode_cursor(500))).ok(),
            Some(Some(500))
        );
        assert_eq!(decode_cursor(Some(END_CURSOR)).ok(), Some(None));
        assert!(decode_cursor(Some("%%%")).is_err());
    }

    #[test]
    fn query_decoding() {
        let q = parse_query(Some("token_id=123&side=BUY&x=a%20b&bad=%zz&e="));
        assert_eq!(q[0], ("token_id".into(), "123".into()));
        assert_eq!(q[2].1, "a b");
        assert_eq!(q[3].1, "%zz");
        assert_eq!(super::q(&q, "e"), None);
        assert_eq!(percent_decode("%4"), "%4");
    }
}
