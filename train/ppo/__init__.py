"""MaskablePPO (sb3-contrib): ``method: ppo`` in a training config (the default).

The learner plays the vectorised tables (:func:`newmarket_env.train.ppo.learner.build_vec_env`: the
compiled batch by default) against ``opponents.baselines`` and, with ``opponents.snapshot_every``,
frozen snapshots of itself; each iteration of the run loop is one rollout of ``ppo.n_steps`` steps per
table and PPO's update on it (:mod:`.learner`). ``pretrain.teacher`` first imitates a baseline
(:mod:`.imitate`). Checkpoints are SB3 zips read back as weights only (:mod:`.checkpoints`); the policy
exports as a saved agent (:func:`newmarket_env.train.export.export_agent`).
"""
