//! Issue 5, secrets: the token never shows in a Rust `Debug` print of what holds it (natively: the
//! types are built without JavaScript values, which is all `Debug` ever looks at).
#![cfg(not(target_arch = "wasm32"))]

use plant_store_client::error::{Error, Kind};
use plant_store_client::options::{Auth, Config};
use plant_store_model::{Issue, Token};
use wasm_bindgen::JsCast;

const TOKEN: &str = "Hk7-s3cr3t.T0ken_Zq9~w";

/// Every 8-character piece of the token, so a partial print is caught too.
fn leaks(text: &str) -> bool {
    (0..=TOKEN.len() - 8).any(|i| text.contains(&TOKEN[i..i + 8]))
}

#[test]
fn config_token_and_errors_print_without_the_token() {
    let token = Token::new(TOKEN.into()).unwrap();
    let config = Config {
        url: "http://127.0.0.1:1/plants".into(),
        auth: Auth::Token(token.clone()),
        fetch: None,
        signal: None,
        timeout_ms: 1000,
        // The header object is JavaScript; Debug never reads it (it prints the names below).
        headers: wasm_bindgen::JsValue::UNDEFINED.unchecked_into(),
        extra_header_names: vec!["X-Trace".into()],
    };
    let echoed = Error::new(Kind::UnexpectedStatus, format!("the Plant Store answered 401: Bearer {TOKEN}")).with_status(401).redact(TOKEN);
    let issue = Issue::not_an_object("a revoked Proxy");
    let printed = [
        format!("{token:?}"),
        format!("{config:?}"),
        format!("{config:#?}"),
        format!("{:?}", config.auth),
        format!("{echoed:?}"),
        format!("{:?}", Error::validation(vec![issue])),
        format!("{:?}", Token::new(format!("{TOKEN} x")).unwrap_err()),
        Token::new(format!("{TOKEN}\r\n")).unwrap_err().to_string(),
    ];
    for text in &printed {
        assert!(!leaks(text), "the token shows in {text}");
    }
    assert!(printed[1].contains("X-Trace"), "header names are shown, values are not: {}", printed[1]);
    assert!(printed[4].contains("[redacted]"), "{}", printed[4]);
}
