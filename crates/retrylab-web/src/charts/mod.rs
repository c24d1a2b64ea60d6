//! The charts: each a function over a plotters `DrawingArea` (drawn on the page's canvas, and
//! on `plot::CanvasRecorder` in the native tests) that returns its pixel-to-data map. Maths stays in
//! the core; these only draw.

pub mod bars;
pub mod deadline;
pub mod frontier;
pub mod heatmap;
pub mod key;
pub mod plot;
pub mod schedule;
pub mod sweepchart;
pub mod system;
pub mod timeline;
pub mod treechart;
pub mod writes;
