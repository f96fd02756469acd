"""``python -m borders_sim.cli``: the ``borders-sim`` command."""

import sys

from .main import main

sys.exit(main())
