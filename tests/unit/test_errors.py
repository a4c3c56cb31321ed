"""Errors name a library parameter as data; the command line words it as its own flag."""

from __future__ import annotations

import pickle

import pytest

from gauntlet.errors import (
    ConfigError,
    GauntletError,
    Parameter,
    TargetImportError,
    UsageError,
)


def test_an_error_reads_as_the_parameters_own_name() -> None:
    error = UsageError(Parameter("url"), " has credentials and ", Parameter("headers"), " too")
    assert str(error) == "url has credentials and headers too"
    assert error.parameters == ("url", "headers")


def test_the_command_line_words_each_parameter_as_its_flag() -> None:
    error = UsageError(Parameter("url"), ": bad; ", Parameter("url"), " again")
    assert error.parameters == ("url",)
    options = {"url": "--http-url"}
    assert error.worded(options) == "--http-url: bad; --http-url again"
    assert str(error) == "url: bad; url again"  # wording is not naming: nothing changed yet
    error.name_options(options)
    assert str(error) == "--http-url: bad; --http-url again"
    assert not error.parameters


def test_a_parameter_the_options_do_not_name_keeps_its_own_name() -> None:
    error = TargetImportError(Parameter("spec"), " 'x': expected module.path:factory")
    error.name_options({"url": "--http-url"})
    assert str(error) == "spec 'x': expected module.path:factory"
    error.name_options({"spec": "--callable"})
    assert str(error) == "--callable 'x': expected module.path:factory"


def test_an_error_about_no_parameter_is_left_as_it_is() -> None:
    error = GauntletError("first words")
    error.args = ("rewritten by whoever caught it",)  # as the OAuth client does
    error.name_options({"url": "--http-url"})
    assert str(error) == "rewritten by whoever caught it"


@pytest.mark.parametrize(
    "error",
    [GauntletError("plain"), UsageError(Parameter("labels"), " 'x': bad")],
)
def test_an_error_survives_pickling_with_its_words(error: GauntletError) -> None:
    assert str(pickle.loads(pickle.dumps(error))) == str(error)  # noqa: S301 - our own bytes


def test_a_located_error_is_one_text_part() -> None:
    error = ConfigError("cases.yaml", "threshold: must be above 0", line=3, column=5)
    assert error.parts == ("cases.yaml:3:5: threshold: must be above 0",)
    assert error.parameters == ()
