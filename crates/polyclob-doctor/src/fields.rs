//! The JSON members a polyclob type models, read from its own `Deserialize` impl (no second
//! list to drift): a derived struct hands its field names (renames and aliases included) to
//! `deserialize_struct`, where this deserializer catches them.

use serde::Deserialize;
use serde::de::{self, Visitor};

/// What the catcher returns once it has the names.
#[derive(Debug)]
struct Caught(Option<&'static [&'static str]>);

impl fmt::Display for Caught {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("field names caught")
    }
}

impl std::error::Error for Caught {}

impl de::Error for Caught {
    fn custom<T: fmt::Display>(_: T) -> Self {
        Caught(None)
    }
}

use std::fmt;

struct Catcher;

impl<'de> de::Deserializer<'de> for Catcher {
    type Error = Caught;

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Caught> {
        Err(Caught(None))
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        fields: &'static [&'static str],
        _: V,
    ) -> Result<V::Value, Caught> {
        Err(Caught(Some(fields)))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map enum identifier ignored_any
    }
}

/// The member names `T` reads, when `T` is a derived struct.
pub(crate) fn modeled<'de, T: Deserialize<'de>>() -> Option<&'static [&'static str]> {
    match T::deserialize(Catcher) {
        Ok(_) => None,
        Err(Caught(f)) => f,
    }
}

/// The keys of `row` (an object) that `modeled` does not list, sorted.
pub(crate) fn unknown(row: &serde_json::Value, modeled: &[&str]) -> Vec<String> {
    let mut out: Vec<String> = row
        .as_object()
        .map(|o| {
            o.keys()
                .filter(|k| !modeled.contains(&k.as_str()))
                .cloned()
                .collect()
        })
        .unwrap_or_default();
    out.sort();
    out
}

/// The unknown keys over many rows, each once, sorted.
pub(crate) fn unknown_in<'a>(
    rows: impl IntoIterator<Item = &'a serde_json::Value>,
    modeled: &[&str],
) -> Vec<String> {
    let mut all: Vec<String> = rows.into_iter().flat_map(|r| unknown(r, modeled)).collect();
    all.sort();
    all.dedup();
    all
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_book_lists_its_members() {
        let f = modeled::<polyclob::clob::types::BookSummary>().expect("a derived struct");
        for name in ["market", "asset_id", "hash", "bids", "asks", "version"] {
            assert!(f.contains(&name), "{name} in {f:?}");
        }
        let row = serde_json::json!({"asset_id": "1", "token_id": "1", "zeta": 0});
        assert_eq!(unknown(&row, f), ["token_id", "zeta"]);
    }
}
