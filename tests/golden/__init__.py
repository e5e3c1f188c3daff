"""Golden session records: seeded sessions saved as JSON, regenerated and compared by the tests."""
