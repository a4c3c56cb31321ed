"""Stage 1 of the pipeline: load case files strictly into validated suites."""
