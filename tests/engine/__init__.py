"""Scenario and property tests of the rules engine against RULES.md."""
