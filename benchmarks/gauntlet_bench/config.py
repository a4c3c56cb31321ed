"""Where the benchmarks live, and the limits every measurement shares."""

from __future__ import annotations

import os
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parent.parent
"""The benchmarks/ directory: the stub server's script, RESULTS.md."""
STUB = BENCHMARKS / "stub_server.py"
CASES_PER_FILE = 500
READY_TIMEOUT = 15.0
"""Seconds the stub server has to print READY."""
RUN_TIMEOUT = 900.0
"""Seconds any one measured subprocess may take before it is killed."""
ONE_RUN_ABOVE = 30.0
"""A configuration whose ideal time is above this many seconds is measured once."""
CLK_TCK = os.sysconf("SC_CLK_TCK")
