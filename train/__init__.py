"""Training from configs (installed as ``newmarket_env.train``)."""
