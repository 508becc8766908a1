//! The plugins' memory allocator on WebAssembly: small blocks come from a
//! free list per size class, or are cut from a chunk, in a few operations;
//! everything else goes to the system allocator (wasi-libc's dlmalloc).
//!
//! An instance serves one call and is then thrown away, so a freed small block
//! is kept for the next block of its class rather than handed back: no
//! splitting, merging or searching, which take the system allocator dozens of
//! operations per block. Parsing a page allocates and frees many thousands of
//! small strings and nodes.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::UnsafeCell;
use std::ptr::{self, NonNull};

/// Blocks up to this size, with an alignment up to [`GRAIN`], are small.
const SMALL: usize = 512;
/// Size classes are multiples of this; it is also every small block's alignment.
const GRAIN: usize = 16;
/// Bytes asked of the system allocator at a time to cut small blocks from.
const CHUNK: usize = 64 << 10;
const CLASSES: usize = SMALL / GRAIN;

/// The allocator's state: one free list per class and the chunk being cut.
struct State {
    free: [Option<NonNull<Free>>; CLASSES],
    next: *mut u8,
    end: *mut u8,
}

/// A freed small block, holding the next free block of its class.
struct Free {
    next: Option<NonNull<Free>>,
}

/// Small blocks from per-class free lists and chunks, the rest from [`System`].
pub struct Allocator {
    state: UnsafeCell<State>,
}

// SAFETY: a plugin instance runs on one thread (wasm32-wasip2 has no threads),
// so the state is never reached from two threads.
unsafe impl Sync for Allocator {}

impl Allocator {
    /// An allocator with no block yet.
    pub const fn new() -> Allocator {
        Allocator {
            state: UnsafeCell::new(State {
                free: [None; CLASSES],
                next: ptr::null_mut(),
                end: ptr::null_mut(),
            }),
        }
    }
}

impl Allocator {
    /// Forgets every freed small block and the chunk being cut, so that the
    /// blocks of later calls come from chunks of their own. Called when a
    /// plugin's preparation ends: the memory it leaves is the image every
    /// instance starts from, and blocks it freed lie scattered across that
    /// image. A call that reused them would write to pages all over it, and
    /// wasmtime resets only so many separate runs of written pages in place
    /// (32), handing the rest back to the kernel to be faulted in again by
    /// the next call. The forgotten blocks stay in the image, untouched.
    pub fn start_afresh(&self) {
        // SAFETY: one thread (see `Sync`), and nothing here allocates.
        let state = unsafe { &mut *self.state.get() };
        state.free = [None; CLASSES];
        state.next = ptr::null_mut();
        state.end = ptr::null_mut();
    }
}

impl Default for Allocator {
    fn default() -> Allocator {
        Allocator::new()
    }
}

/// The class of a layout served from the free lists, if it is small.
fn class(layout: Layout) -> Option<usize> {
    (layout.size() <= SMALL && layout.align() <= GRAIN)
        .then(|| layout.size().max(1).div_ceil(GRAIN) - 1)
}

impl State {
    /// A block of class `class` (`(class + 1) * GRAIN` bytes), or null.
    ///
    /// # Safety
    /// The caller has exclusive use of the state.
    unsafe fn take(&mut self, class: usize) -> *mut u8 {
        if let Some(block) = self.free[class] {
            // SAFETY: every listed block is a freed block of this class, which
            // holds a `Free` written by `give`.
            self.free[class] = unsafe { block.as_ref().next };
            return block.as_ptr().cast();
        }
        let size = (class + 1) * GRAIN;
        if (self.end as usize) - (self.next as usize) < size {
            // SAFETY: CHUNK is non-zero and GRAIN a power of two.
            let chunk = unsafe { System.alloc(Layout::from_size_align_unchecked(CHUNK, GRAIN)) };
            if chunk.is_null() {
                return chunk;
            }
            self.next = chunk;
            // SAFETY: the chunk is CHUNK bytes long.
            self.end = unsafe { chunk.add(CHUNK) };
        }
        let block = self.next;
        // SAFETY: at least `size` bytes are left in the chunk.
        self.next = unsafe { block.add(size) };
        block
    }

    /// Lists `block`, a block of class `class` no longer in use.
    ///
    /// # Safety
    /// `block` came from `take(class)` and is not in use; the caller has
    /// exclusive use of the state.
    unsafe fn give(&mut self, block: *mut u8, class: usize) {
        let block = block.cast::<Free>();
        // SAFETY: a block is at least GRAIN bytes, aligned to GRAIN, enough for a `Free`.
        unsafe {
            block.write(Free {
                next: self.free[class],
            })
        };
        self.free[class] = NonNull::new(block);
    }
}

unsafe impl GlobalAlloc for Allocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        match class(layout) {
            // SAFETY: one thread (see `Sync`), and no call here re-enters the allocator.
            Some(class) => unsafe { (*self.state.get()).take(class) },
            // SAFETY: forwarded as received.
            None => unsafe { System.alloc(layout) },
        }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        match class(layout) {
            Some(_) => {
                // SAFETY: as `alloc`; a reused block is zeroed here.
                let block = unsafe { self.alloc(layout) };
                if !block.is_null() {
                    // SAFETY: the block holds at least `layout.size()` bytes.
                    unsafe { ptr::write_bytes(block, 0, layout.size()) };
                }
                block
            }
            // SAFETY: forwarded as received (calloc skips zeroing fresh memory).
            None => unsafe { System.alloc_zeroed(layout) },
        }
    }

    unsafe fn dealloc(&self, block: *mut u8, layout: Layout) {
        match class(layout) {
            // SAFETY: `block` was allocated with `layout`, so from `take(class)`.
            Some(class) => unsafe { (*self.state.get()).give(block, class) },
            // SAFETY: it was allocated by the system allocator with `layout`.
            None => unsafe { System.dealloc(block, layout) },
        }
    }

    unsafe fn realloc(&self, block: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller gives a valid new size for this alignment.
        let new_layout = unsafe { Layout::from_size_align_unchecked(new_size, layout.align()) };
        match (class(layout), class(new_layout)) {
            (Some(old), Some(new)) if old == new => block,
            // SAFETY: both are the system allocator's.
            (None, None) => unsafe { System.realloc(block, layout, new_size) },
            _ => {
                // SAFETY: allocated with `new_layout`, copied, then the old freed
                // with the layout it was allocated with.
                unsafe {
                    let moved = self.alloc(new_layout);
                    if !moved.is_null() {
                        ptr::copy_nonoverlapping(block, moved, layout.size().min(new_size));
                        self.dealloc(block, layout);
                    }
                    moved
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_cover_small_blocks_of_small_alignment() {
        let layout = |size, align| Layout::from_size_align(size, align).unwrap();
        assert_eq!(class(layout(0, 1)), Some(0));
        assert_eq!(class(layout(16, 8)), Some(0));
        assert_eq!(class(layout(17, 1)), Some(1));
        assert_eq!(class(layout(512, 16)), Some(CLASSES - 1));
        assert_eq!(class(layout(513, 1)), None);
        assert_eq!(class(layout(8, 32)), None);
    }

    #[test]
    fn blocks_are_reused_by_class_and_kept_apart() {
        let a = Allocator::new();
        let small = Layout::from_size_align(24, 8).unwrap();
        let big = Layout::from_size_align(4096, 8).unwrap();
        unsafe {
            let x = a.alloc(small);
            let y = a.alloc(small);
            assert_ne!(x, y);
            assert_eq!(x as usize % GRAIN, 0);
            x.write_bytes(0xAA, 24);
            y.write_bytes(0xBB, 24);
            a.dealloc(x, small);
            assert_eq!(
                a.alloc(small),
                x,
                "a freed block serves the next of its class"
            );
            assert_eq!(*y, 0xBB, "a live block is untouched");
            let z = a.alloc_zeroed(small);
            assert!(std::slice::from_raw_parts(z, 24).iter().all(|&b| b == 0));

            // Growing keeps the contents, across classes and to the system allocator.
            let grown = a.realloc(y, small, 300);
            assert!(std::slice::from_raw_parts(grown, 24)
                .iter()
                .all(|&b| b == 0xBB));
            let moved = a.realloc(grown, Layout::from_size_align(300, 8).unwrap(), 4096);
            assert!(std::slice::from_raw_parts(moved, 24)
                .iter()
                .all(|&b| b == 0xBB));
            a.dealloc(moved, big);
            a.dealloc(x, small);
            a.dealloc(z, small);
        }
    }

    #[test]
    fn starting_afresh_reuses_no_earlier_block() {
        let a = Allocator::new();
        let layout = Layout::from_size_align(32, 8).unwrap();
        unsafe {
            let before = a.alloc(layout);
            let last = a.alloc(layout);
            a.dealloc(before, layout);
            a.start_afresh();
            let after = a.alloc(layout);
            assert_ne!(after, before, "a block freed before is forgotten");
            assert_ne!(
                after as usize,
                last as usize + 32,
                "the chunk being cut is left"
            );
            a.dealloc(after, layout);
            a.dealloc(last, layout);
        }
    }

    #[test]
    fn many_blocks_span_chunks() {
        let a = Allocator::new();
        let layout = Layout::from_size_align(512, 16).unwrap();
        let blocks: Vec<*mut u8> = (0..1000).map(|_| unsafe { a.alloc(layout) }).collect();
        for (i, &b) in blocks.iter().enumerate() {
            unsafe { b.write_bytes(i as u8, 512) };
        }
        for (i, &b) in blocks.iter().enumerate() {
            assert!(unsafe { std::slice::from_raw_parts(b, 512) }
                .iter()
                .all(|&x| x == i as u8));
        }
        for b in blocks {
            unsafe { a.dealloc(b, layout) };
        }
    }
}
