//! Issue 22, the token rule as a property over the pure answer path: whatever a server answers,
//! `answer::outcome` followed by `Draft::redact(token)` exposes no 8-character piece of the token
//! (a token shorter than 8 characters: not the whole of it) in the message, `Display` or `Debug`.
//!
//! Each case is a bearer token (an RFC 6750 b64token of 1 to 300 characters) and an answer that
//! carries it, or a piece of it: whole, a prefix, a suffix or a middle piece, as it is or
//! JSON-escaped (`\uXXXX` in either case of hex, `\/`), at an offset chosen near the start, across
//! the excerpt's cut (300 characters), across the read limit (`ERROR_BODY_LIMIT` for any status but
//! 200, `limit(200, echoed)` for a 200; the body is then cut there and `complete` is false, as
//! the shell, `js/call.js`, reads it), or anywhere. The body is plain text, an Error whose message quotes
//! it, a JSON string value of something that is not a Plant, the token bare inside JSON, a member
//! name, or the token alone; the status 200, 400 or another. The search is independent of
//! `error.rs`: the exposed text is searched as it is and with its JSON escapes decoded once, and
//! `[redacted]` (the marker, which holds no byte of the token) does not count.
//!
//! `cargo test -p plant-store-client --lib proptests` (`SECRETS_SEED=n` searches another part of
//! the space; `SECRETS_CASES=n` runs more or fewer cases).
extern crate std;

use crate::answer::{limit, outcome};
use crate::error::{Draft, Error};
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::cell::RefCell;
use core::fmt;
use proptest::prelude::*;
use proptest::test_runner::{
    Config as ProptestConfig, RngAlgorithm, TestCaseError, TestRng, TestRunner,
};
use std::println;

/// Generated cases per run (each a token and an answer).
const CASES: u32 = 5_000;
/// Where `answer.rs` cuts an excerpt of a server's text, in characters (its `EXCERPT_CHARS`).
const EXCERPT_CUT: usize = 300;
/// RFC 6750 b64token characters, before the trailing `=`s.
const B64: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~+/";
const OTHER_STATUSES: &[u16] = &[201, 204, 302, 401, 403, 404, 409, 418, 429, 500, 502, 503, 599];
/// What pads the body before the token, repeated: ASCII, spaces, 2- and 4-byte UTF-8.
const FILLS: &[&str] = &["x", " ", "é", "ab🌿", "- "];
/// Leading whitespace, which the excerpt trims: so a token just past a long run of it shows.
const LEADS: &[&str] = &[" ", "\n", "\t", "\r\n"];

/// How the body holds the token.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Shape {
    /// `…token…` as text.
    Plain,
    /// `{"error":N,"message":"…token…"}`.
    ErrorMessage,
    /// `{"name":5,"tag":"…token…"}`: a JSON string value of something that is not a Plant.
    StringValue,
    /// `{"name":…token…}`: the token bare inside JSON, not JSON.
    Bare,
    /// `{"…token…":1,"error":1,"message":"m"}`: the token as a member name.
    MemberName,
    /// The body is the token (or its piece), nothing else.
    Alone,
}

const SHAPES: &[Shape] = &[
    Shape::Plain,
    Shape::ErrorMessage,
    Shape::StringValue,
    Shape::Bare,
    Shape::MemberName,
    Shape::Alone,
];

/// Where the piece starts.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Place {
    /// Within the first 40 bytes of padding.
    Start,
    /// Across the excerpt's cut: the text before the piece is about 300 characters.
    ExcerptCut,
    /// Across the read limit: the body is cut inside the piece (or just after it).
    ReadLimit,
    /// Anywhere up to a little past the read limit.
    Anywhere,
}

/// The random numbers a case is built from (proptest shrinks them; [`build`] is deterministic).
#[derive(Clone, Debug)]
struct Plan {
    token: (usize, Vec<usize>, usize),
    status: (u8, usize),
    echoed: usize,
    cut: (u8, usize, usize),
    escape: (u8, u64),
    shape: usize,
    place: (u8, usize, u8),
    pad: (usize, usize),
    tail: u8,
    code: i32,
}

/// One hostile answer, as the shell (`js/call.js`) would hand it to `outcome`.
struct Case {
    token: String,
    status: u16,
    limit: usize,
    /// The body as sent (before the read limit).
    body: Vec<u8>,
    /// Where the piece starts in `body`, and its written form.
    at: usize,
    written: String,
    shape: Shape,
    place: Place,
    escaped: bool,
    piece: String,
}

impl Case {
    fn complete(&self) -> bool {
        self.body.len() <= self.limit
    }
    fn read(&self) -> &[u8] {
        &self.body[..self.body.len().min(self.limit)]
    }
}

/// A failing case prints what matters, not 70 KB of padding.
impl fmt::Debug for Case {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let from = self.at.saturating_sub(40);
        let to = (self.at + self.written.len() + 40).min(self.body.len());
        f.debug_struct("Case")
            .field("token", &self.token)
            .field("status", &self.status)
            .field("shape", &self.shape)
            .field("place", &self.place)
            .field("piece", &self.piece)
            .field("written", &self.written)
            .field("at", &self.at)
            .field("body_len", &self.body.len())
            .field("limit", &self.limit)
            .field("complete", &self.complete())
            .field("body_start", &String::from_utf8_lossy(&self.body[..self.body.len().min(80)]))
            .field("around_piece", &String::from_utf8_lossy(&self.body[from..to]))
            .finish()
    }
}

fn plan() -> impl Strategy<Value = Plan> {
    let token_len = prop_oneof![1usize..8, 8usize..=12, 13usize..=64, 65usize..=300];
    let token = token_len
        .prop_flat_map(|len| (Just(len), prop::collection::vec(0..B64.len(), len), 0usize..=2));
    (
        token,
        (0u8..10, any::<usize>()),
        prop_oneof![Just(4usize), 0usize..100, 100usize..3000],
        (0u8..8, any::<usize>(), any::<usize>()),
        (0u8..6, any::<u64>()),
        0..SHAPES.len(),
        (0u8..4, any::<usize>(), 0u8..3),
        (0..FILLS.len(), 0..LEADS.len()),
        0u8..4,
        -5i32..1000,
    )
        .prop_map(|(token, status, echoed, cut, escape, shape, place, pad, tail, code)| Plan {
            token,
            status,
            echoed,
            cut,
            escape,
            shape,
            place,
            pad,
            tail,
            code,
        })
}

/// xorshift64, for the per-character choices of an escape.
fn next(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

fn build(p: &Plan) -> Case {
    // The token: b64token characters, the last 0 to 2 of them `=`, never all.
    let (len, chars, equals) = &p.token;
    let mut token: String = chars.iter().map(|&i| char::from(B64[i])).collect();
    let equals = (*equals).min(len - 1);
    token.truncate(len - equals);
    token.extend(core::iter::repeat_n('=', equals));

    let status = match p.status.0 {
        0..=2 => 200,
        3..=5 => 400,
        _ => OTHER_STATUSES[p.status.1 % OTHER_STATUSES.len()],
    };
    let limit = limit(status, p.echoed);

    // The piece: the whole token most often, else a prefix, suffix or middle piece.
    let (kind, a, b) = p.cut;
    let piece = match kind {
        0..=3 => token.clone(),
        4 => token[..1 + a % len].to_string(),
        5 => token[a % len..].to_string(),
        _ => {
            let start = a % len;
            let end = start + 1 + b % (len - start);
            token[start..end].to_string()
        }
    };

    // Written: as it is, or some of its characters escaped.
    let (mode, seed) = p.escape;
    let mut state = seed | 1;
    let share = [0, 0, 0, 10, 50, 100][usize::from(mode)];
    let mut escaped = false;
    let written: String = piece
        .chars()
        .map(|c| {
            let roll = next(&mut state) % 100;
            if c == '/' && roll < 50 && share > 0 {
                escaped = true;
                return "\\/".to_string();
            }
            if roll < share {
                escaped = true;
                return match next(&mut state) % 2 {
                    0 => format!("\\u{:04x}", u32::from(c)),
                    _ => format!("\\u{:04X}", u32::from(c)),
                };
            }
            c.to_string()
        })
        .collect();

    let shape = SHAPES[p.shape];
    let (open, close) = match shape {
        Shape::Plain | Shape::Alone => (String::new(), String::new()),
        Shape::ErrorMessage => (format!(r#"{{"error":{},"message":""#, p.code), r#""}"#.into()),
        Shape::StringValue => (r#"{"name":5,"tag":""#.into(), r#""}"#.into()),
        Shape::Bare => (r#"{"name":"#.into(), "}".into()),
        Shape::MemberName => (r#"{""#.into(), r#"":1,"error":1,"message":"m"}"#.into()),
    };
    let tail = match (shape, p.tail) {
        (Shape::Alone, _) | (_, 0) => String::new(),
        (_, 1) => " and more".into(),
        // The same piece again, as servers that echo a header twice do.
        (_, 2) => format!(" (sent as {written})"),
        _ => "x".repeat(5000),
    };

    // The padding before the piece: leading whitespace (trimmed by the excerpt) and fill.
    let (place_kind, r, split) = p.place;
    let place = [Place::Start, Place::ExcerptCut, Place::ReadLimit, Place::Anywhere]
        [usize::from(place_kind)];
    let fill = FILLS[p.pad.0];
    let lead = LEADS[p.pad.1];
    let (lead_bytes, fill_chars) = match (shape, place) {
        (Shape::Alone, _) => (0, 0),
        (_, Place::Start) => (0, r % 40),
        // The text before the piece, as the excerpt counts it, is 300 characters or a little
        // less, so that the cut falls inside the piece or just after it.
        (_, Place::ExcerptCut) => {
            (r % 3, (EXCERPT_CUT + 5).saturating_sub(r % (written.chars().count() + 40)))
        }
        (_, Place::ReadLimit | Place::Anywhere) => {
            let target = match place {
                Place::ReadLimit => limit.saturating_sub(r % (written.len() + 8)),
                _ => r % (limit + 256),
            };
            let room = target.saturating_sub(open.len());
            // All leading whitespace (the excerpt then starts near the piece), all fill, or half.
            let lead_bytes = match split {
                0 => room,
                1 => 0,
                _ => room / 2,
            };
            let fill_bytes = room - lead_bytes;
            (lead_bytes, fill_bytes / fill.len() * fill.chars().count())
        }
    };
    let mut body = lead.repeat(lead_bytes / lead.len());
    body.push_str(&open);
    let fill_text: String = fill.chars().cycle().take(fill_chars).collect();
    body.push_str(&fill_text);
    let at = body.len();
    body.push_str(&written);
    body.push_str(&tail);
    body.push_str(&close);

    Case {
        token,
        status,
        limit,
        body: body.into_bytes(),
        at,
        written,
        shape,
        place,
        escaped,
        piece,
    }
}

/// The pieces whose presence is a leak: every 8-character window of the token, or the whole of
/// a shorter one.
fn pieces(token: &str) -> Vec<&str> {
    match token.len() {
        0..8 => alloc::vec![token],
        n => (0..=n - 8).map(|i| &token[i..i + 8]).collect(),
    }
}

/// `text` with its JSON escapes decoded once (`\uXXXX`, `\/` and the others); a backslash that
/// starts none is kept. Written apart from `error.rs`, so that the search does not share its bugs.
fn decode_once(text: &str) -> String {
    let mut out = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let rest: String = chars.clone().take(5).collect();
        let simple = match rest.chars().next() {
            Some('/') => Some('/'),
            Some('\\') => Some('\\'),
            Some('"') => Some('"'),
            _ => None,
        };
        if let Some(s) = simple {
            chars.next();
            out.push(s);
        } else if rest.len() == 5 && rest.starts_with('u') {
            match u32::from_str_radix(&rest[1..], 16).ok().and_then(char::from_u32) {
                Some(decoded) => {
                    out.push(decoded);
                    for _ in 0..5 {
                        chars.next();
                    }
                }
                None => out.push('\\'),
            }
        } else {
            out.push('\\');
        }
    }
    out
}

/// Occurrences of `piece` in `text`, overlapping ones included.
fn count(text: &str, piece: &str) -> usize {
    text.as_bytes().windows(piece.len()).filter(|w| *w == piece.as_bytes()).count()
}

/// The marker is ours: `[redacted]` holds no byte of the token, even when the token spells it.
fn unmarked(text: &str) -> String {
    text.replace("[redacted]", "[]")
}

/// What is wrong with `e` for `token`: the first piece found in an exposed text more often than
/// in the client's own words (`ours`: the message with every text from outside left out), where a
/// short token may occur by chance ("Plant", "401"), and which redaction leaves alone.
fn leak(e: &Error, token: &str, ours: &str) -> Option<String> {
    let mut texts = alloc::vec![("message", e.message().to_string()), ("Display", format!("{e}")),];
    for (i, issue) in e.issues().iter().enumerate() {
        texts.push(("issue", format!("{i}: {} {}", issue.path, issue.message)));
    }
    for (where_, text) in &texts {
        let own = if *where_ == "issue" { String::new() } else { ours.to_string() };
        for (form, own) in
            [(unmarked(text), own.clone()), (unmarked(&decode_once(text)), decode_once(&own))]
        {
            if let Some(piece) =
                pieces(token).into_iter().find(|p| count(&form, p) > count(&own, p))
            {
                return Some(format!("{piece:?} in {where_}: {text}"));
            }
        }
    }
    // Debug prints the error's own structure too (its kind, `status: Some(..)`, field names): a
    // piece counts as leaked when it occurs more often than in the Debug of the same error with
    // the client's own words for a message.
    let mut skeleton = Draft::new(e.kind(), String::from(ours));
    if let Some(status) = e.status() {
        skeleton = skeleton.with_status(status);
    }
    if let Some(code) = e.code() {
        skeleton = skeleton.with_code(code);
    }
    let skeleton = unmarked(&format!("{:?}", skeleton.redact(&[])));
    let debug = unmarked(&format!("{e:?}"));
    pieces(token)
        .into_iter()
        .find(|p| count(&debug, p) > count(&skeleton, p))
        .map(|piece| format!("{piece:?} in Debug: {debug}"))
}

/// What the run saw, so that it can show it searched where it should.
#[derive(Default, Debug)]
struct Seen {
    cases: u32,
    errors: u32,
    plants: u32,
    cut_by_limit: u32,
    redacted: u32,
    redacted_cut_by_limit: u32,
    redacted_escaped: u32,
    redacted_near_excerpt_cut: u32,
    errors_200: u32,
    redacted_400: u32,
    redacted_other: u32,
    short_tokens: u32,
}

#[test]
fn no_piece_of_the_token_in_any_error_text() {
    let seed: u64 =
        std::env::var("SECRETS_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(0x5eed_0022);
    let cases: u32 =
        std::env::var("SECRETS_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(CASES);
    let mut seed_bytes = [0u8; 32];
    seed_bytes[..8].copy_from_slice(&seed.to_le_bytes());
    let config = ProptestConfig {
        cases,
        failure_persistence: None,
        max_shrink_iters: 4096,
        ..ProptestConfig::default()
    };
    let rng = TestRng::from_seed(RngAlgorithm::ChaCha, &seed_bytes);
    let mut runner = TestRunner::new_with_rng(config, rng);
    let seen = RefCell::new(Seen::default());
    let result = runner.run(&plan().prop_map(|p| build(&p)), |case| {
        prop_assert!(
            plant_store_model::check_bearer_token(&case.token).is_ok(),
            "the generator made a token that is not a b64token: {:?}",
            case.token
        );
        let result = outcome(
            case.status,
            case.read(),
            case.complete(),
            case.limit,
            ("https://h.example/plants", "options.baseUrl"),
        );
        let mut seen = seen.borrow_mut();
        seen.cases += 1;
        seen.short_tokens += u32::from(case.token.len() < 8);
        let (error, ours) = match result {
            Ok(_) => {
                seen.plants += 1;
                return Ok(());
            }
            Err(draft) => (draft.clone().redact(&[&case.token]), draft.ours()),
        };
        seen.errors += 1;
        seen.errors_200 += u32::from(case.status == 200);
        seen.cut_by_limit += u32::from(!case.complete());
        if let Some(found) = leak(&error, &case.token, &ours) {
            return Err(TestCaseError::fail(format!("{found}\n{case:?}")));
        }
        if error.message().contains("[redacted]") {
            seen.redacted += 1;
            seen.redacted_cut_by_limit += u32::from(!case.complete());
            seen.redacted_escaped += u32::from(case.escaped);
            seen.redacted_near_excerpt_cut += u32::from(case.place == Place::ExcerptCut);
            match case.status {
                200 => {}
                400 => seen.redacted_400 += 1,
                _ => seen.redacted_other += 1,
            }
        }
        Ok(())
    });
    if let Err(e) = result {
        panic!("seed {seed:#x}: {e}");
    }
    let seen = seen.into_inner();
    println!("secrets proptest (seed {seed:#x}): {seen:?}");
    // The search reached where it should: a test whose cases never put the token where an
    // error shows it could not fail.
    let share = |n: u32| f64::from(n) / f64::from(seen.cases);
    assert_eq!(seen.cases, cases);
    // (About 15 % of the cases: an excerpt cut in a word drops the word, token pieces and all.)
    assert!(share(seen.redacted) > 0.12, "{seen:?}");
    for (what, n) in [
        ("redacted after the read limit cut the body", seen.redacted_cut_by_limit),
        ("redacted from an escaped piece", seen.redacted_escaped),
        ("redacted near the excerpt's cut", seen.redacted_near_excerpt_cut),
        // A 200's message quotes nothing of the body; it is searched all the same.
        ("failing as a 200", seen.errors_200),
        ("redacted in a 400", seen.redacted_400),
        ("redacted in another status", seen.redacted_other),
    ] {
        assert!(share(n) > 0.01, "too few cases {what}: {seen:?}");
    }
}
