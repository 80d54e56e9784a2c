//! Issue 5, secrets: the token never shows in a Rust `Debug` print of what holds it. The options,
//! with their headers, live in JavaScript (js/runtime.js `configure`); what Rust holds is the
//! `Token` of the model and the errors, checked natively here.
#![cfg(not(target_arch = "wasm32"))]

use plant_store_client::error::{Error, Kind};
use plant_store_model::{Issue, Token};

const TOKEN: &str = "Hk7-s3cr3t.T0ken_Zq9~w";

/// Every 8-character piece of the token, so a partial print is caught too.
fn leaks(text: &str) -> bool {
    (0..=TOKEN.len() - 8).any(|i| text.contains(&TOKEN[i..i + 8]))
}

#[test]
fn token_and_errors_print_without_the_token() {
    let token = Token::new(TOKEN.into()).unwrap();
    let echoed = Error::new(
        Kind::UnexpectedStatus,
        format!("the Plant Store answered 401: Bearer {TOKEN}"),
    )
    .with_status(401)
    .redact(TOKEN);
    let issue = Issue::not_an_object("a revoked Proxy");
    let printed = [
        format!("{token:?}"),
        format!("{echoed:?}"),
        format!("{:?}", Error::validation(vec![issue])),
        format!("{:?}", Token::new(format!("{TOKEN} x")).unwrap_err()),
        Token::new(format!("{TOKEN}\r\n")).unwrap_err().to_string(),
    ];
    for text in &printed {
        assert!(!leaks(text), "the token shows in {text}");
    }
    assert!(printed[1].contains("[redacted]"), "{}", printed[1]);
}
