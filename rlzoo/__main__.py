"""``python -m rlzoo``: the command line of :mod:`rlzoo.cli`."""

import sys

from rlzoo.cli import main

__all__ = ["main"]

if __name__ == "__main__":
    sys.exit(main())
