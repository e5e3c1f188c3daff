"""How long a table waits for a decision before it gives up: numbers chosen, not given by the rules."""

from __future__ import annotations

# The learner views (SingleAgentEnv, VectorEnv, through envs.learner_options.check_empty_sessions) and
# TableBatch: sessions in a row that end without a decision of the learner (or of any caller's seat)
# before a table gives up with an error.
MAX_EMPTY_SESSIONS = 100

# TableBatch: a call stepping fewer tables than this per thread uses fewer threads (starting a parallel
# region costs a few microseconds; the search's rollouts step a handful of tables thousands of times).
TABLES_PER_THREAD = 16
