"""A model as judge: strict replies, fenced prompts, calibration against human labels."""
