//! Input: where symbols come from — debug maps' companions: link maps, dSYMs, compile databases.

pub mod dsym;
