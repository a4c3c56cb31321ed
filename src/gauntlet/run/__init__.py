"""The engine: ask every case of the loaded suites, score the answers, and record the run."""
