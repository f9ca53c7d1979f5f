//! The key function the radix passes take: how an item yields its directed ordered bits. Its own
//! module because the radix sort and the passes it calls (`presorted`, `wc`) all take one, and
//! those passes sit below the sort.

/// How an item yields its directed ordered bits; an ascending sort on them gives the wanted order.
pub(crate) trait KeyFn<T, B>: Fn(&T) -> B + Copy + Send + Sync {}
impl<T, B, F: Fn(&T) -> B + Copy + Send + Sync> KeyFn<T, B> for F {}
