//! What std would give the .wasm, for the npm package's build without it (`--no-default-features`,
//! see scripts/build-pkg). Without std, a panic does not format its message: std's panic machinery
//! and core::fmt (with its Unicode tables) stay out of the module, about a fifth of it. Every
//! failure the contract knows is an `Error`, never a panic; a panic would be a bug, and it traps.

#[panic_handler]
fn panic(_: &core::panic::PanicInfo<'_>) -> ! {
    core::arch::wasm32::unreachable()
}

/// lol_alloc's free list (sorted, coalescing; O(length of the list) per operation).
// SAFETY: wasm32 without atomics has one thread.
#[global_allocator]
#[allow(unsafe_code)]
static ALLOCATOR: lol_alloc::AssumeSingleThreaded<lol_alloc::FreeListAllocator> =
    unsafe { lol_alloc::AssumeSingleThreaded::new(lol_alloc::FreeListAllocator::new()) };

/// A value of the one thread, as std's `thread_local!` gives one: wasm32 without atomics has one
/// thread, so a `static` is it.
pub(crate) struct Local<T>(pub(crate) T);

// SAFETY: wasm32 without atomics has one thread (checked below), as for the allocator.
#[allow(unsafe_code)]
unsafe impl<T> Sync for Local<T> {}

#[cfg(target_feature = "atomics")]
compile_error!("without std, plant-store-client is for wasm32 without threads");

impl<T> Local<T> {
    /// `f` of the value, as `LocalKey::with` does.
    pub(crate) fn with<R>(&'static self, f: impl FnOnce(&T) -> R) -> R {
        f(&self.0)
    }
}
