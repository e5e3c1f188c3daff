"""Scenario and property tests of the rules engine against docs/rules.md."""
