//! The bearer token: its RFC 6750 form, and a wrapper that keeps it out of every `Debug` print.

use alloc::string::String;
use core::fmt;

/// A bearer token known to be a valid RFC 6750 `b64token`. Its `Debug` form is redacted.
#[derive(Clone, PartialEq, Eq)]
pub struct Token(String);

impl Token {
    /// Checks `token` and wraps it.
    ///
    /// # Errors
    /// When the token is empty or not a `b64token`; the error never holds the token.
    pub fn new(token: String) -> Result<Token, TokenError> {
        check_bearer_token(&token)?;
        Ok(Token(token))
    }

    /// The token itself, for the `Authorization` header and nothing else.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Token([redacted])")
    }
}

/// Why a token was refused. It never holds the token, nor any character of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum TokenError {
    /// The token is the empty string.
    Empty,
    /// The token starts with `Bearer `: it is the header's value, not the token.
    BearerPrefix,
    /// The token holds a character outside the `b64token` alphabet (CR, LF, a space, …) or has `=`
    /// before its end.
    NotB64Token,
}

impl TokenError {
    /// The sentence `Display` writes, without core::fmt (which the wasm client leaves out).
    pub fn reason(self) -> &'static str {
        match self {
            TokenError::Empty => "token is empty",
            TokenError::BearerPrefix => {
                "token starts with `Bearer `: pass the token without the `Bearer ` prefix (the \
                 client adds it); its value is not shown"
            }
            TokenError::NotB64Token => {
                "token is not a valid bearer token (RFC 6750 b64token: letters, digits, - . _ ~ + / \
                 and only trailing =); its value is not shown"
            }
        }
    }
}

impl fmt::Display for TokenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.reason())
    }
}

impl core::error::Error for TokenError {}

/// Checks that `token` is an RFC 6750 `b64token`: `1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" /
/// "/" ) *"="`.
///
/// # Errors
/// [`TokenError::Empty`], [`TokenError::BearerPrefix`] or [`TokenError::NotB64Token`].
pub fn check_bearer_token(token: &str) -> Result<(), TokenError> {
    let body = token.trim_end_matches('=');
    if token.is_empty() {
        Err(TokenError::Empty)
    } else if token.get(..7).is_some_and(|start| start.eq_ignore_ascii_case("bearer ")) {
        Err(TokenError::BearerPrefix)
    } else if body.is_empty()
        || !body.bytes().all(|b| b.is_ascii_alphanumeric() || b"-._~+/".contains(&b))
    {
        Err(TokenError::NotB64Token)
    } else {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::{format, string::ToString};

    #[test]
    fn b64token_form() {
        for ok in ["abc", "A-Z.a_z~0+9/", "abc==", "x="] {
            assert_eq!(check_bearer_token(ok), Ok(()), "{ok}");
        }
        assert_eq!(check_bearer_token(""), Err(TokenError::Empty));
        for prefixed in ["Bearer abc", "bearer abc", "BEARER abc"] {
            assert_eq!(check_bearer_token(prefixed), Err(TokenError::BearerPrefix), "{prefixed}");
        }
        for bad in ["=", "a b", "a\r\nX-Evil: 1", "a=b", "tök", "a\0", "a\t", " a", "a,b", "\"a\""]
        {
            assert_eq!(check_bearer_token(bad), Err(TokenError::NotB64Token), "{bad:?}");
        }
    }

    #[test]
    fn messages_word_for_word() {
        assert_eq!(TokenError::Empty.to_string(), "token is empty");
        assert_eq!(
            TokenError::NotB64Token.to_string(),
            "token is not a valid bearer token (RFC 6750 b64token: letters, digits, - . _ ~ + / and \
             only trailing =); its value is not shown"
        );
    }

    #[test]
    fn debug_and_errors_never_show_the_token() {
        let token = Token::new("s3cr3t-value".into()).unwrap();
        assert_eq!(format!("{token:?}"), "Token([redacted])");
        assert_eq!(token.expose(), "s3cr3t-value");
        let err = Token::new("s3cr3t value".into()).unwrap_err();
        assert!(!format!("{err} {err:?}").contains("s3cr3t"));
    }
}
