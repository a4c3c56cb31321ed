"""The benchmarks' modules, one per section; `benchmarks/bench.py` runs them (see its docstring).

- `config`: paths and the limits every measurement shares;
- `cases`: the generated case files;
- `stub`: the stub server's process (`stub_server.py`);
- `measure`: (a) the raw aiohttp loop and (b) the engine alone;
- `loadgen`: the load generator, the stub's capacity;
- `children`: subprocesses timed by a bare launcher, (c) `gauntlet run`;
- `startup`: CLI start-up;
- `streaming`: the openai-chat target streamed and not;
- `scale`: performance at scale;
- `goals`: the pipeline's own cost against a baseline source tree (issue 19);
- `semantic`: the cost of `match: semantic` against `match: exact` (issue 32);
- `markdown`, `report`: the console and RESULTS.md;
- `plan`: the command line; `profiling`: `--profile`; `driver`: every section in turn.
"""
