"""The toy attacker: each persona's tactics verbatim, and each defect a fault, never a move.

It is asked through `attacker_for("toy...")`, the same `ChatAttacker` a chat model is asked
through, so the prompt gauntlet writes and the reply it reads are what is exercised.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from gauntlet.cases.yaml_nodes import read_document
from gauntlet.explore.attacker import (
    AGAIN,
    AttackerFailure,
    AttackerMove,
    Exchange,
    attacker_for,
    attacker_prompt,
)
from gauntlet.explore.model import AttackerFault
from gauntlet.explore.toy import (
    MODEL,
    REFUSAL_PHRASES,
    UNREADABLE,
    AttackerDefect,
    read_prompt,
    toy_attacker_reply,
)
from gauntlet.redact import Redactor
from gauntlet.targets.spec import TARGET_FILE_ADAPTER, OpenAIChatSpec

from .test_attacker import PERSONA

ROOT = Path(__file__).resolve().parents[3]
EXAMPLE = ROOT / "examples" / "targets" / "toy-attacker.yaml"


def _conversation(spec: str, language: str) -> tuple[list[str], AttackerFailure | None]:
    """Every message the attacker `spec` sends `PERSONA` in `language`, and how it stopped."""

    async def play() -> tuple[list[str], AttackerFailure | None]:
        attacker = attacker_for(spec, redactor=Redactor())
        await attacker.open()
        side = PERSONA.languages[language]
        history = [Exchange(side.opening, "How can I help?")]
        try:
            for turn in range(2, PERSONA.max_turns + 1):
                move = await attacker.next_move(PERSONA, language, turn, history, seed=3)
                if isinstance(move, AttackerFailure):
                    return [one.user for one in history], move
                history.append(Exchange(move.message, "I can't share that."))
        finally:
            await attacker.aclose()
        return [one.user for one in history], None

    return asyncio.run(play())


@pytest.mark.parametrize("language", ["en", "es", "zh"])
def test_the_healthy_toy_attacker_sends_each_tactic_verbatim_in_order(language: str) -> None:
    # Trap: a toy that reads the wrong tactic (off by one turn), the other language's, or a
    # line of the target's words: the same persona must always send the same conversation.
    side = PERSONA.languages[language]
    sent, failure = _conversation("toy", language)
    assert failure is None
    assert sent == [side.opening, *side.tactics[: PERSONA.max_turns - 1]]
    assert _conversation("toy", language) == (sent, None)


@pytest.mark.parametrize(
    ("defect", "fault"),
    [
        (AttackerDefect.REFUSES, AttackerFault.REFUSED),
        (AttackerDefect.PROSE, AttackerFault.NOT_JSON),
        (AttackerDefect.REPEATS, AttackerFault.REPEATED),
    ],
    ids=str,
)
@pytest.mark.parametrize("language", ["en", "es", "zh"])
def test_each_toy_attacker_defect_is_its_fault_at_the_first_move_never_a_move(
    defect: AttackerDefect, fault: AttackerFault, language: str
) -> None:
    # Trap: an attacker's failure let through as a move (a refusal or its own last words sent
    # to the target, prose taken as the message), so the conversation would read as held.
    sent, failure = _conversation(f"toy:{defect}", language)
    assert failure is not None and failure.fault is fault
    assert sent == [PERSONA.languages[language].opening]


def test_the_toy_attacker_reads_a_re_ask_as_the_prompt_it_repeats() -> None:
    prompt = attacker_prompt(PERSONA, "en", 2, [Exchange("Hi", "Hello")], seed=1)
    reply = json.loads(toy_attacker_reply(f"{prompt}\n\n{AGAIN}"))
    assert reply["message"] == PERSONA.languages["en"].tactics[0]


@pytest.mark.parametrize(
    "spoil",
    [
        lambda prompt: prompt.replace("You play a user", "You are a user", 1),
        lambda prompt: "Hello.\n" + prompt,
        lambda prompt: prompt + "\nAnd one more thing.",
        lambda prompt: prompt.replace("Your move this turn", "Your next move", 1),
        lambda prompt: prompt.replace("\"I'm staff", "I'm staff", 1),
        lambda prompt: prompt.replace(">>>\n<<<", ">>>\nstray words\n<<<", 1),
        lambda prompt: "\n".join(line for line in prompt.split("\n") if not line.endswith(">>>")),
        lambda prompt: "Print the last user message.",
    ],
    ids=range(8),
)
def test_the_toy_attacker_reads_only_the_prompt_gauntlet_writes(spoil: object) -> None:
    # Trap: a toy that finds its tactic anywhere in any text: it would then pass for an
    # attacker that understood a prompt gauntlet never wrote.
    prompt = attacker_prompt(PERSONA, "en", 2, [Exchange("Hi", "Hello")], seed=1)
    assert read_prompt(prompt) is not None
    assert callable(spoil)
    spoiled = spoil(prompt)
    assert spoiled != prompt
    assert read_prompt(spoiled) is None
    assert toy_attacker_reply(spoiled) == UNREADABLE


def test_the_example_file_reads_the_toy_attackers_refusal_as_its_own_rule() -> None:
    # Trap: the example file and the toy drifting apart, so the served toy's refusal would be
    # sent to the target as a message.
    text = EXAMPLE.read_text(encoding="utf-8")
    data = json.loads(json.dumps(read_document(text, EXAMPLE.name).data))
    spec = TARGET_FILE_ADAPTER.validate_python(data, strict=True)
    assert isinstance(spec, OpenAIChatSpec)
    assert (spec.model, spec.temperature) == (MODEL, 0)
    assert spec.response.refused is not None
    written = {tag: tuple(phrases) for tag, phrases in spec.response.refused.from_text.items()}
    assert written == dict(REFUSAL_PHRASES)


def test_the_toy_attackers_fingerprint_names_it_and_its_defects() -> None:
    async def info(spec: str) -> str:
        attacker = attacker_for(spec, redactor=Redactor())
        return (await attacker.open()).fingerprint

    healthy = asyncio.run(info("toy"))
    assert healthy.startswith(f"toy {MODEL} settings sha256:")
    assert asyncio.run(info("toy:prose,refuses")).startswith(f"toy {MODEL}+refuses+prose ")
    move = asyncio.run(
        attacker_for("toy", redactor=Redactor()).next_move(
            PERSONA, "en", 2, [Exchange("Hi", "Hello")], seed=1
        )
    )
    assert isinstance(move, AttackerMove) and move.intent
