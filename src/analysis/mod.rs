//! Analysis: demangling, grouping, diffing and verifying of the [`crate::model`], the
//! per-symbol tally and the report model of a check.

pub mod attribute;
pub mod bisect;
pub mod check;
pub mod coalesce;
pub mod compiled_differently;
pub mod demangle;
pub mod diff;
pub mod estimate;
pub mod fix_plan;
pub mod flags_diff;
pub mod group;
pub mod hide;
pub mod imports;
pub mod labels;
pub mod merge;
pub mod page;
pub mod process_diff;
pub mod process_fix_plan;
pub mod process_verify;
pub mod report;
pub mod tally;
pub mod treemap;
pub mod trend;
pub mod verify;
pub mod version;
pub mod visibility;
pub mod weak_def_map;
pub mod weak_defines;
