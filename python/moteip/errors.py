"""Errors of the moteip front end and the exit status each one means.

Every failure the user can cause (a bad scenario, a bad option, a missing
results file) is a `UsageError`: the CLI prints its message and exits 2,
never with a traceback. Failures of the machinery (the simulator cannot be
built, a run crashed) are `RunError`: exit 1.
"""
from __future__ import annotations


class MoteipError(Exception):
    """Base class: `str(err)` is the whole message shown to the user."""

    exit_status = 1


class UsageError(MoteipError):
    """Bad input from the user: scenario file, option, key or results path."""

    exit_status = 2


class ScenarioError(UsageError):
    """A scenario that cannot be loaded; the message names file and key."""


class RunError(MoteipError):
    """The simulator could not be built, or a run failed."""

    exit_status = 1


class MissingExtra(RunError):
    """An optional dependency is not installed: the message says which extra
    of the package brings it (`pip install 'moteip[plot]'`)."""

    def __init__(self, extra: str, module: str, what: str | None = None):
        super().__init__(f"{what or extra} needs {module}, which is not installed: "
                         f"pip install 'moteip[{extra}]'")
        self.extra, self.module = extra, module
