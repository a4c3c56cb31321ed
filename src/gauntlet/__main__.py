"""Run the command line as `python -m gauntlet`."""

from gauntlet.cli import main

main()
