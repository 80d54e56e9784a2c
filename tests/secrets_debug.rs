//! Secrets: the token never shows in a Rust `Debug` print of what holds it: the `Config` a Rust
//! caller writes (and the token inside it), and the model's `Token`. (An error whose message a server filled
//! with the token is redacted before anyone sees it: see the unit tests of `error` and `answer`.)
#![cfg(not(target_arch = "wasm32"))]

use plant_store_client::Config;
use plant_store_model::Token;

const TOKEN: &str = "Hk7-s3cr3t.T0ken_Zq9~w";

/// Every 8-character piece of the token, so a partial print is caught too.
fn leaks(text: &str) -> bool {
    (0..=TOKEN.len() - 8).any(|i| text.contains(&TOKEN[i..i + 8]))
}

#[test]
fn settings_and_tokens_print_without_the_token() {
    let config = Config::new("https://plants.example/api").token(TOKEN).header("X-Trace", "t-1");
    let printed = [
        format!("{config:?}"),
        format!("{config:#?}"),
        format!("{:?}", Token::new(TOKEN.into()).unwrap()),
        format!("{:?}", Token::new(format!("{TOKEN} x")).unwrap_err()),
        Token::new(format!("{TOKEN}\r\n")).unwrap_err().to_string(),
    ];
    for text in &printed {
        assert!(!leaks(text), "the token shows in {text}");
    }
    assert!(printed[0].contains("X-Trace"), "{}", printed[0]);
}
