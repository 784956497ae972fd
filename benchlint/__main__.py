"""`python -m benchlint`."""

import gc

gc.disable()  # before the imports too: the process ends with os._exit (see cli.entry)

from benchlint.cli import entry  # noqa: E402

entry()
