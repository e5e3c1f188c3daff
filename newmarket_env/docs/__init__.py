"""The reference docs generated from the code: ``python -m newmarket_env.docs [--check]`` (``generate``),
with one page per variant (``variant_pages``)."""
