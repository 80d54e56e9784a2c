#!/usr/bin/env python3
"""The price list's variants: HEAD with one mechanism stubbed out, or a byte-driven choice replaced by
its plain alternative, each a list of (file, old, new) edits. bench/price.mjs applies one to a
scratch worktree of HEAD before building it; nothing is committed but these edits, so no patch can
go stale: an edit whose `old` text is not found stops the run, naming it.

    python3 bench/price/make.py --list                 the variants' names
    python3 bench/price/make.py --apply VARIANT DIR    applies VARIANT's edits to the checkout DIR
"""
import os
import sys


HTTP_DATE = '''
/// An HTTP-date (RFC 9110 5.6.7) in its three forms, in milliseconds since the epoch; NaN when
/// `value` is none.
fn http_date(value: &str) -> f64 {
    let mut words = value.as_bytes().split(|b| matches!(b, b' ' | b',' | b'-'));
    let mut words = words.by_ref().filter(|word| !word.is_empty());
    let parsed = (|| {
        let _weekday = words.next()?;
        let (day, month, year, time) = match [(); 5].map(|()| words.next()) {
            [Some(day), Some(month), Some(year), Some(time), Some(b"GMT")] => (day, month, year, time),
            [Some(month), Some(day), Some(time), Some(year), None] => (day, month, year, time),
            _ => return None,
        };
        let number = |digits: &[u8]| -> Option<i64> {
            let ok = !digits.is_empty() && digits.len() <= 4 && digits.iter().all(u8::is_ascii_digit);
            ok.then(|| digits.iter().fold(0, |n, &d| n * 10 + i64::from(d - b'0')))
        };
        let months = b"JanFebMarAprMayJunJulAugSepOctNovDec".chunks(3);
        let month = months.into_iter().position(|m| m == month)? as i64 + 1;
        let day = number(day).filter(|d| (1..=31).contains(d) && day.len() <= 2)?;
        let year = match (number(year)?, year.len()) {
            (y, 2) => y + if y < 70 { 2000 } else { 1900 },
            (y, 4) => y,
            _ => return None,
        };
        let [h1, h2, b':', m1, m2, b':', s1, s2] = *time else {
            return None;
        };
        let (h, m, s) = (number(&[h1, h2])?, number(&[m1, m2])?, number(&[s1, s2])?);
        if h > 23 || m > 59 || s > 60 {
            return None;
        }
        let y = if month <= 2 { year - 1 } else { year };
        let era = y.div_euclid(400);
        let of_era = y - era * 400;
        let of_year = (153 * (month + if month > 2 { -3 } else { 9 }) + 2) / 5 + day - 1;
        let days = era * 146_097 + of_era * 365 + of_era / 4 - of_era / 100 + of_year - 719_468;
        Some(((days * 24 + h) * 60 + m) as f64 * 60_000.0 + s as f64 * 1000.0)
    })();
    parsed.unwrap_or(f64::NAN)
}
'''

VARIANTS = {
    # What a mechanism costs: stubbed out.
    "no-redaction": [
        ("src/redact.rs", "    let mut text = String::from(text);\n    for secret in secrets {",
         "    let mut text = String::from(text);\n    for secret in secrets.iter().take(0) {"),
    ],
    "no-excerpt": [
        ("src/answer.rs", "    let until = text.split('\\\\').next().unwrap_or_default();\n"
         "    let mut chars = until.chars();\n"
         "    let shown = chars.by_ref().take(EXCERPT_CHARS).collect();\n"
         "    (shown, chars.next().is_none() && until.len() == text.len())",
         "    let _ = (text, EXCERPT_CHARS);\n    (String::new(), true)"),
    ],
    "no-did-you-mean": [
        ("src/js/api.rs", "        let near = suggest(key, known).map(|near| [\" (did you mean \\\"\", near, \"\\\"?)\"].concat());",
         "        let near: Option<String> = None;\n        let _ = suggest;"),
    ],
    "no-get-token": [
        ("src/config.rs", "Some(Auth::Source(get)) => Credential::Source(TokenSource::new(get.clone())),",
         "Some(Auth::Source(_)) => {\n                let _ = TokenSource::new;\n"
         "                return Err(Draft::config(\"options.getToken is not supported\"));\n            }"),
    ],
    "no-options-headers": [
        ("src/js/api.rs", "        if let Some(headers) = o.value(\"headers\")? {\n"
         "            config.headers = Options::of(headers, \"options.headers\")?.record()?;\n"
         "        }\n",
         "        let _ = Options::record;\n"),
    ],
    "no-signals": [
        ("src/js/api.rs", "        config.signal = o.get::<AbortSignal>(\"signal\")?;\n", ""),
        ("src/js/api.rs", "    let signal = o.get::<AbortSignal>(\"signal\")?;", "    let signal = None;"),
    ],
    "no-hooks": [
        ("src/js/api.rs", "        config.before = o.get::<Function>(\"beforeAttempt\")?.map(callbacks::before);\n"
         "        config.after = o.get::<Function>(\"afterAttempt\")?.map(callbacks::after);",
         "        let _ = (callbacks::before, callbacks::after);"),
    ],
    "no-retries": [
        ("src/answer.rs", "    let retried = match (error.kind(), learnt.status) {",
         "    #[allow(unreachable_code)]\n    return Next::Stop(None);\n    let retried = match (error.kind(), learnt.status) {"),
    ],
    "no-idempotency-key": [
        ("src/config.rs", "        let key = match self.idempotency_key.as_ref().unwrap_or(&config.idempotency_key) {",
         "        #[allow(unreachable_code)]\n        return Ok((retry, IdempotencyKey::Off));\n"
         "        let key = match self.idempotency_key.as_ref().unwrap_or(&config.idempotency_key) {"),
    ],
    "newplant-not-read": [
        ("src/js/api.rs", "    let started = new_plant(plant)\n",
         "    let _ = plant;\n"
         "    // A fresh id per call (the reference server refuses one it has seen), the rest fixed.\n"
         "    static NEXT: core::sync::atomic::AtomicU32 = core::sync::atomic::AtomicU32::new(0);\n"
         "    let fresh = NEXT.fetch_add(1, core::sync::atomic::Ordering::Relaxed);\n"
         "    let fixed = NewPlant {\n"
         "        id: js_sys::Date::now() as i64 * 1000 + i64::from(fresh % 1000),\n"
         "        name: \"Fern\".into(),\n"
         "        tag: Some(\"green\".into()),\n"
         "    };\n"
         "    let started = Ok::<_, Vec<Issue>>((fixed, false))\n"),
    ],
    # The shell's mechanisms (js/call.js): the attempt's AbortController, the call's deadline timer,
    # and the signal made eagerly, with its controller, as before issue 54.
    "no-abort-controller": [
        ("js/call.js", "      const attempt = { controller: new AbortController() };",
         "      const attempt = { controller: { abort() {}, signal: undefined } };"),
    ],
    "no-timer": [
        ("js/call.js", "    this.#deadline = setTimeout(() => this.#stop(told.timedOut), endsAt - Date.now());",
         "    void endsAt;"),
    ],
    "eager-signal": [
        ("js/call.js", "        const { controller } = attempt;\n",
         "        const { controller } = attempt;\n        const made = controller.signal;\n"),
    ],
    # Issue 32's messages, each stubbed out.
    "no-runtime-reason": [
        # What the runtime said: the first level's message alone (no code, no causes), and nothing
        # made of it (no detail, no connection known never made).
        ("src/shell.rs", "    text(cause, \"message\")?;\n",
         "    #[allow(unreachable_code)]\n"
         "    return Some(alloc::vec![(text(cause, \"message\")?, String::new())]);\n"),
        ("src/answer.rs", "        return (\"a value that is not an Error\".into(), false);\n    };\n",
         "        return (\"a value that is not an Error\".into(), false);\n    };\n"
         "    #[allow(unreachable_code)]\n    return (first.clone(), false);\n"),
    ],
    "no-404-hint": [
        ("src/answer.rs", "            [\"; check \", base, NOT_FOUND].concat()",
         "            let _ = (base, NOT_FOUND);\n            String::new()"),
    ],
    "redaction-over-whole-message": [
        ("src/redact.rs", "pub(crate) fn shown(message: &str, secrets: &[&str]) -> String {\n",
         "pub(crate) fn shown(message: &str, secrets: &[&str]) -> String {\n    hidden(message, secrets)\n}\n"
         "#[allow(dead_code)]\nfn shown_unused(message: &str, secrets: &[&str]) -> String {\n"),
    ],
    # Issue 39: a call's error with the caller's frame (api.js: made again when it fails, with the
    # caller's async frame first, atCaller, in the server runtimes' entries; after an await, relay,
    # in the browsers'), against rejecting with the error the call's task made.
    "no-caller-frame": [
        ("js/entries/api.js", "  return awaited(call.catch(reframe));", "  return call;"),
        ("js/entries/api.js", """  try {
    return await call;
  } catch (error) {
    // Made with its message: an engine writes the stack's first line when the error is made.
    throw PlantStoreError.is(error)
      ? fields(error, new PlantStoreError(error.kind, error.message))
      : error;
  }""", "  return call;"),
    ],
    # The byte-driven choices still in the code, against their plain alternative.
    "contains-char": [
        ("src/js/api.rs", "        let replaced = text.as_bytes().windows(3).any(|w| w == \"\\u{FFFD}\".as_bytes());",
         "        let replaced = text.contains('\\u{FFFD}');"),
    ],
    "to-string": [
        ("src/error.rs", "    let mut out = String::new();\n    plant_store_model::json::write_int(&mut out, n);\n    out",
         "    use alloc::string::ToString;\n    n.to_string()"),
    ],
    "http-date-in-rust": [
        ("src/answer.rs", "parse_date: js_sys::Date::parse };", "parse_date: http_date };"),
        ("src/answer.rs", "/// What the call does after an attempt that failed", HTTP_DATE.lstrip() + "\n/// What the call does after an attempt that failed"),
    ],
    # The build's levers.
    "no-build-std": [
        ("scripts/wasm-toolchain.sh", "export RUSTUP_TOOLCHAIN=nightly-2026-10-01\nexport CARGO_UNSTABLE_BUILD_STD=core,alloc\n"
         "export RUSTFLAGS=\"-Zunstable-options -Cpanic=immediate-abort -Zlocation-detail=none -Zfmt-debug=none\"",
         "export RUSTUP_TOOLCHAIN=stable\nunset RUSTFLAGS"),
    ],
    "panic-abort-not-immediate": [
        ("scripts/wasm-toolchain.sh", "export RUSTFLAGS=\"-Zunstable-options -Cpanic=immediate-abort ",
         "export RUSTFLAGS=\""),
    ],
    "no-location-detail-fmt-debug": [
        ("scripts/wasm-toolchain.sh", " -Zlocation-detail=none -Zfmt-debug=none\"", "\""),
    ],
    "opt-level-3": [
        ("Cargo.toml", "[profile.release]\n", "[profile.release.package.plant-store-client]\nopt-level = 3\n\n"
         "[profile.release.package.plant-store-model]\nopt-level = 3\n\n[profile.release]\n"),
    ],
    "opt-level-3-client-only": [
        ("Cargo.toml", "[profile.release]\n", "[profile.release.package.plant-store-client]\nopt-level = 3\n\n[profile.release]\n"),
    ],
    "wasm-opt-oz-only": [
        ("scripts/build-pkg", "(--flatten --rereloop -Oz --gufa -Oz --converge --zero-filled-memory --low-memory-unused\n",
         "(-Oz --converge\n"),
    ],
    "no-import-renaming": [
        ("scripts/finish-pkg.mjs", "  minifyNames(pkg);", "  // minifyNames(pkg);"),
    ],
}


def apply(name, tree):
    """Applies variant `name`'s edits to the checkout `tree`; exits naming the first that does not match."""
    for path, old, new in VARIANTS[name]:
        file = os.path.join(tree, path)
        text = open(file, encoding="utf-8").read()
        if old not in text:
            sys.exit(f"{name}: not found in {path}:\n{old}")
        open(file, "w", encoding="utf-8").write(text.replace(old, new, 1))


def main():
    if sys.argv[1:2] == ["--list"]:
        print("\n".join(VARIANTS))
    elif sys.argv[1:2] == ["--apply"] and len(sys.argv) == 4:
        apply(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
