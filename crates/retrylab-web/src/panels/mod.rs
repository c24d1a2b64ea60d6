//! The page's panels, one module each, every one behind [`Panel`](crate::panel::Panel) and
//! registered in `views.rs` (wasm32 only: they draw on the page's canvases).

pub(crate) mod analytic;
pub(crate) mod budget;
pub(crate) mod clients;
pub(crate) mod extra;
pub(crate) mod ledger;
pub(crate) mod lesson;
pub(crate) mod readout;
pub(crate) mod schedule;
pub(crate) mod sweep;
pub(crate) mod system;
pub(crate) mod tiles;
pub(crate) mod timeline;
pub(crate) mod trace;
pub(crate) mod tree;
pub(crate) mod tune;
