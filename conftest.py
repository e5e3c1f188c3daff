"""Repository-wide pytest set-up: modules of optional extras are not imported for doctests without them."""

import importlib.util

# newmarket_env.integrations.rllib imports Ray RLlib at the top (its classes subclass RLlib's); where the
# `ray` extra is not installed, --doctest-modules would fail to import it. Its tests in tests/ray skip then.
collect_ignore = [] if importlib.util.find_spec("ray") else ["newmarket_env/integrations/rllib.py"]
