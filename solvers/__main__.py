"""``python -m flipgame`` is the ``flipgame`` command."""

import sys

from .cli import main

sys.exit(main())
