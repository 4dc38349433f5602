//! Hot paths of private classification-query release (Nandi and Bassily, "Privately answering
//! classification queries in the agnostic PAC model", ALT 2020; seed 004).
//!
//! * [`ensemble`]: the votes of `k` hypotheses of a class on each query (the subsample-and-
//!   aggregate step of `A_SubSamp`, Alg. 5 lines 7–8), with sorted fast paths for the
//!   one-dimensional classes. (`A_SSPP`'s score, Alg. 7 step 6, is the dichotomy module's
//!   [`crate::dichotomy::represent::RepScorer`].)
//! * [`relabel`]: the mistakes of every threshold labeling of a labelled sample from prefix
//!   counts (the exponential mechanism of `A_Relabel`, Alg. 2 step 4), without listing them.
//! * [`sampling`]: exactly uniform subsets, resamples and permutations of indices.
//!
//! The algorithms themselves (sparse vector, relabelling, the accountant's chain) are
//! orchestrated in the Python package `privlearn.query_release` on top of the core's existing
//! mechanisms.

pub mod ensemble;
pub mod relabel;
pub mod sampling;
