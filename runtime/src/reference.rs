//! Numeric reference models (filled in by the reference-model work).
