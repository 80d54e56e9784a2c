//! From a `baseUrl` to the create-plant URL, `{baseUrl}/plants`.
//!
//! The base URL must be an absolute `http` or `https` URL. It may carry a path prefix
//! (`https://host/api/v1`, with or without a trailing slash); a query, a fragment, user info, white
//! space or another scheme is refused, because each would be dropped or misplaced when `/plants` is
//! appended, or would put a credential where the bearer token is not. Messages never repeat the URL,
//! which may hold a credential.

use alloc::string::String;
use core::fmt;

/// Why a base URL was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BaseUrlError {
    /// Not `http://…` or `https://…`.
    Scheme,
    /// Holds white space or a control character.
    Whitespace,
    /// Holds `user:password@`.
    UserInfo,
    /// The host (or port) is missing or malformed.
    Host,
    /// Holds a `?query`.
    Query,
    /// Holds a `#fragment`.
    Fragment,
    /// Holds a backslash, which URL parsers read differently.
    Backslash,
}

/// The end of every [`BaseUrlError`] message.
const EXAMPLE: &str = ", for example https://plants.example/api/v1";

impl BaseUrlError {
    /// Appends the sentence `Display` writes, without core::fmt (which the wasm client leaves out).
    pub fn describe(self, out: &mut String) {
        out.push_str("baseUrl");
        self.describe_after(out);
    }

    /// Appends what follows the name of the setting in the sentence: " must …, for example …".
    pub fn describe_after(self, out: &mut String) {
        out.push(' ');
        out.push_str(self.why());
        out.push_str(EXAMPLE);
    }

    fn why(self) -> &'static str {
        match self {
            BaseUrlError::Scheme => "must start with http:// or https://",
            BaseUrlError::Whitespace => "must not contain white space or control characters",
            BaseUrlError::UserInfo => {
                "must not contain user info (user:password@); pass the token instead"
            }
            BaseUrlError::Host => "must name a host, with an optional port from 1 to 65535",
            BaseUrlError::Query => "must not contain a query (?…); /plants is appended to its path",
            BaseUrlError::Fragment => "must not contain a fragment (#…)",
            BaseUrlError::Backslash => "must not contain a backslash",
        }
    }
}

impl fmt::Display for BaseUrlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("baseUrl ")?;
        f.write_str(self.why())?;
        f.write_str(EXAMPLE)
    }
}

impl core::error::Error for BaseUrlError {}

/// Checks `base` and returns `{base}/plants`, with a trailing slash of `base` folded away.
///
/// # Errors
/// A [`BaseUrlError`] naming the first problem found.
pub fn plants_url(base: &str) -> Result<String, BaseUrlError> {
    if base.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(BaseUrlError::Whitespace);
    }
    if base.contains('\\') {
        return Err(BaseUrlError::Backslash);
    }
    let (scheme, rest) = base.split_once(':').ok_or(BaseUrlError::Scheme)?;
    let rest = rest.strip_prefix("//").ok_or(BaseUrlError::Scheme)?;
    if !scheme.eq_ignore_ascii_case("http") && !scheme.eq_ignore_ascii_case("https") {
        return Err(BaseUrlError::Scheme);
    }
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    // `find` returns a char boundary, so the split always succeeds.
    let (authority, path) = rest.split_at_checked(authority_end).unwrap_or((rest, ""));
    if authority.contains('@') {
        return Err(BaseUrlError::UserInfo);
    }
    check_authority(authority)?;
    if path.contains('?') {
        return Err(BaseUrlError::Query);
    }
    if path.contains('#') {
        return Err(BaseUrlError::Fragment);
    }
    let mut url = String::with_capacity(base.len() + 7);
    url.push_str(scheme);
    url.push_str("://");
    url.push_str(authority);
    url.push_str(path.trim_end_matches('/'));
    url.push_str("/plants");
    Ok(url)
}

fn check_authority(authority: &str) -> Result<(), BaseUrlError> {
    let (host, port) = match authority.strip_prefix('[') {
        Some(v6) => {
            let (addr, after) = v6.split_once(']').ok_or(BaseUrlError::Host)?;
            if addr.is_empty()
                || !addr.chars().all(|c| c.is_ascii_hexdigit() || c == ':' || c == '.')
            {
                return Err(BaseUrlError::Host);
            }
            match after {
                "" => (addr, None),
                _ => (addr, Some(after.strip_prefix(':').ok_or(BaseUrlError::Host)?)),
            }
        }
        None => match authority.rsplit_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (authority, None),
        },
    };
    let host_ok = !host.is_empty()
        && host.chars().all(|c| {
            c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_' | ':') || !c.is_ascii()
        });
    // A port from 1: fetch refuses 0.
    let port_ok = port.is_none_or(|p| p.len() <= 5 && p.parse::<u16>().is_ok_and(|p| p > 0));
    if host_ok && port_ok {
        Ok(())
    } else {
        Err(BaseUrlError::Host)
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::string::ToString;

    #[test]
    fn joins_plants_onto_the_base_and_its_prefix() {
        for (base, url) in [
            ("https://plants.example", "https://plants.example/plants"),
            ("https://plants.example/", "https://plants.example/plants"),
            ("http://127.0.0.1:4010", "http://127.0.0.1:4010/plants"),
            ("https://h.example/api/v1", "https://h.example/api/v1/plants"),
            ("https://h.example/api/v1/", "https://h.example/api/v1/plants"),
            ("HTTPS://H.example:443/a%20b", "HTTPS://H.example:443/a%20b/plants"),
            ("http://[::1]:8080/x", "http://[::1]:8080/x/plants"),
            ("http://[::1]", "http://[::1]/plants"),
            ("https://bücher.example", "https://bücher.example/plants"),
        ] {
            assert_eq!(plants_url(base).as_deref(), Ok(url), "{base}");
        }
    }

    #[test]
    fn refuses_what_cannot_be_joined_safely() {
        use BaseUrlError::*;
        for (base, error) in [
            ("", Scheme),
            ("plants.example", Scheme),
            ("/api", Scheme),
            ("ftp://h.example", Scheme),
            ("javascript://h.example", Scheme),
            ("file:///etc", Scheme),
            ("https:/h.example", Scheme),
            ("https:h.example//x", Scheme),
            ("x:https://h.example", Scheme),
            ("https:x://h.example", Scheme),
            ("https://", Host),
            ("https:///path", Host),
            ("https://h.example:", Host),
            ("https://h.example:99999", Host),
            ("https://h.example:80a", Host),
            ("http://[::1", Host),
            ("http://[zz]", Host),
            ("https://h<.example", Host),
            ("http://h.example:0", Host),
            ("https://user:pw@h.example", UserInfo),
            ("https://tok@h.example/api", UserInfo),
            ("https://h.example?x=1", Query),
            ("https://h.example/api?", Query),
            ("https://h.example/api#top", Fragment),
            ("https://h.example#", Fragment),
            (" https://h.example", Whitespace),
            ("https://h.example/\napi", Whitespace),
            ("https://h.example\\api", Backslash),
        ] {
            assert_eq!(plants_url(base), Err(error), "{base:?}");
        }
    }

    #[test]
    fn messages_word_for_word() {
        use BaseUrlError::*;
        for (error, why) in [
            (Scheme, "must start with http:// or https://"),
            (Whitespace, "must not contain white space or control characters"),
            (UserInfo, "must not contain user info (user:password@); pass the token instead"),
            (Host, "must name a host, with an optional port from 1 to 65535"),
            (Query, "must not contain a query (?…); /plants is appended to its path"),
            (Fragment, "must not contain a fragment (#…)"),
            (Backslash, "must not contain a backslash"),
        ] {
            let message = ["baseUrl ", why, ", for example https://plants.example/api/v1"].concat();
            assert_eq!(error.to_string(), message);
            let mut described = String::new();
            error.describe(&mut described);
            assert_eq!(described, message);
        }
    }

    #[test]
    fn messages_never_repeat_the_url() {
        let err = plants_url("https://secret-token@h.example").unwrap_err();
        assert!(!err.to_string().contains("secret-token"));
        assert!(err.to_string().starts_with("baseUrl "));
    }
}
