//! Procedural macros of quasidyn (re-exported by the `quasidyn` crate).
