"""``python -m toolkit`` runs the ``ssl-toolkit`` command line."""
import sys

from toolkit.cli import main

sys.exit(main())
