"""The retrieval-rate sensitivities every model reports (R-CLI-4, seed "Models and decision gate").

0%, 5%, 20% and the supplied `--retrieval-rate` are always reported and cost-gated. Equal values
are reported once with the set of labels that name them (so `--retrieval-rate 0.2` gives three
rows: 0 {ZERO}, 0.05 {DEFAULT}, 0.2 {HIGH, SUPPLIED}).
"""

from __future__ import annotations

import enum
from fractions import Fraction

import msgspec

from clearing_analysis.policy import gate_policy


class RateLabel(enum.StrEnum):
    """Why a retrieval rate is reported."""

    ZERO = "ZERO"
    DEFAULT = "DEFAULT"  # the default rate, pending lookup-pilot evidence
    HIGH = "HIGH"
    SUPPLIED = "SUPPLIED"


_FIXED_LABELS = (RateLabel.ZERO, RateLabel.DEFAULT, RateLabel.HIGH)


class Sensitivity(msgspec.Struct, frozen=True):
    """One distinct retrieval rate and the labels that name it, in label order."""

    rate: Fraction
    labels: tuple[RateLabel, ...]


def exact(value: float) -> Fraction:
    """The decimal a reviewer or user wrote (0.05 is 1/20, not the nearest binary double)."""
    return Fraction(repr(value))


def fixed_sensitivities() -> tuple[Sensitivity, ...]:
    """The fixed sensitivities alone (0%, 5%, 20%): what the informational what-ifs report,
    whatever rate was supplied."""
    fixed = gate_policy().retrieval_sensitivities
    if len(fixed) != len(_FIXED_LABELS):
        raise RuntimeError("policy/gate.json must list the zero, default and high rates")
    labelled: dict[Fraction, list[RateLabel]] = {}
    for label, rate in zip(_FIXED_LABELS, fixed, strict=True):
        labelled.setdefault(exact(rate), []).append(label)
    return tuple(Sensitivity(rate, tuple(labels)) for rate, labels in sorted(labelled.items()))


def sensitivities(supplied: Fraction) -> tuple[Sensitivity, ...]:
    """The fixed sensitivities plus the supplied rate, deduplicated, ascending."""
    labelled: dict[Fraction, list[RateLabel]] = {}
    fixed = gate_policy().retrieval_sensitivities
    if len(fixed) != len(_FIXED_LABELS):
        raise RuntimeError("policy/gate.json must list the zero, default and high rates")
    for label, rate in zip(_FIXED_LABELS, fixed, strict=True):
        labelled.setdefault(exact(rate), []).append(label)
    labelled.setdefault(supplied, []).append(RateLabel.SUPPLIED)
    return tuple(
        Sensitivity(rate, tuple(sorted(labels, key=list(RateLabel).index)))
        for rate, labels in sorted(labelled.items())
    )


__all__ = ["RateLabel", "Sensitivity", "exact", "fixed_sensitivities", "sensitivities"]
