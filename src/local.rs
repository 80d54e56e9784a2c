//! State kept once per wasm instance, and the table that gives each call in flight a key.
//!
//! The call's long-lived closures (see `transport`) and the JS layer's running promises (see
//! `js::task`) live in statics, so that a call allocates no closure and JS can name a call by a
//! number. A `static` must be `Sync`, which a `RefCell` or a `Closure` is not; std's
//! `thread_local!` would do, but the npm package is built without std. wasm32 without the
//! `atomics` target feature runs one thread, so [`Global`] is `Sync` there and only there. No
//! library offers this outside wasm-bindgen's hidden runtime module; this is its whole length.

use alloc::vec::Vec;
#[cfg(target_arch = "wasm32")]
use core::cell::OnceCell;

/// A value made on first use and kept for the life of the wasm instance.
///
/// On targets other than wasm32 it holds nothing and [`Global::get`] panics: nothing there can
/// call into JavaScript (wasm-bindgen's imports panic the same way), so nothing there needs it.
pub(crate) struct Global<T> {
    #[cfg(target_arch = "wasm32")]
    cell: OnceCell<T>,
    #[cfg(not(target_arch = "wasm32"))]
    cell: core::marker::PhantomData<fn() -> T>,
}

// SAFETY: wasm32 without the `atomics` target feature has exactly one thread, so no two threads
// can ever reach the same `Global`. (With `atomics` there is no such impl, and a `static Global`
// does not compile.)
#[cfg(all(target_arch = "wasm32", not(target_feature = "atomics")))]
#[allow(unsafe_code)]
unsafe impl<T> Sync for Global<T> {}

impl<T> Global<T> {
    /// An empty slot; the value is made by the first [`Global::get`].
    pub(crate) const fn new() -> Global<T> {
        Global {
            #[cfg(target_arch = "wasm32")]
            cell: OnceCell::new(),
            #[cfg(not(target_arch = "wasm32"))]
            cell: core::marker::PhantomData,
        }
    }

    /// The value, made by `init` the first time. `init` must not reach this same `Global`.
    #[cfg(target_arch = "wasm32")]
    pub(crate) fn get(&self, init: fn() -> T) -> &T {
        self.cell.get_or_init(init)
    }

    /// Not on this target (see the type's docs).
    #[cfg(not(target_arch = "wasm32"))]
    pub(crate) fn get(&self, _init: fn() -> T) -> &T {
        let _ = &self.cell;
        panic!("plant-store-client calls JavaScript, so it runs only on wasm32")
    }
}

/// The name of an entry of a [`Table`]: its index, and which of the entries ever stored there it
/// is. JavaScript holds it as one number (`Key::to_js`), exact below 2^53.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Key {
    index: u32,
    generation: u32,
}

/// 2^32: the generation is stored above the index.
const SPLIT: f64 = 4_294_967_296.0;
/// Generations stay below 2^21, so that a key stays an exact JavaScript number.
const GENERATIONS: u32 = 1 << 21;

impl Key {
    /// The key as a JavaScript number.
    pub(crate) fn to_js(self) -> f64 {
        f64::from(self.generation) * SPLIT + f64::from(self.index)
    }

    /// The key a JavaScript number names; `None` for a number no key ever was.
    pub(crate) fn from_js(number: f64) -> Option<Key> {
        let valid = number >= 0.0 && number < f64::from(GENERATIONS) * SPLIT;
        // In range, so the casts are exact (an NaN fails the comparisons above).
        let whole = number as u64;
        (valid && whole as f64 == number).then_some(Key {
            index: whole as u32,
            generation: (whole >> 32) as u32,
        })
    }
}

/// Entries with stable keys: a key whose entry was removed stays dead, even when its slot is used
/// again, so a late callback for a finished call finds nothing. `slotmap` does this too, but its
/// key as one number (`KeyData::as_ffi`) puts a version that runs through all 32 bits above the
/// index, which stops being exact as a JavaScript number past 2^53; here generations wrap at 2^21.
pub(crate) struct Table<T> {
    slots: Vec<Slot<T>>,
    free: Vec<u32>,
}

struct Slot<T> {
    generation: u32,
    value: Option<T>,
}

impl<T> Table<T> {
    pub(crate) const fn new() -> Table<T> {
        Table {
            slots: Vec::new(),
            free: Vec::new(),
        }
    }

    /// Stores `value` and returns its key.
    pub(crate) fn insert(&mut self, value: T) -> Key {
        if let Some(index) = self.free.pop() {
            if let Some(slot) = self.slots.get_mut(index as usize) {
                slot.generation = (slot.generation + 1) % GENERATIONS;
                slot.value = Some(value);
                return Key {
                    index,
                    generation: slot.generation,
                };
            }
        }
        let index = self.slots.len() as u32;
        self.slots.push(Slot {
            generation: 0,
            value: Some(value),
        });
        Key {
            index,
            generation: 0,
        }
    }

    /// The entry of `key`, if it is still there.
    pub(crate) fn get_mut(&mut self, key: Key) -> Option<&mut T> {
        let slot = self.slots.get_mut(key.index as usize)?;
        if slot.generation == key.generation {
            slot.value.as_mut()
        } else {
            None
        }
    }

    /// Takes the entry of `key` out; its key is dead from now on.
    pub(crate) fn remove(&mut self, key: Key) -> Option<T> {
        let slot = self.slots.get_mut(key.index as usize)?;
        if slot.generation != key.generation {
            return None;
        }
        let value = slot.value.take()?;
        self.free.push(key.index);
        Some(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_removed_key_stays_dead_when_its_slot_is_reused() {
        let mut table = Table::new();
        let a = table.insert("a");
        let b = table.insert("b");
        assert_eq!(table.remove(a), Some("a"));
        let c = table.insert("c");
        assert_eq!(table.get_mut(a), None);
        assert_eq!(table.remove(a), None);
        assert_eq!(table.get_mut(c), Some(&mut "c"));
        assert_eq!(table.get_mut(b), Some(&mut "b"));
        assert_ne!(a, c);
    }

    #[test]
    fn keys_go_through_javascript_numbers_exactly() {
        let mut table = Table::new();
        let mut last = table.insert(0);
        for i in 1..5000 {
            table.remove(last);
            last = table.insert(i);
            assert_eq!(Key::from_js(last.to_js()), Some(last));
        }
        let far = Key {
            index: u32::MAX,
            generation: GENERATIONS - 1,
        };
        assert_eq!(Key::from_js(far.to_js()), Some(far));
        for bad in [-1.0, 0.5, f64::NAN, f64::INFINITY, 2f64.powi(53)] {
            assert_eq!(Key::from_js(bad), None, "{bad}");
        }
    }
}
