"""Variant cases: each case of a suite that declares `transforms`, once per transform.

A variant is a pure function of (case, transform, seed): its id is `<case id>~<transform>`
(`~best_of_n-<k>` for the k-th noised one), its pair `<pair>~<transform>` (so the variants of a
pair's languages are a pair; a best-of-N variant has none, its noise drawn for its own case), its
markers and expectations are the case's, and its prompt (or,
for a conversation, its last turn) is the case's rewritten by the transform. The variants
follow their case in the suite, so a plan lists each case with its variants.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any, cast

from gauntlet.canonical import canonical_text
from gauntlet.cases.model import (
    CASE_MODELS,
    MAX_ID_LENGTH,
    AnyCase,
    BestOfN,
    DeclaresTransforms,
    RefusalCase,
    RefusalKind,
    case_key,
)
from gauntlet.errors import ConfigError, ConfigSchemaError
from gauntlet.transforms import Transform, Variant, transformed

if TYPE_CHECKING:
    from gauntlet.cases.loader import LoadedSuite, SuiteSet

VARIANT_MARK = "~"
"""What joins a case's id to its transform in a variant's id; never in a written id."""


def written_id_errors(loaded: LoadedSuite) -> list[ConfigError]:
    """Each case id or pair key written with `~`, or longer than `MAX_ID_LENGTH`.

    The models take both, for the variants' ids (`<case id>~<transform>`); a file may not.
    """
    errors: list[ConfigError] = []
    for number, case in enumerate(loaded.cases):
        for key, value in (("id", case.id), ("pair", case.pair)):
            if value is not None and len(value) > MAX_ID_LENGTH:
                mark = loaded.id_marks[number] if key == "id" else loaded.case_marks[number]
                errors.append(
                    ConfigSchemaError(
                        loaded.source,
                        f"cases[{number}].{key}: is {len(value)} characters long; "
                        f"at most {MAX_ID_LENGTH} are allowed",
                        line=mark.line,
                        column=mark.column,
                    )
                )
            if value is not None and VARIANT_MARK in value:
                mark = loaded.id_marks[number] if key == "id" else loaded.case_marks[number]
                errors.append(
                    ConfigSchemaError(
                        loaded.source,
                        f"cases[{number}].{key}: {value!r} is not a valid "
                        f"{'id' if key == 'id' else 'pair key'}",
                        line=mark.line,
                        column=mark.column,
                        hint=f"'{VARIANT_MARK}' is kept for the variants transforms derive "
                        "(<case id>~<transform>); use letters, digits, '.', '_' or '-'",
                    )
                )
    return errors


def variants_of(case: AnyCase, declared: tuple[Any, ...]) -> list[AnyCase]:
    """The variant cases of `case` under its suite's `declared` transforms, in their order."""
    chosen = case_key(case, "transforms")
    if isinstance(case, RefusalCase) and case.kind is not RefusalKind.MUST_REFUSE:
        return []
    made: list[AnyCase] = []
    for item in declared:
        name = Transform.BEST_OF_N if isinstance(item, BestOfN) else Transform(item)
        if chosen is not None and name not in chosen:
            continue
        if isinstance(item, BestOfN):
            made += [
                _variant(case, Variant(case.id, name, item.seed, k))
                for k in range(1, item.best_of_n + 1)
            ]
        else:
            made.append(_variant(case, Variant(case.id, name)))
    return made


def _variant(case: AnyCase, variant: Variant) -> AnyCase:
    data = case.model_dump(mode="json", exclude_unset=True)
    data.pop("transforms", None)
    suffix = VARIANT_MARK + variant.suffix
    data["id"] = case.id + suffix
    if variant.transform is Transform.BEST_OF_N:
        # Each side's noise is its own draw, so the sides no longer ask the same thing: a
        # difference in their outcomes would say nothing about the language.
        data.pop("pair", None)
    elif case.pair is not None:
        data["pair"] = case.pair + suffix

    def rewrite(text: str) -> str:
        return transformed(
            text,
            case.language,
            variant.transform,
            seed=variant.seed or 0,
            case_id=case.id,
            k=variant.k or 0,
        )

    if case.turns is None:
        data["prompt"] = rewrite(case.final_prompt)
    else:
        data["turns"][-1]["user"] = rewrite(case.final_prompt)
    # Validated as any case is (from JSON text, as strict models read enums and tuples there).
    made = CASE_MODELS[case_gate(case)].model_validate_json(canonical_text(data))
    made._variant = variant
    return made  # type: ignore[return-value]


def case_gate(case: AnyCase) -> Any:
    """The gate whose case model `case` is."""
    return next(gate for gate, model in CASE_MODELS.items() if type(case) is model)


def expanded(loaded: LoadedSuite) -> LoadedSuite:
    """`loaded` with each case followed by its variants, their marks the case's."""
    suite = loaded.suite
    if not isinstance(suite, DeclaresTransforms) or not suite.transforms:
        return loaded
    cases: list[AnyCase] = []
    case_marks, id_marks = [], []
    for number, case in enumerate(cast("tuple[AnyCase, ...]", suite.cases)):
        group = [case, *variants_of(case, suite.transforms)]
        cases += group
        case_marks += [loaded.case_marks[number]] * len(group)
        id_marks += [loaded.id_marks[number]] * len(group)
    return dataclasses.replace(
        loaded,
        suite=suite.model_copy(update={"cases": tuple(cases)}),
        case_marks=tuple(case_marks),
        id_marks=tuple(id_marks),
    )


def as_written(loaded: LoadedSuite) -> LoadedSuite:
    """`loaded` without its variant cases: its cases as its file writes them."""
    kept = [number for number, case in enumerate(loaded.cases) if case.variant is None]
    if len(kept) == len(loaded.cases):
        return loaded
    return dataclasses.replace(
        loaded,
        suite=loaded.suite.model_copy(update={"cases": tuple(loaded.cases[n] for n in kept)}),
        case_marks=tuple(loaded.case_marks[n] for n in kept),
        id_marks=tuple(loaded.id_marks[n] for n in kept),
    )


def without_variants(suites: SuiteSet) -> SuiteSet:
    """`suites` with every suite `as_written` (`gauntlet run --no-transforms`)."""
    return dataclasses.replace(suites, suites=tuple(as_written(s) for s in suites.suites))
