"""`gauntlet toy`: serve the Riverbend toy or its toy judge, attacker or embedder, on 127.0.0.1."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

import typer

from gauntlet.cli.console import stderr
from gauntlet.display import printable
from gauntlet.errors import UsageError
from gauntlet.explore.toy import AttackerDefect
from gauntlet.judge.toy import JudgeDefect
from gauntlet.targets.toy.defects import ToyDefect

toy_app = typer.Typer(
    help="The Riverbend toy: a deterministic, offline assistant with named defects.",
    no_args_is_help=True,
    rich_markup_mode="markdown",
)


class ToyApi(StrEnum):
    """What `gauntlet toy serve` speaks."""

    GAUNTLET = "gauntlet"
    OPENAI = "openai"
    EMBEDDINGS = "embeddings"


@toy_app.command("serve")
def toy_serve(
    port: Annotated[
        int, typer.Option("--port", min=0, max=65535, help="Port (0: any free one).")
    ] = 8765,
    api: Annotated[
        ToyApi,
        typer.Option(
            "--api",
            help="gauntlet: the target contract at POST /. openai: an OpenAI-compatible "
            "POST /v1/chat/completions (streaming or not) and GET /v1/models. embeddings: the "
            "toy embedder, as an OpenAI-compatible POST /v1/embeddings, GET /v1/models and "
            "GET /health (for --embedder, never --target).",
        ),
    ] = ToyApi.GAUNTLET,
    toy_defects: Annotated[
        list[ToyDefect] | None,
        typer.Option(
            "--toy-defect",
            metavar="NAME",
            help="Inject a named defect (repeatable).",
            show_default=False,
        ),
    ] = None,
    judge: Annotated[
        bool,
        typer.Option(
            "--judge",
            help="Serve the toy judge instead (with --api openai, as model riverbend-toy-judge): "
            "it replies to gauntlet's rubric and pairwise judge prompts about Riverbend.",
        ),
    ] = False,
    judge_defects: Annotated[
        list[JudgeDefect] | None,
        typer.Option(
            "--judge-defect",
            metavar="NAME",
            help="Inject a named defect into the toy judge (repeatable); implies --judge.",
            show_default=False,
        ),
    ] = None,
    attacker: Annotated[
        bool,
        typer.Option(
            "--attacker",
            help="Serve the toy attacker instead (with --api openai, as model "
            "riverbend-toy-attacker): it replies to the prompts gauntlet explore writes an "
            "attacker with each persona's tactic for the turn.",
        ),
    ] = False,
    attacker_defects: Annotated[
        list[AttackerDefect] | None,
        typer.Option(
            "--attacker-defect",
            metavar="NAME",
            help="Inject a named defect into the toy attacker (repeatable: refuses, prose, "
            "repeats); implies --attacker.",
            show_default=False,
        ),
    ] = None,
    embedder_defects: Annotated[
        list[str] | None,
        typer.Option(
            "--embedder-defect",
            metavar="NAME",
            help="Inject a named defect into the toy embedder (repeatable: similar_everything, "
            "negation_blind, english_only); implies --api embeddings.",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Serve the toy on 127.0.0.1 until interrupted: the target contract, or OpenAI's API."""
    from gauntlet.targets.toy import make_toy
    from gauntlet.targets.toy.http import serve

    if api is ToyApi.EMBEDDINGS or embedder_defects:
        if toy_defects or judge or judge_defects or attacker or attacker_defects:
            raise UsageError(
                "the toy embedder takes --embedder-defect only: --toy-defect, --judge, "
                "--judge-defect, --attacker and --attacker-defect are the toy's, the toy "
                "judge's and the toy attacker's"
            )
        _serve_toy_embedder(port, embedder_defects or [])
        return
    if attacker or attacker_defects:
        if toy_defects or judge or judge_defects:
            raise UsageError(
                "the toy attacker takes --attacker-defect only: --toy-defect, --judge and "
                "--judge-defect are the toy's and the toy judge's"
            )
        _serve_toy_attacker(port, api, attacker_defects or [])
        return
    if judge or judge_defects:
        _serve_toy_judge(port, api, toy_defects, judge_defects or [])
        return
    toy = make_toy(list(dict.fromkeys(toy_defects or [])))
    if api is ToyApi.OPENAI:
        import contextlib

        from gauntlet.targets.toy.openai import serve_forever

        def announce(bound: int) -> None:
            stderr().print(
                f"serving {toy.name} on http://127.0.0.1:{bound}/v1 as an OpenAI-compatible "
                "chat completions API (Ctrl-C to stop)",
                markup=False,
            )

        with contextlib.suppress(KeyboardInterrupt):
            serve_forever("127.0.0.1", port, toy, on_ready=announce)
        return
    server = serve("127.0.0.1", port, toy)
    bound = server.server_address[1]
    stderr().print(
        f"serving {toy.name} on http://127.0.0.1:{bound}/ (Ctrl-C to stop)", markup=False
    )
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


def _serve_toy_judge(
    port: int, api: ToyApi, toy_defects: list[ToyDefect] | None, defects: list[JudgeDefect]
) -> None:
    """`gauntlet toy serve --judge`: the toy judge as an OpenAI-compatible API."""
    import contextlib

    from gauntlet.judge.toy import MODEL, ToyJudge
    from gauntlet.targets.toy.openai import serve_forever

    if api is not ToyApi.OPENAI:
        raise UsageError("--judge serves the toy judge as OpenAI's API only: add --api openai")
    if toy_defects:
        raise UsageError("--toy-defect is the toy's; give the judge's with --judge-defect")
    judge = ToyJudge(list(dict.fromkeys(defects)))

    def announce(bound: int) -> None:
        stderr().print(
            f"serving {judge.name} on http://127.0.0.1:{bound}/v1 as an OpenAI-compatible "
            f"chat completions API, model {MODEL} (Ctrl-C to stop)",
            markup=False,
        )

    with contextlib.suppress(KeyboardInterrupt):
        serve_forever("127.0.0.1", port, judge, on_ready=announce, model=MODEL)


def _serve_toy_attacker(port: int, api: ToyApi, defects: list[AttackerDefect]) -> None:
    """`gauntlet toy serve --attacker`: the toy attacker as an OpenAI-compatible API."""
    import contextlib

    from gauntlet.explore.toy import MODEL, ToyAttacker
    from gauntlet.targets.toy.openai import serve_forever

    if api is not ToyApi.OPENAI:
        raise UsageError(
            "--attacker serves the toy attacker as OpenAI's API only: add --api openai"
        )
    attacker = ToyAttacker(dict.fromkeys(defects))

    def announce(bound: int) -> None:
        stderr().print(
            f"serving {attacker.name} on http://127.0.0.1:{bound}/v1 as an OpenAI-compatible "
            f"chat completions API, model {MODEL} (Ctrl-C to stop)",
            markup=False,
        )

    with contextlib.suppress(KeyboardInterrupt):
        serve_forever("127.0.0.1", port, attacker, on_ready=announce, model=MODEL)


def _serve_toy_embedder(port: int, defects: list[str]) -> None:
    """`gauntlet toy serve --api embeddings`: the toy embedder as OpenAI's embeddings API."""
    import contextlib

    from gauntlet.semantic.toy import EmbedderDefect, ToyEmbedder
    from gauntlet.semantic.toy_server import model_name, serve_forever

    known = {defect.value: defect for defect in EmbedderDefect}
    unknown = [name for name in defects if name not in known]
    if unknown:
        raise UsageError(
            f"--embedder-defect {printable(unknown[0])}: no such toy embedder defect "
            f"(known: {', '.join(known)})"
        )
    embedder = ToyEmbedder(known[name] for name in defects)

    def announce(bound: int) -> None:
        stderr().print(
            f"serving the toy embedder on http://127.0.0.1:{bound}/v1 as an OpenAI-compatible "
            f"embeddings API, model {model_name(embedder.defects)} (Ctrl-C to stop)",
            markup=False,
        )

    with contextlib.suppress(KeyboardInterrupt):
        serve_forever("127.0.0.1", port, embedder, on_ready=announce)
