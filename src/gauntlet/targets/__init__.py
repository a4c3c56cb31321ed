"""Stage 2 of the pipeline: ask a target (HTTP endpoint, Python callable or the toy) a case."""
