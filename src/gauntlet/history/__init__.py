"""The run history: every run kept in one SQLite file, and what its statistics say.

`gauntlet.history.records` holds the shapes every part shares, `gauntlet.history.store` writes
runs into the file and reads them back (see docs/history.md for its schema), and
`gauntlet.history.stats` judges the newest run against the comparable ones before it.
"""
