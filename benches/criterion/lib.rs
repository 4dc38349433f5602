//! Shared helpers for the criterion benchmarks (none yet).
