//! Shared helpers of the workspace integration tests.
