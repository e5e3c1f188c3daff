"""``python -m newmarket_env.docs [--check] [--pictures]``: write or check the generated docs."""

from newmarket_env.docs.generate import main

raise SystemExit(main())
