//! Slots for the requests in flight: a finished request's slot is reused by the next one, so
//! memory follows the requests in flight, not the requests made.

use alloc::vec::Vec;
use core::ops::{Index, IndexMut};

/// A vector of slots with a free list.
pub struct Slab<T> {
    items: Vec<T>,
    free: Vec<u32>,
}

impl<T> Default for Slab<T> {
    fn default() -> Self {
        Slab {
            items: Vec::new(),
            free: Vec::new(),
        }
    }
}

impl<T> Slab<T> {
    /// Stores `item` in a free slot (or a new one) and returns its number.
    pub fn insert(&mut self, item: T) -> u32 {
        match self.free.pop() {
            Some(id) => {
                self.items[id as usize] = item;
                id
            }
            None => {
                self.items.push(item);
                (self.items.len() - 1) as u32
            }
        }
    }

    /// Marks slot `id` free for reuse (its item stays until overwritten).
    pub fn release(&mut self, id: u32) {
        self.free.push(id);
    }

    /// Slots ever allocated (the peak number in flight).
    pub fn capacity(&self) -> usize {
        self.items.len()
    }
}

impl<T> Index<u32> for Slab<T> {
    type Output = T;
    fn index(&self, id: u32) -> &T {
        &self.items[id as usize]
    }
}

impl<T> IndexMut<u32> for Slab<T> {
    fn index_mut(&mut self, id: u32) -> &mut T {
        &mut self.items[id as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_are_reused() {
        let mut s = Slab::default();
        let a = s.insert('a');
        let b = s.insert('b');
        s.release(a);
        let c = s.insert('c');
        assert_eq!(c, a);
        assert_eq!((s[b], s[c]), ('b', 'c'));
        assert_eq!(s.capacity(), 2);
    }
}
