"""``python -m flipgame`` is the ``flipgame`` command."""

import sys

from flipgame.cli import main

sys.exit(main())
