//! What std would give the .wasm, for the npm package's build without it (`--no-default-features`,
//! see scripts/build-pkg). Without std, a panic does not format its message: std's panic machinery
//! and core::fmt (with its Unicode tables) stay out of the module, about a fifth of it. Every
//! failure the contract knows is an `Error`, never a panic; a panic would be a bug, and it traps.

#[panic_handler]
fn panic(_: &core::panic::PanicInfo<'_>) -> ! {
    core::arch::wasm32::unreachable()
}

/// Talc instead of std's dlmalloc: smaller in wasm and faster (see the talc README's benchmarks).
#[global_allocator]
static ALLOCATOR: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();
