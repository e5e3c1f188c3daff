"""Seeds and execution backends shared by tournaments (:mod:`newmarket_env.eval`) and training
(:mod:`newmarket_env.train`): :mod:`~newmarket_env.execution.seeds` (stable derived seeds, the deals of a
seed) and :mod:`~newmarket_env.execution.backends` (this machine or a Ray cluster).
"""
