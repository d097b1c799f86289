"""The command lines' one answer to a closed pipe (`python -m agent turns | head -1`): the
reader has all it wanted, so the command stops quietly instead of printing a traceback."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable

# What a command killed by SIGPIPE reports to its shell (128 + 13), as `yes | head -1` does.
CLOSED_PIPE_STATUS = 141


def quiet_on_closed_pipe(run: Callable[[], int | None]) -> int:
    """`run()`'s status; CLOSED_PIPE_STATUS, with nothing printed, when stdout's reader left."""
    try:
        status = run()
        sys.stdout.flush()  # a reader gone after the last line is found here, not at exit
        return status or 0
    except BrokenPipeError:
        # Python flushes stdout once more at exit: point it at /dev/null so that flush cannot
        # fail again and print "Exception ignored ... BrokenPipeError".
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return CLOSED_PIPE_STATUS
