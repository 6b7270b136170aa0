//! Reading and writing the TOML robot spec (format in docs/spec.md).
//!
//! Reading is two steps: serde deserialises the text into raw structs that mirror the format
//! (unknown keys and wrong types are rejected there, with toml's span), then a validation step
//! turns them into a [`Robot`], checking the physics and recording a located error for every
//! problem.
//!
//! The raw structs are in `raw`, the location of toml's own errors in `locate`; the validation
//! is in `validate` (the whole spec), `bodies` (the `[[body]]` tables) and `values` (single
//! values); writing a [`Robot`] back is in `write`. This file is the entry point.

mod bodies;
mod locate;
mod raw;
mod validate;
mod values;
mod write;

use std::path::Path;

use self::locate::toml_error;
use self::raw::RawSpec;
use self::values::Validator;
use crate::error::SpecError;
use crate::model::Robot;

pub use self::values::axis_letter;
pub use self::write::to_toml;
pub use crate::model::MAX_BODIES;

/// Parses a spec. `file_name` is only used to label errors.
pub fn parse_spec(text: &str, file_name: &str) -> Result<Robot, SpecError> {
    let raw: RawSpec = toml::from_str(text).map_err(|e| toml_error(text, file_name, &e))?;
    Validator {
        text,
        file: file_name,
    }
    .robot(raw)
}

/// Reads and parses a spec file.
pub fn load_spec(path: &Path) -> Result<Robot, SpecError> {
    let text = std::fs::read_to_string(path).map_err(|source| SpecError::Io {
        path: path.to_owned(),
        source,
    })?;
    parse_spec(&text, &path.display().to_string())
}
