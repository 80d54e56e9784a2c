//! The one place where text from outside is made safe to show: a run of a message marked as
//! another's ([`theirs`]: a server's, a JS failure's, the caller's), searched for pieces of the
//! tokens a call sent, which become `[redacted]` ([`shown`]); the client's own words are never
//! searched, so a short token garbles none of them. `Draft::redact` (`error.rs`) is its one caller.

use alloc::string::String;

/// What marks a run of text from outside in a message: two control characters, which no text from
/// outside keeps ([`theirs`] flattens them) and [`shown`] removes.
pub(crate) const OPEN: u8 = 1;
pub(crate) const CLOSE: u8 = 2;

/// Text from outside (a server's, a JS failure's, the caller's), marked for a message: the only
/// text of a message that redaction covers, so the client's own sentences are never garbled. Its
/// control characters become spaces, so that a message stays one line and no mark is forged.
pub(crate) fn theirs(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push(char::from(OPEN));
    out.extend(text.chars().map(|c| if c.is_control() { ' ' } else { c }));
    out.push(char::from(CLOSE));
    out
}

/// `message` as it may be shown: each run [`theirs`] marked, [`hidden`] against `secrets`, the
/// marks removed. Server text reaches a message decoded (an Error's message) or cut before its
/// first backslash (a body's excerpt), so no JSON escape can hide a piece of the token.
pub(crate) fn shown(message: &str, secrets: &[&str]) -> String {
    let mut out = String::with_capacity(message.len());
    let mut rest = message;
    while let Some(open) = rest.bytes().position(|b| b == OPEN) {
        let (ours, after) =
            (rest.get(..open).unwrap_or_default(), rest.get(open + 1..).unwrap_or_default());
        let close = after.bytes().position(|b| b == CLOSE).unwrap_or(after.len());
        out.push_str(ours);
        out.push_str(&hidden(after.get(..close).unwrap_or_default(), secrets));
        rest = after.get(close + 1..).unwrap_or_default();
    }
    out.push_str(rest);
    out
}

/// `text` with every run covered by a piece of one of `secrets` (8 characters, or all of a shorter
/// one) replaced by `[redacted]`.
pub(crate) fn hidden(text: &str, secrets: &[&str]) -> String {
    let mut text = String::from(text);
    for secret in secrets {
        let mut out = String::with_capacity(text.len());
        let mut at = 0;
        while let Some((start, end)) = covered(text.as_bytes(), secret.as_bytes(), at) {
            out.push_str(text.get(at..start).unwrap_or_default());
            out.push_str("[redacted]");
            at = end;
        }
        out.push_str(text.get(at..).unwrap_or_default());
        text = out;
    }
    text
}

/// The first run of `text` from `from` on that is covered by pieces of `secret`: windows of 8 bytes
/// (or the whole of a shorter secret) found in it, merged where they overlap or touch. A token is
/// ASCII, so a run starts and ends on character boundaries.
fn covered(text: &[u8], secret: &[u8], from: usize) -> Option<(usize, usize)> {
    let width = secret.len().min(8);
    let found = |at: usize| {
        let window = text.get(at..at + width);
        width > 0 && (0..=secret.len() - width).any(|i| secret.get(i..i + width) == window)
    };
    let start = (from..text.len()).find(|&at| found(at))?;
    let mut end = start + width;
    let mut at = start + 1;
    while at <= end {
        if found(at) {
            end = at + width;
        }
        at += 1;
    }
    Some((start, end))
}
