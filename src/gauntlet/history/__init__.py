"""The run history: its records, its store and its statistics."""
