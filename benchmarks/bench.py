"""Benchmark gauntlet's HTTP engine against a loopback stub, and check the project's targets.

Run it with ``make bench`` (or ``.venv/bin/python benchmarks/bench.py``; ``--help`` lists the
options). In one run it measures:

- the stub server's capacity, with a load generator far cheaper than any HTTP client, so
  that the figures below are known to be the client's and not the server's;
- for each latency and concurrency: (a) a minimal raw aiohttp loop, the floor for a Python
  client; (b) the engine alone, `run_gauntlet` with an `GauntletTarget`, timed from the call to
  the last answer (start-up, loading and scoring excluded); (c) `gauntlet run` end to end, as
  a subprocess on generated case files;
- streaming: gauntlet's openai-chat target from a target file, `stream: true` against
  `stream: false`, at 50 ms latency and concurrency 64 (``gauntlet_bench/streaming.py``);
- CLI start-up (`gauntlet --version`, `gauntlet run --help`) against `python -c pass`;
- peak memory of `gauntlet run` for 20,000 cases;
- performance at scale (alone with ``--scale-only``): 20,000 cases with ``--repeat 3``; the
  same cases in 4 shards merged with ``gauntlet merge``, against one unsharded run, digests
  compared; peak memory at 5,000, 20,000 and 80,000 cases and its growth per 1,000 cases;
- with ``--baseline-src DIR`` (alone with ``--goals-only``): the pipeline's own cost for this
  working tree and for a baseline checkout's ``src/``, in the same run (``goals.py``);
- the cost of ``match: semantic`` on 2,000 golden cases with the builtin embedder against
  ``match: exact`` (alone with ``--semantic-only``), and the cache's figure (``semantic.py``).

It prints a table as it goes and writes the figures, with the command that made them and a
computed verdict per target, to ``benchmarks/RESULTS.md``. See ``benchmarks/README.md``.
"""

from __future__ import annotations

import sys

# benchmarks/ is sys.path[0] when this file runs as a script: the package and stub_server.py.
from gauntlet_bench.driver import main

if __name__ == "__main__":
    sys.exit(main())
