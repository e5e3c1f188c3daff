"""``python -m newmarket_env.train CONFIG.yaml`` (or ``python -m train ...`` from the repository root)."""

import sys

from .cli import main

sys.exit(main())
