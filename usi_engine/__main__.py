"""``python -m usi_engine``: the command line (:mod:`usi_engine.cli`)."""
import sys

from usi_engine.cli import main

if __name__ == "__main__":
    sys.exit(main())
