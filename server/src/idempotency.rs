//! The `Idempotency-Key` request header, as the IETF httpapi draft "The Idempotency-Key HTTP Header
//! Field" describes it: the first request with a key is processed and its answer kept; the same key
//! with the same body gets that answer again (with `Idempotent-Replayed: true`), and with another
//! body a 422. Keys are bounded in number ([`MAX_KEYS`], the oldest forgotten first) and in time
//! ([`KEPT_FOR`]).

use axum::body::Bytes;
use axum::http::StatusCode;
use std::collections::hash_map::DefaultHasher;
use std::collections::{HashMap, VecDeque};
use std::hash::{Hash, Hasher};
use std::time::{Duration, Instant};

/// The most keys remembered; a new key past it forgets the oldest.
pub const MAX_KEYS: usize = 10_000;
/// How long an answer is kept for its key.
pub const KEPT_FOR: Duration = Duration::from_secs(24 * 60 * 60);

/// An answer kept for a key, with the fingerprint of the body that made it.
#[derive(Debug)]
struct Kept {
    fingerprint: u64,
    status: StatusCode,
    body: Bytes,
    at: Instant,
}

/// What a request with a key gets.
#[derive(Debug, PartialEq, Eq)]
pub enum Seen {
    /// The key is new (or forgotten): process the request, then [`Keys::keep`] its answer.
    New,
    /// The same key and body: this answer again.
    Replay(StatusCode, Bytes),
    /// The same key with another body.
    Mismatch,
}

/// The keys seen, and their answers.
#[derive(Debug, Default)]
pub struct Keys {
    kept: HashMap<String, Kept>,
    /// The keys by age, the oldest first.
    order: VecDeque<String>,
}

impl Keys {
    /// What a request with `key` and `body` gets, at `now`.
    pub fn seen(&mut self, key: &str, body: &[u8], now: Instant) -> Seen {
        self.forget_expired(now);
        match self.kept.get(key) {
            None => Seen::New,
            Some(kept) if kept.fingerprint == fingerprint(body) => {
                Seen::Replay(kept.status, kept.body.clone())
            }
            Some(_) => Seen::Mismatch,
        }
    }

    /// Keeps the answer to the first request with `key`.
    pub fn keep(
        &mut self,
        key: &str,
        body: &[u8],
        status: StatusCode,
        answer: Bytes,
        now: Instant,
    ) {
        if self.order.len() >= MAX_KEYS {
            if let Some(oldest) = self.order.pop_front() {
                self.kept.remove(&oldest);
            }
        }
        let kept = Kept { fingerprint: fingerprint(body), status, body: answer, at: now };
        if self.kept.insert(key.to_owned(), kept).is_none() {
            self.order.push_back(key.to_owned());
        }
    }

    /// How many keys are remembered.
    pub fn len(&self) -> usize {
        self.kept.len()
    }

    /// Whether no key is remembered.
    pub fn is_empty(&self) -> bool {
        self.kept.is_empty()
    }

    /// Forgets every key.
    pub fn clear(&mut self) {
        self.kept.clear();
        self.order.clear();
    }

    fn forget_expired(&mut self, now: Instant) {
        while let Some(oldest) = self.order.front() {
            match self.kept.get(oldest) {
                Some(kept) if now.duration_since(kept.at) < KEPT_FOR => break,
                _ => {
                    let oldest = self.order.pop_front().unwrap_or_default();
                    self.kept.remove(&oldest);
                }
            }
        }
    }
}

/// The key of an `Idempotency-Key` header: a Structured Fields string (`"…"`), unquoted; `None`
/// for a value that is not one.
pub fn key_of(header: &str) -> Option<&str> {
    let key = header.trim().strip_prefix('"')?.strip_suffix('"')?;
    let printable = |b: u8| (b' '..=b'~').contains(&b) && b != b'"' && b != b'\\';
    (!key.is_empty() && key.len() <= 255 && key.bytes().all(printable)).then_some(key)
}

fn fingerprint(body: &[u8]) -> u64 {
    let mut hasher = DefaultHasher::new();
    body.hash(&mut hasher);
    hasher.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_key_replays_and_another_body_is_a_mismatch() {
        let (mut keys, now) = (Keys::default(), Instant::now());
        assert_eq!(keys.seen("k", b"{}", now), Seen::New);
        keys.keep("k", b"{}", StatusCode::OK, Bytes::from_static(b"{\"name\":\"a\"}"), now);
        assert_eq!(
            keys.seen("k", b"{}", now),
            Seen::Replay(StatusCode::OK, Bytes::from_static(b"{\"name\":\"a\"}"))
        );
        assert_eq!(keys.seen("k", b"{ }", now), Seen::Mismatch);
        assert_eq!(keys.seen("other", b"{}", now), Seen::New);
    }

    #[test]
    fn keys_are_bounded_in_number_and_in_time() {
        let (mut keys, now) = (Keys::default(), Instant::now());
        for i in 0..MAX_KEYS + 5 {
            keys.keep(&i.to_string(), b"", StatusCode::OK, Bytes::new(), now);
        }
        assert_eq!(keys.len(), MAX_KEYS);
        assert_eq!(keys.seen("0", b"", now), Seen::New, "the oldest is forgotten first");
        assert!(matches!(keys.seen("5", b"", now), Seen::Replay(..)));
        assert_eq!(keys.seen("5", b"", now + KEPT_FOR), Seen::New, "and every key in time");
        assert!(keys.is_empty());
    }

    #[test]
    fn a_key_is_a_structured_fields_string() {
        assert_eq!(key_of("\"8e1a-42\""), Some("8e1a-42"));
        for bad in ["8e1a", "\"\"", "\"a\"b\"", "\"\\\"", "\"é\""] {
            assert_eq!(key_of(bad), None, "{bad}");
        }
    }
}
