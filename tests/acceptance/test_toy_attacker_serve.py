"""The toy attacker served as an OpenAI-compatible API, asked through the example file.

`gauntlet toy serve --api openai --attacker` is how an attacker target file is run end to end
with no model: the toy's server, answering each prompt gauntlet writes an attacker with the
toy attacker's reply, read by the same `ChatAttacker` as a real model's.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from gauntlet.explore.attacker import AttackerFailure, AttackerMove, Exchange, attacker_for
from gauntlet.explore.model import AttackerFault
from gauntlet.explore.toy import MODEL, AttackerDefect, ToyAttacker
from gauntlet.redact import Redactor
from gauntlet.targets.toy.openai import create_app

from ..cli_helpers import RunCli
from ..toy_servers import running_app
from ..unit.explore.test_attacker import PERSONA

pytestmark = pytest.mark.network

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "targets" / "toy-attacker.yaml"
OPENING = Exchange(PERSONA.languages["es"].opening, "¿En qué le puedo ayudar?")


def _served_move(
    tmp_path: Path, defects: tuple[AttackerDefect, ...]
) -> tuple[str, AttackerMove | AttackerFailure]:
    with running_app(create_app(ToyAttacker(defects), MODEL)) as base_url:
        path = tmp_path / "attacker.yaml"
        example = EXAMPLE.read_text(encoding="utf-8")
        path.write_text(example.replace("http://127.0.0.1:8765/v1", base_url), encoding="utf-8")

        async def ask() -> tuple[str, AttackerMove | AttackerFailure]:
            attacker = attacker_for(str(path), redactor=Redactor())
            try:
                info = await attacker.open()
                move = await attacker.next_move(PERSONA, "es", 2, [OPENING], seed=5)
            finally:
                await attacker.aclose()
            return info.fingerprint, move

        return asyncio.run(ask())


def test_the_served_toy_attacker_sends_the_tactic_with_the_models_tokens(tmp_path: Path) -> None:
    fingerprint, move = _served_move(tmp_path, ())
    assert fingerprint.startswith(f"openai-chat {MODEL} settings sha256:")
    assert isinstance(move, AttackerMove), move
    assert move.message == PERSONA.languages["es"].tactics[0]
    assert move.usage is not None and move.usage.total_tokens


@pytest.mark.parametrize(
    ("defect", "fault"),
    [
        (AttackerDefect.REFUSES, AttackerFault.REFUSED),
        (AttackerDefect.PROSE, AttackerFault.NOT_JSON),
        (AttackerDefect.REPEATS, AttackerFault.REPEATED),
    ],
    ids=str,
)
def test_over_http_each_attacker_defect_is_its_fault(
    tmp_path: Path, defect: AttackerDefect, fault: AttackerFault
) -> None:
    # Trap: the served attacker's failure read otherwise than in process (a refusal that only
    # the toy's own rule, not the example file's, reads), so a run over HTTP would "hold".
    _, move = _served_move(tmp_path, (defect,))
    assert isinstance(move, AttackerFailure) and move.fault is fault


def test_toy_serve_attacker_serves_the_named_defects_as_the_attacker_model(
    run_cli: RunCli, monkeypatch: pytest.MonkeyPatch
) -> None:
    served: list[tuple[str, str, int, str]] = []

    def fake(host: str, port: int, toy: Any, *, on_ready: Any, model: str) -> None:
        served.append((toy.name, host, port, model))
        on_ready(4321)
        raise KeyboardInterrupt  # Ctrl-C

    monkeypatch.setattr("gauntlet.targets.toy.openai.serve_forever", fake)
    result = run_cli(
        "toy", "serve", "--api", "openai", "--port", "0", "--attacker-defect", "repeats"
    )
    assert result.code == 0, result.show()
    assert served == [(f"{MODEL}+repeats", "127.0.0.1", 0, MODEL)]
    assert result.stderr == (
        f"serving {MODEL}+repeats on http://127.0.0.1:4321/v1 as an OpenAI-compatible chat "
        f"completions API, model {MODEL} (Ctrl-C to stop)\n"
    )
    served.clear()
    assert run_cli("toy", "serve", "--api", "openai", "--attacker").code == 0
    assert served == [(MODEL, "127.0.0.1", 8765, MODEL)]  # the port the example file names


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--attacker"], "--attacker serves the toy attacker as OpenAI's API only"),
        (["--api", "openai", "--attacker", "--judge"], "the toy attacker takes --attacker-defect"),
        (
            ["--api", "openai", "--attacker-defect", "prose", "--toy-defect", "drop_citations"],
            "the toy attacker takes --attacker-defect only",
        ),
        (["--api", "embeddings", "--attacker"], "the toy embedder takes --embedder-defect only"),
    ],
)
def test_toy_serve_attacker_refuses_what_it_cannot_serve(
    run_cli: RunCli, monkeypatch: pytest.MonkeyPatch, args: list[str], said: str
) -> None:
    def never(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("refused flags must not serve")  # nor block the test forever

    monkeypatch.setattr("gauntlet.targets.toy.openai.serve_forever", never)
    monkeypatch.setattr("gauntlet.targets.toy.http.serve", never)
    monkeypatch.setattr("gauntlet.semantic.toy_server.serve_forever", never)
    result = run_cli("toy", "serve", *args)
    assert result.code == 2, result.show()
    assert said in " ".join(result.stderr.split())
