"""``python -m simcuda``: the ``simcuda`` command (:func:`simcuda.cli.main`), for when its console script is not on
``PATH`` (a virtual environment not activated, ``pip install --user``)."""
from __future__ import annotations

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
