//! Interned operand values: `hwreg(..)` and `sendmsg(..)` are larger than the other operands
//! (their names are `&'static str`s), so an [`super::Operand`] holds a 4-byte index into a
//! process-wide table of the distinct values instead, and stays small and `Copy`. They are rare
//! (a few per kernel); the tables grow only by distinct values.

use std::collections::HashMap;
use std::fmt;
use std::hash::Hash;
use std::marker::PhantomData;
use std::sync::Mutex;

use super::symbolic::{Hwreg, Sendmsg};

/// The values by index, and the index of each.
type Table<T> = (Vec<T>, HashMap<T, u32>);

/// The distinct values of one type, by index.
pub struct Pool<T> {
    inner: Mutex<Option<Table<T>>>,
}

impl<T: Copy + Eq + Hash> Pool<T> {
    const fn new() -> Pool<T> {
        Pool { inner: Mutex::new(None) }
    }

    fn intern(&self, v: T) -> u32 {
        // A panic elsewhere while the lock was held leaves the table consistent (each change is
        // one push and one insert of the same index): keep using it.
        let mut g = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        let (items, index) = g.get_or_insert_with(Default::default);
        if let Some(&k) = index.get(&v) {
            return k;
        }
        // Four billion distinct hwreg/sendmsg values would exhaust memory long before.
        let k = items.len() as u32;
        items.push(v);
        index.insert(v, k);
        k
    }

    fn get(&self, k: u32) -> Option<T> {
        let g = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        g.as_ref().and_then(|(items, _)| items.get(k as usize).copied())
    }
}

/// A type with a process-wide [`Pool`].
pub trait Pooled: Copy + Eq + Hash + fmt::Debug + 'static {
    fn pool() -> &'static Pool<Self>;
}

impl Pooled for Hwreg {
    fn pool() -> &'static Pool<Hwreg> {
        static P: Pool<Hwreg> = Pool::new();
        &P
    }
}

impl Pooled for Sendmsg {
    fn pool() -> &'static Pool<Sendmsg> {
        static P: Pool<Sendmsg> = Pool::new();
        &P
    }
}

/// A value of `T` by its index in `T`'s pool.
pub struct Interned<T> {
    index: u32,
    _t: PhantomData<fn() -> T>,
}

impl<T: Pooled> Interned<T> {
    pub fn new(v: T) -> Interned<T> {
        Interned { index: T::pool().intern(v), _t: PhantomData }
    }

    /// The value. `None` cannot happen for an index made by [`Interned::new`] (the pools only
    /// grow); the callers report it as a bad operand rather than panic.
    pub fn get(self) -> Option<T> {
        T::pool().get(self.index)
    }

    /// The index (equal values have equal indices).
    pub fn index(self) -> u32 {
        self.index
    }

    /// The value at `index` (as [`Interned::index`] gave it).
    pub(crate) fn from_index(index: u32) -> Interned<T> {
        Interned { index, _t: PhantomData }
    }
}

impl<T> Clone for Interned<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Interned<T> {}
impl<T> PartialEq for Interned<T> {
    fn eq(&self, o: &Self) -> bool {
        self.index == o.index
    }
}
impl<T> Eq for Interned<T> {}

impl<T: Pooled> fmt::Debug for Interned<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.get() {
            Some(v) => v.fmt(f),
            None => write!(f, "#{}", self.index),
        }
    }
}
