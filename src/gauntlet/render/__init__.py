"""Stage 5 of the pipeline: render results and evidence for people and machines."""
