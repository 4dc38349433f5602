"""``python -m privlearn``: the ``privlearn`` command line (see :mod:`privlearn.cli`)."""

from __future__ import annotations

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
