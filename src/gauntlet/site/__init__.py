"""The documentation site: static pages rendered from the functions the command line uses."""

from gauntlet.site.build import build_site

__all__ = ["build_site"]
