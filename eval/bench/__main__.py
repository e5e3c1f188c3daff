"""Entry point of ``python -m newmarket_env.eval.bench``."""

import sys

from newmarket_env.eval.bench.cli import main

sys.exit(main())
