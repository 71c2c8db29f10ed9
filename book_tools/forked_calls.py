"""Calls run each in a fresh forked process, what they print kept in a log file: ``otter
assign`` and ``otter run`` change directory and hand the environment to a notebook's
kernel, and a fork of a process that imported otter once skips its 2-s import."""

from __future__ import annotations

import multiprocessing
import os
import sys
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Call:
    """``func(*args, **kwargs)`` with ``env`` added to the environment, printing to ``log``."""

    func: Callable[..., Any]
    args: tuple = ()
    kwargs: dict[str, Any] = field(default_factory=dict)
    env: dict[str, str] = field(default_factory=dict)
    log: Path = Path(os.devnull)


def _run(call: Call) -> int:
    """In the forked worker: 0 when the call returned, 1 when it raised (its traceback in
    the log, after whatever it printed)."""
    fd = os.open(call.log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    os.environ.update(call.env)
    try:
        call.func(*call.args, **call.kwargs)
        status = 0
    except BaseException:  # otter's SystemExit included: the call failed, the log says why
        traceback.print_exc()
        status = 1
    sys.stdout.flush()
    sys.stderr.flush()
    return status


def run_forked(calls: list[Call], jobs: int) -> list[int]:
    """Each call's status (0: it returned), ``jobs`` at a time, each in a fresh fork."""
    with multiprocessing.get_context("fork").Pool(jobs, maxtasksperchild=1) as pool:
        return pool.map(_run, calls, chunksize=1)


def tail(log: Path, chars: int) -> str:
    """The end of what a call printed."""
    return log.read_text(errors="replace")[-chars:] if log.is_file() else ""
