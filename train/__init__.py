"""Training from configs (installed as ``newmarket_env.train``).

``python -m newmarket_env.train configs/newmarket_ppo.yaml`` trains MaskablePPO
(sb3-contrib) as configured; :func:`newmarket_env.train.run.train` is the
Python entry point and :func:`newmarket_env.train.config.load_config` reads a config.
"""
