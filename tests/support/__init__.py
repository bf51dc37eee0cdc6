"""Fakes, kits and fixtures the tests and bench/ share: no test module imports another."""
