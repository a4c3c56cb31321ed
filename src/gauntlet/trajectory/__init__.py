"""Agents' tool-call trajectories: how the calls a target made are compared with a case's.

Only the scoring core lives here so far (`gauntlet.trajectory.scoring`): pure functions over
calls already decoded, with no I/O, no case-file models and no gate registration.
"""
