"""The process's garbage-collector tunings, in one place: the command line sets them.

A command owns its process, so it, and not the library, decides how Python's cyclic
collector behaves; the loader and the engine leave it as their caller set it. Three
tunings, each where a command spends its time:

- `paused_while_loading`: reading case files builds only acyclic data (a dict, list or model
  per node), which the collector would walk again and again as it grows: a quarter to a
  third of the time valid files take.
- `young_only_while_running`: what was loaded before a run lives to its end, yet each full
  collection walked all of it again (several per 5,000 cases, each holding up the event loop,
  so every ask, for tens of milliseconds, to find nothing). Frozen, it is left out until the
  run ends; and the young objects are collected less often, as each ask makes hundreds that
  its own end frees. A run makes almost no cyclic garbage, so memory stays as it was.
- `leave_to_the_system`: at exit, what was loaded is left to the operating system rather than
  walked by the interpreter's last collection (about 0.1 s after a large run).
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

YOUNG_THRESHOLD = 10_000
"""During a run, how many new container objects make the collector look at the young ones
(Python's default is 700)."""

_lock = threading.Lock()
_runs = 0
_before: tuple[tuple[int, int, int], bool] = ((700, 10, 10), True)
"""The collector's thresholds before the first of the runs going on, and whether to unfreeze."""


@contextmanager
def paused_while_loading() -> Iterator[None]:
    """Pause the collector while cases load; left as found, so a pause inside one does nothing."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


@contextmanager
def young_only_while_running() -> Iterator[None]:
    """Keep the collector off what was there before the run, and collect the young less often.

    Runs that overlap (in threads) share one setting, made by the first and put back by the
    last as it was before the first. What the host froze itself stays frozen: then nothing is
    unfrozen, as `gc.unfreeze` cannot tell the two apart.
    """
    global _runs, _before  # the collector is one per process
    with _lock:
        if _runs == 0:
            threshold = gc.get_threshold()
            _before = (threshold, gc.get_freeze_count() == 0)
            gc.freeze()
            gc.set_threshold(max(threshold[0], YOUNG_THRESHOLD), *threshold[1:])
        _runs += 1
    try:
        yield
    finally:
        with _lock:
            _runs -= 1
            if _runs == 0:
                threshold, unfreeze = _before
                gc.set_threshold(*threshold)
                if unfreeze:
                    gc.unfreeze()


def leave_to_the_system() -> None:
    """At exit: keep the interpreter's last collection off everything still alive."""
    gc.freeze()
