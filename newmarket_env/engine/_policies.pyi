"""Type stub of the compiled baselines' decisions (``_policies.pyx``)."""

POLICY_CODES: dict[str, int]
