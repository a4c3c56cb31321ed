"""Text and boundary contrast of the site's palette, in the light and the dark scheme."""

from __future__ import annotations

import re

import pytest

from gauntlet.site.build import STATIC, STYLESHEET
from tests.unit.site.pagecheck import contrast_ratio, palettes, relative_luminance

CSS = (STATIC / STYLESHEET).read_text(encoding="utf-8")
PALETTES = palettes(CSS)

TEXT_PAIRS = [
    ("--fg", "--bg"),
    ("--fg", "--surface"),
    ("--link", "--bg"),
    ("--link", "--surface"),
    ("--link-visited", "--bg"),
    ("--link-visited", "--surface"),
    ("--pass", "--bg"),
    ("--pass", "--surface"),
    ("--fail", "--bg"),
    ("--fail", "--surface"),
    ("--notice-fg", "--notice-bg"),
]
"""Every text colour on every background it is shown on: at least 4.5:1 (WCAG 1.4.3)."""

BOUNDARY_PAIRS = [
    ("--border", "--bg"),
    ("--border", "--surface"),
    ("--focus", "--bg"),
    ("--focus", "--surface"),
]
"""Boundaries of interactive parts (scrolling regions, focus rings): at least 3:1 (1.4.11)."""


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize(("text", "background"), TEXT_PAIRS)
def test_text_contrast(scheme: str, text: str, background: str) -> None:
    palette = PALETTES[scheme]
    assert contrast_ratio(palette[text], palette[background]) >= 4.5


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize(("boundary", "background"), BOUNDARY_PAIRS)
def test_boundary_contrast(scheme: str, boundary: str, background: str) -> None:
    palette = PALETTES[scheme]
    assert contrast_ratio(palette[boundary], palette[background]) >= 3.0


def test_both_schemes_define_the_same_properties() -> None:
    assert set(PALETTES["light"]) == set(PALETTES["dark"])


def test_every_property_used_is_defined_and_every_colour_is_a_variable() -> None:
    used = set(re.findall(r"var\((--[\w-]+)\)", CSS))
    assert used <= set(PALETTES["light"])
    outside_palette = re.sub(r":root\s*\{[^}]*\}", "", CSS)
    assert re.findall(r"#[0-9a-fA-F]{3,6}\b", outside_palette) == []


def test_the_dark_scheme_is_dark() -> None:
    assert relative_luminance(PALETTES["dark"]["--bg"]) < relative_luminance(
        PALETTES["dark"]["--fg"]
    )
    assert relative_luminance(PALETTES["light"]["--bg"]) > relative_luminance(
        PALETTES["light"]["--fg"]
    )


@pytest.mark.parametrize(
    ("first", "second", "ratio"),
    [("#000000", "#ffffff", 21.0), ("#ffffff", "#ffffff", 1.0), ("#777", "#fff", 4.48)],
)
def test_the_contrast_formula(first: str, second: str, ratio: float) -> None:
    assert contrast_ratio(first, second) == pytest.approx(ratio, abs=0.01)


GRAPHIC_PAIRS = [(f"--series-{n}", "--bg") for n in (1, 2, 3)]
"""The dashboard's chart lines and markers on the page: at least 3:1 (1.4.11). Gridlines
(`--rule`) are decoration: the values are in the table beside each chart."""


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize(("graphic", "background"), GRAPHIC_PAIRS)
def test_chart_line_contrast(scheme: str, graphic: str, background: str) -> None:
    palette = PALETTES[scheme]
    assert contrast_ratio(palette[graphic], palette[background]) >= 3.0


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_chart_lines_are_told_apart_from_one_another(scheme: str) -> None:
    palette = PALETTES[scheme]
    colours = [palette[f"--series-{n}"] for n in (1, 2, 3)] + [palette["--fail"]]
    assert len({c.lower() for c in colours}) == len(colours)
