"""Stage 4 of the pipeline: build the evidence pack from results (and a baseline)."""
