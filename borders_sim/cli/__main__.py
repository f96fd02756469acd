"""``python -m borders_sim.cli``: the ``borders-sim`` command."""

import sys

from .app import main

sys.exit(main())
