"""Every code block in the README and docs/ is loaded, parsed or run by the loader it shows.

A block's info string says what it is: ```` ```yaml case-file ````, ```` ```json
target-response ````, ```` ```console ````. A YAML or JSON block without a kind, or with one
this file does not know, fails: an example nobody loads is an example nobody can trust.
"""

from __future__ import annotations

import re
import shlex
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

import pytest
import typer

from gauntlet.cases.attack_pack import write_pack
from gauntlet.cases.builtin import builtin_suites_dir
from gauntlet.cases.loader import load_suites
from gauntlet.cases.persona import load_personas
from gauntlet.cases.waivers import check_waivers, parse_waivers
from gauntlet.cases.yaml_nodes import read_document
from gauntlet.cli import run
from gauntlet.cli.app import app
from gauntlet.errors import ConfigErrors, GauntletError
from gauntlet.explore.attacker import Reply, read_reply
from gauntlet.judge.judge_file import judge_fingerprint
from gauntlet.judge.labels import load_labels
from gauntlet.semantic.labels import parse_similarity_labels
from gauntlet.targets.http import parse_contract_body
from gauntlet.targets.target_file import (
    load_attacker_file,
    load_embedder_file,
    load_target_file,
)

ROOT = Path(__file__).resolve().parents[2]
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
FENCE = re.compile(
    r"^(?P<fence>```+|~~~+)(?P<info>[^\n`]*)\n(?P<body>.*?)^(?P=fence)\s*$", re.M | re.S
)


@dataclass(frozen=True)
class Block:
    """One fenced block: where it starts, its info string split in words, and its text."""

    path: Path
    line: int
    info: tuple[str, ...]
    body: str

    @property
    def where(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"

    @property
    def language(self) -> str:
        return self.info[0] if self.info else ""

    @property
    def kind(self) -> str:
        return self.info[1] if len(self.info) > 1 else ""

    def option(self, name: str) -> str:
        """A `name=value` word of the info string; the block is wrong without it."""
        for word in self.info[2:]:
            key, _, value = word.partition("=")
            if key == name:
                return value
        raise AssertionError(f"{self.where}: ```{' '.join(self.info)} needs {name}=...")


def blocks_of(path: Path) -> list[Block]:
    text = path.read_text(encoding="utf-8")
    return [
        Block(path, text.count("\n", 0, m.start()) + 1, tuple(m["info"].split()), m["body"])
        for m in FENCE.finditer(text)
    ]


BLOCKS = [block for path in DOCUMENTS for block in blocks_of(path)]


def _of(language: str) -> list[Block]:
    return [block for block in BLOCKS if block.language == language]


def _id(block: Block) -> str:
    return block.where


def _said(error: GauntletError) -> str:
    """What the command line would print: each located problem, not only the count."""
    if isinstance(error, ConfigErrors):
        return "\n".join(str(each) for each in error.errors)
    return str(error)


# ------------------------------------------------------------------------------ YAML


def _case_file(block: Block, tmp_path: Path) -> object:
    path = tmp_path / "example.yaml"
    path.write_text(block.body, encoding="utf-8")
    return load_suites([path])


def _case(block: Block, tmp_path: Path) -> object:
    """Case items, as a case file's `cases:` lists them: loaded inside a suite of their gate."""
    gate = block.option("gate")
    items = textwrap.indent(textwrap.dedent(block.body), "  ")
    head = f"suite: doc-example\ngate: {gate}\nversion: 1\nthreshold: 1.0\n"
    if gate == "golden":
        head += "key_version: 1\n"
    path = tmp_path / "example.yaml"
    path.write_text(f"{head}cases:\n{items}", encoding="utf-8")
    return load_suites([path])


def _target_file(block: Block, tmp_path: Path) -> Any:
    path = tmp_path / "target.yaml"
    path.write_text(block.body, encoding="utf-8")
    (tmp_path / "system-prompt.txt").write_text("You answer questions.", encoding="utf-8")
    return load_target_file(path, environ={"ASSISTANT_API_KEY": "sk-example-not-a-real-key"})


def _embedder_file(block: Block, tmp_path: Path) -> object:
    path = tmp_path / "embedder.yaml"
    path.write_text(block.body, encoding="utf-8")
    return load_embedder_file(path, environ={"ASSISTANT_API_KEY": "sk-example-not-a-real-key"})


def _attacker_file(block: Block, tmp_path: Path) -> object:
    path = tmp_path / "attacker.yaml"
    path.write_text(block.body, encoding="utf-8")
    return load_attacker_file(path, environ={"ASSISTANT_API_KEY": "sk-example-not-a-real-key"})


def _judge_file(block: Block, tmp_path: Path) -> object:
    return judge_fingerprint(_target_file(block, tmp_path))


# A waiver example is dated; it is checked on a day inside every example's window.
_WAIVERS_TODAY = date(2026, 12, 1)


def _waivers(block: Block, tmp_path: Path) -> object:
    loaded = parse_waivers(block.body, "waivers.yaml", today=_WAIVERS_TODAY)
    return check_waivers(loaded, load_suites([builtin_suites_dir()]))


def _labels(block: Block, tmp_path: Path) -> object:
    path = tmp_path / "labels.yaml"
    path.write_text(block.body, encoding="utf-8")
    return load_labels(path)


def _similarity_labels(block: Block, tmp_path: Path) -> object:
    """One similarity labels file: its items (a set's counts per language are checked across
    every file of a directory, so a short example is read as one file)."""
    return parse_similarity_labels(block.body, "labels.yaml")


def _workflow(block: Block, tmp_path: Path) -> object:
    """A GitHub workflow, or a part of one: GitHub reads `on` as a key, gauntlet's reader
    as YAML 1.1's boolean, so it is quoted before the strict read."""
    text = re.sub(r"^on:", '"on":', block.body, flags=re.M)
    data = read_document(text, block.where).data
    assert isinstance(data, dict) and "jobs" in data, f"{block.where}: a workflow has jobs"
    return data


def _schema_comment(block: Block, tmp_path: Path) -> object:
    """The editor's first line of a case file: the schema it names exists from `suites/`."""
    [schema] = re.findall(r"^# yaml-language-server: \$schema=(\S+)$", block.body, re.M)
    assert (ROOT / "suites" / schema).resolve().is_file(), f"{block.where}: {schema}"
    return schema


def _feature_file(block: Block, tmp_path: Path) -> object:
    """A feature file, and the pack `gauntlet init` writes from it, loaded as case files."""
    path = tmp_path / "feature.yaml"
    path.write_text(block.body, encoding="utf-8")
    write_pack(path, tmp_path / "suites")
    return load_suites([tmp_path / "suites"])


def _persona(block: Block, tmp_path: Path) -> object:
    path = tmp_path / "persona.yaml"
    path.write_text(block.body, encoding="utf-8")
    return load_personas([path])


YAML_KINDS: dict[str, Callable[[Block, Path], object]] = {
    "case-file": _case_file,
    "case": _case,
    "target-file": _target_file,
    "judge-file": _judge_file,
    "embedder-file": _embedder_file,
    "attacker-file": _attacker_file,
    "waivers": _waivers,
    "labels": _labels,
    "similarity-labels": _similarity_labels,
    "workflow": _workflow,
    "schema-comment": _schema_comment,
    "feature-file": _feature_file,
    "persona": _persona,
}


@pytest.mark.parametrize("block", _of("yaml"), ids=_id)
def test_every_yaml_block_loads_through_the_loader_of_its_kind(
    block: Block, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Trap: an example with two lines run together (`preferred: reference  - id: ...`) is
    # read by no loader, and a newcomer copying it meets an error the docs never show.
    assert block.kind in YAML_KINDS, (
        f"{block.where}: say what this YAML is, ```yaml KIND, KIND one of {sorted(YAML_KINDS)}"
    )
    monkeypatch.chdir(tmp_path)
    try:
        assert YAML_KINDS[block.kind](block, tmp_path) is not None
    except GauntletError as error:
        pytest.fail(f"{block.where}: the {block.kind} example does not load:\n{_said(error)}")


# ------------------------------------------------------------------------------ JSON


def _target_response(block: Block) -> object:
    return parse_contract_body(block.body.encode())


def _attacker_reply(block: Block) -> object:
    read = read_reply(block.body)
    assert isinstance(read, Reply), f"{block.where}: the attacker's reply is not read: {read}"
    return read


JSON_KINDS: dict[str, Callable[[Block], object]] = {
    "target-response": _target_response,
    "attacker-reply": _attacker_reply,
}


@pytest.mark.parametrize("block", _of("json"), ids=_id)
def test_every_json_block_parses_as_what_it_shows(block: Block) -> None:
    assert block.kind in JSON_KINDS, (
        f"{block.where}: say what this JSON is, ```json KIND, KIND one of {sorted(JSON_KINDS)}"
    )
    try:
        assert JSON_KINDS[block.kind](block) is not None
    except GauntletError as error:
        pytest.fail(f"{block.where}: the {block.kind} example does not parse:\n{_said(error)}")


# ----------------------------------------------------------- console and shell commands

KNOWN_LANGUAGES = {"yaml", "json", "console", "sh", "text"}


@pytest.mark.parametrize("block", BLOCKS, ids=_id)
def test_every_block_says_what_it_is(block: Block) -> None:
    # Trap: a bare ``` block is checked by nothing, so a command in it can name a flag that
    # no longer exists.
    assert block.language in KNOWN_LANGUAGES, (
        f"{block.where}: give the block one of {sorted(KNOWN_LANGUAGES)} as its info string"
    )


# A flag another change of issue 30 renames: the docs already say the new name. Until that
# change is merged the command knows only the old one; then this mapping is dead, and
# `test_every_flag_rename_still_pending_is_really_pending` says to delete it.
_MAKE_TARGET = re.compile(r"^(?P<target>[a-z][a-z-]*):", re.M)
_INSTALLERS = ("pipx install ", "uv tool install ")


def _commands(block: Block) -> list[str]:
    """The commands of a block that run gauntlet or make: `$ ` lines of a console block, and
    lines of a shell block that start with either (other lines, a query, are not ours)."""
    text = block.body.replace("\\\n", " ")
    if block.language == "console":
        return [line[2:] for line in text.splitlines() if line.startswith("$ ")]
    return [line for line in text.splitlines() if line.split()[:1] in (["gauntlet"], ["make"])]


def _invocations(command: str) -> list[list[str]]:
    """The arguments of each `gauntlet ...` of a shell line, without comments, redirections
    (`> file`) and control operators (`&&`, `&`, `|`)."""
    found: list[list[str]] = []
    current: list[str] | None = None
    redirected = False
    for word in [*shlex.split(command, comments=True), ";"]:
        if word in {"&&", "||", ";", "&", "|"}:
            if current is not None:
                found.append(current)
            current, redirected = None, False
        elif current is None:
            current = [] if word == "gauntlet" else None
        elif word == ">" or redirected:
            redirected = word == ">"
        else:
            current.append(word)
    return found


def _command_lines() -> list[tuple[Block, str]]:
    return [
        (block, line)
        for block in BLOCKS
        if block.language in {"console", "sh"}
        for line in _commands(block)
    ]


def parse_invocation(args: list[str]) -> None:
    """Parse `gauntlet ARGS` as the command line would, down to the command, running nothing.

    Raises `typer.TyperException` (typer's click) for an unknown command or flag, a missing
    value, an argument too many.
    """
    command: Any = typer.main.get_command(app)
    context = command.make_context("gauntlet", list(args))
    while hasattr(command, "commands"):
        rest = [*context._protected_args, *context.args]
        assert rest, f"gauntlet {' '.join(args)}: names no command"
        name, sub, rest = command.resolve_command(context, rest)
        command, context = sub, sub.make_context(name, rest, parent=context)


def _case_id(value: object) -> str:
    return value.where if isinstance(value, Block) else str(value)[:40]


@pytest.mark.parametrize(("block", "command"), _command_lines(), ids=_case_id)
def test_every_documented_command_is_one_the_command_line_accepts(
    block: Block, command: str
) -> None:
    # Trap: a flag renamed in the code and not in the docs (`--labels`), or a synopsis typed
    # as a command (`[--strict-waivers]`), is copied by a reader and refused.
    if command.startswith(_INSTALLERS):
        return
    words = shlex.split(command, comments=True)
    if words[:1] == ["make"]:
        makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
        target = words[1].split("=")[0]
        assert target in _MAKE_TARGET.findall(makefile), f"{block.where}: no make target {target}"
        return
    invocations = _invocations(command)
    assert invocations, f"{block.where}: {command!r} runs no gauntlet command"
    for args in invocations:
        try:
            parse_invocation(args)
        except typer.Exit:
            pass  # --version
        except typer.TyperException as refused:
            pytest.fail(f"{block.where}: gauntlet {' '.join(args)}: {refused}")


def test_the_command_check_refuses_an_unknown_flag_and_a_synopsis() -> None:
    with pytest.raises(typer.TyperException, match="--no-such-flag"):
        parse_invocation(["run", "--no-such-flag"])
    with pytest.raises(typer.TyperException, match="strict-waivers"):
        parse_invocation(["run", "--waivers", "w.yaml", "[--strict-waivers]"])
    parse_invocation(["run", "--waivers", "w.yaml", "--strict-waivers"])


# A console block with output is run where the docs' relative paths resolve, and its output
# must be what the block shows, byte for byte.
def _examples() -> list[tuple[Block, str, str]]:
    found = []
    for block in _of("console"):
        first, _, output = block.body.partition("\n")
        if first.startswith("$ gauntlet ") and output:
            found.append((block, first.removeprefix("$ gauntlet "), output))
    assert len(found) >= 2, "the docs' gauntlet examples are gone"
    return found


@pytest.mark.parametrize(("block", "args", "output"), _examples(), ids=_case_id)
def test_console_examples_with_output_are_real_output(
    block: Block,
    args: str,
    output: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    for name in ("docs", "suites", "personas"):
        (tmp_path / name).symlink_to(ROOT / name)
    monkeypatch.chdir(tmp_path)
    run(shlex.split(args))
    out, err = capsys.readouterr()
    assert out + err == output, block.where
