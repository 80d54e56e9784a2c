# The toolchain and flags of the npm package's .wasm, sourced by scripts/build-pkg and by the bench's
# size breakdown (bench/sizes.mjs), so both build the same module. scripts/setup installs the
# toolchain. The crate itself builds on stable (its rust-version); only the package uses these.
#
# - A pinned nightly, for `-Z build-std` (core and alloc rebuilt with the package's own profile,
#   `opt-level = "z"`) and for the panic strategy `immediate-abort`, which leaves every panic's
#   message and location out of the module. Pinned, not the newest nightly,
#   so that the package is built the same way on every machine until this line changes.
# - `-Zlocation-detail=none` and `-Zfmt-debug=none`: no file names and no `Debug` output in the
#   module (the package never prints a Rust value).
# The price of each lever is in docs/performance.md.
export RUSTUP_TOOLCHAIN=nightly-2026-10-01
export CARGO_UNSTABLE_BUILD_STD=core,alloc
export RUSTFLAGS="-Zunstable-options -Cpanic=immediate-abort -Zlocation-detail=none -Zfmt-debug=none"
# Apart from the stable builds' target/, whose artifacts these flags would otherwise replace.
export CARGO_TARGET_DIR="${WASM_TARGET_DIR:-${CARGO_TARGET_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/target}/npm}"
