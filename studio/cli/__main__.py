"""``python -m studio.cli``: the ``voice-studio`` command (as ``python -m studio``)."""

import sys

from studio.cli import main

sys.exit(main())
