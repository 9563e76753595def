"""`python -m moteip ...` is the `moteip` command."""
import sys

from .cli import main

sys.exit(main())
