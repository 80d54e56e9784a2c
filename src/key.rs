//! The `Idempotency-Key` of a call (IETF httpapi draft "The Idempotency-Key HTTP Header Field"):
//! the same on every attempt, so a server that knows the header creates the plant once.

use crate::error::Draft;
use alloc::string::String;
use wasm_bindgen::prelude::*;

/// Whether a call sends an `Idempotency-Key`, and which.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IdempotencyKey {
    /// No header.
    Off,
    /// A random UUID v4, from `crypto.getRandomValues`.
    Generated,
    /// This key: 1 to 255 printable ASCII characters, without `"` or `\`.
    Given(String),
}

impl IdempotencyKey {
    /// The header's value, a Structured Fields string (quoted), `None` for no header; a `config`
    /// error for a given key that is not one.
    pub(crate) fn header(&self) -> Result<Option<String>, Draft> {
        let key = match self {
            IdempotencyKey::Off => return Ok(None),
            IdempotencyKey::Generated => &uuid()?,
            IdempotencyKey::Given(key) => key,
        };
        let printable = |b: u8| (b' '..=b'~').contains(&b) && b != b'"' && b != b'\\';
        if key.is_empty() || key.len() > 255 || !key.bytes().all(printable) {
            let message =
                "idempotencyKey must be 1 to 255 printable ASCII characters, without \" or \\";
            return Err(Draft::config(message));
        }
        Ok(Some(["\"", key, "\""].concat()))
    }
}

/// A random UUID v4 (RFC 9562), by hand: 16 bytes from `crypto.getRandomValues` (which every
/// runtime has, unlike `crypto.randomUUID` outside secure contexts) and their hex; the `uuid`
/// crate would reach the same bytes through getrandom's JS backend, a dependency for 20 lines.
fn uuid() -> Result<String, Draft> {
    let mut bytes = [0u8; 16];
    random_values(&mut bytes).map_err(|cause| {
        let message = "idempotencyKey needs crypto.getRandomValues, which this runtime lacks";
        Draft::config(message).with_cause(cause)
    })?;
    bytes[6] = bytes[6] & 0x0f | 0x40;
    bytes[8] = bytes[8] & 0x3f | 0x80;
    let mut out = String::with_capacity(36);
    for (i, byte) in bytes.iter().enumerate() {
        if matches!(i, 4 | 6 | 8 | 10) {
            out.push('-');
        }
        for nibble in [byte >> 4, byte & 15] {
            out.push(char::from_digit(nibble.into(), 16).unwrap_or('0'));
        }
    }
    Ok(out)
}

#[wasm_bindgen]
extern "C" {
    /// `crypto.getRandomValues(bytes)`; throws where there is no `crypto`.
    #[wasm_bindgen(catch, js_namespace = crypto, js_name = getRandomValues)]
    fn random_values(bytes: &mut [u8]) -> Result<JsValue, JsValue>;
}
