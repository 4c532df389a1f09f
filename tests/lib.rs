//! Helpers for ferz's system tests: locating and running the real `ferz` binary.
