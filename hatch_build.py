"""The wheel's metadata of where it comes from: project URLs, a README whose links work.

PyPI shows the README as the project's page, where a link relative to the repository leads
nowhere. When the build is told the repository's URL (`GAUNTLET_REPOSITORY_URL`, which the
release workflow sets from GitHub's own `server_url` and `repository`, and `make dist` from
`REPOSITORY_URL` or the git remote), every relative link in the packaged README is made absolute
at the release's tag (`v` and the version, or `GAUNTLET_SOURCE_REF`), and the project URLs are
set. Without it the README is packaged as it is and no URL is invented; `make dist` refuses
such a build (scripts/dist.py checks the metadata).
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from hatchling.metadata.plugin.interface import MetadataHookInterface

REPOSITORY = re.compile(r"https://[A-Za-z0-9.-]+(?::\d+)?(?:/[A-Za-z0-9_.-]+){2}")
"""An https repository address with an owner and a name, nothing after them."""
REF = re.compile(r"[A-Za-z0-9][A-Za-z0-9._/-]*")
ABSOLUTE = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")
"""A scheme (`https:`, `mailto:`): the link already leads somewhere on its own."""
INLINE_LINK = re.compile(r"(?P<open>\]\()(?P<target>[^)\s]+)(?P<close>[)\s])")
REFERENCE_LINK = re.compile(r"^(?P<open> {0,3}\[[^\]]+\]:\s*)(?P<target>\S+)", re.MULTILINE)
HTML_LINK = re.compile(r"(?P<open>\b(?:href|src)=\")(?P<target>[^\"]+)(?P<close>\")")
FENCE = re.compile(r"^(```|~~~)", re.MULTILINE)


def absolute_link(target: str, base: str, ref: str) -> str:
    """`target` as a link that works off the repository: a file or anchor at `ref`."""
    if ABSOLUTE.match(target) or target.startswith("//"):
        return target
    if target.startswith("#"):
        return f"{base}/blob/{ref}/README.md{target}"
    return f"{base}/blob/{ref}/{target.removeprefix('./')}"


def absolute_readme(text: str, base: str, ref: str) -> str:
    """The README with every relative link (outside code blocks) made absolute at `ref`."""

    def fix(match: re.Match[str]) -> str:
        target = absolute_link(match["target"], base, ref)
        return match["open"] + target + (match.groupdict().get("close") or "")

    pieces = FENCE.split(text)
    out: list[str] = []
    inside = False
    index = 0
    while index < len(pieces):
        piece = pieces[index]
        if index % 2 == 1:  # a fence marker
            inside = not inside
            out.append(piece)
        elif inside:
            out.append(piece)
        else:
            for pattern in (INLINE_LINK, REFERENCE_LINK, HTML_LINK):
                piece = pattern.sub(fix, piece)
            out.append(piece)
        index += 1
    return "".join(out)


def repository_urls(base: str) -> dict[str, str]:
    """The project URLs a package index shows beside the README."""
    return {
        "Homepage": base,
        "Source": base,
        "Issues": f"{base}/issues",
        "Changelog": f"{base}/blob/main/CHANGELOG.md",
    }


class SourceMetadataHook(MetadataHookInterface):
    """Sets `readme` and `urls` (both dynamic in pyproject.toml) from the repository's URL."""

    PLUGIN_NAME = "custom"

    def update(self, metadata: dict[str, Any]) -> None:
        """Fill in the README, made absolute, and the project URLs, when the URL is known."""
        text = (Path(self.root) / "README.md").read_text(encoding="utf-8")
        base = os.environ.get("GAUNTLET_REPOSITORY_URL", "").strip().removesuffix("/")
        if base:
            if not REPOSITORY.fullmatch(base):
                message = f"GAUNTLET_REPOSITORY_URL={base!r}: expected https://HOST/OWNER/NAME"
                raise ValueError(message)
            ref = os.environ.get("GAUNTLET_SOURCE_REF", "").strip() or f"v{metadata['version']}"
            if not REF.fullmatch(ref):
                raise ValueError(f"GAUNTLET_SOURCE_REF={ref!r}: not a git ref")
            text = absolute_readme(text, base, ref)
            metadata["urls"] = repository_urls(base)
        metadata["readme"] = {"content-type": "text/markdown", "text": text}
