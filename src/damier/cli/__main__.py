"""``python -m damier.cli``: the ``damier`` command line."""

from damier.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
