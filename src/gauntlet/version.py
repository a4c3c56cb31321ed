"""gauntlet's version: a leaf, so a module that records it need not import the package's API."""

__version__ = "0.1.0"
