//! Limits the link's parts share, in a module of their own so that the sheet (which checks its
//! exercises' links) and the key table can both name them.

/// The longest a link may be, in bytes.
pub const MAX_LINK_LEN: usize = 8_192;
