//! One rule, two voices: what a message calls each setting, as its caller wrote it, the JS options
//! (`options.timeoutMs`) or the Rust API (`Config::timeout_ms(..)`). A client's settings carry their
//! names (`Config::names`): `Config::new` gives the Rust API's, the JS API's reader the options'; the
//! npm package, which never calls `Config::new`, holds no Rust name.

/// What messages call each setting: a JS option, or the Rust API that set it.
pub(crate) struct Names {
    pub(crate) base_url: &'static str,
    pub(crate) token: &'static str,
    pub(crate) no_token: &'static str,
    pub(crate) get_token: &'static str,
    pub(crate) refresh: &'static str,
    pub(crate) fetch: &'static str,
    pub(crate) timeout_ms: &'static str,
    pub(crate) headers: &'static str,
    /// `headers` as it names one, before and after the header's name.
    pub(crate) header: [&'static str; 2],
    pub(crate) before: &'static str,
    pub(crate) after: &'static str,
    /// How a hook's failure is said: it threw, or returned an `Err`.
    pub(crate) failed: &'static str,
    pub(crate) attempts: &'static str,
    pub(crate) base_delay_ms: &'static str,
    pub(crate) max_delay_ms: &'static str,
    pub(crate) attempt_timeout_ms: &'static str,
    pub(crate) key: &'static str,
    pub(crate) key_lifetime_ms: &'static str,
    /// Infinity, as written.
    pub(crate) infinity: &'static str,
}

/// The JS options' names.
#[cfg(any(feature = "js", test))]
pub(crate) const JS: Names = Names {
    base_url: "options.baseUrl",
    token: "options.token",
    no_token: "options.token (a string) or options.getToken (a function) is required",
    get_token: "options.getToken",
    refresh: "options.getToken({ refresh: true })",
    fetch: "options.fetch",
    timeout_ms: "options.timeoutMs",
    headers: "options.headers",
    header: ["options.headers[\"", "\"]"],
    before: "options.beforeAttempt",
    after: "options.afterAttempt",
    failed: "threw",
    attempts: "retry.attempts",
    base_delay_ms: "retry.baseDelayMs",
    max_delay_ms: "retry.maxDelayMs",
    attempt_timeout_ms: "retry.attemptTimeoutMs",
    key: "idempotencyKey",
    key_lifetime_ms: "options.keyLifetimeMs",
    infinity: "Infinity",
};

/// The Rust API's names.
pub(crate) const RUST: Names = Names {
    base_url: "the base URL of Config::new(..)",
    token: "Config::token(..)",
    no_token: "Config::token(..) or Config::token_source(..) is required",
    get_token: "the future of Config::token_source(..)",
    refresh: "the future of Config::token_source(..) for a refresh",
    fetch: "Config::fetch(..)",
    timeout_ms: "Config::timeout_ms(..)",
    headers: "Config::header(..)",
    header: ["Config::header(\"", "\", ..)"],
    before: "the hook of Config::before_attempt(..)",
    after: "an after_attempt(..) hook (Config::after_attempt or CallOptions::after_attempt)",
    failed: "returned an Err",
    attempts: "the attempts of Retry::new(..)",
    base_delay_ms: "Retry::base_delay_ms(..)",
    max_delay_ms: "Retry::max_delay_ms(..)",
    attempt_timeout_ms: "Retry::attempt_timeout_ms(..)",
    key: "CallOptions::idempotency_key(..)",
    key_lifetime_ms: "Config::key_lifetime_ms(..)",
    infinity: "f64::INFINITY",
};

/// Whose names, in a `Config`'s `Debug`: not the table of them.
impl core::fmt::Debug for Names {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(if self.timeout_ms.starts_with("options.") { "JavaScript's" } else { "Rust's" })
    }
}
