"""NUIT (Número Único de Identificação Tributária, Mozambique's tax number).

Nine digits: the first says the kind of taxpayer, the last is a check digit. The check digit follows
the algorithm python-stdnum publishes for ``stdnum.mz.nuit``: the first eight digits weighted
8, 9, 4, 5, 6, 7, 8, 9, summed, modulo 11; a remainder of 10 gives the digit 1.

A warning aid, never proof: a NUIT that passes may still belong to nobody, or to someone else, and the
API accepts any text as ``nuit`` (it does not check it). Use it to ask a person to look again at what
they typed.
"""

from __future__ import annotations

_WEIGHTS = (8, 9, 4, 5, 6, 7, 8, 9)


def compact_nuit(value: str) -> str:
    """The NUIT without the spaces, dots and dashes people write in it: "400 339 910" -> "400339910"."""
    for separator in " .-":
        value = value.replace(separator, "")
    return value.strip()


def nuit_check_digit(first_eight: str) -> str:
    """The check digit of the first eight digits."""
    if len(first_eight) != 8 or not _digits(first_eight):
        raise ValueError("nuit_check_digit takes the first 8 digits of a NUIT")
    total = sum(weight * int(digit) for weight, digit in zip(_WEIGHTS, first_eight))
    return "01234567891"[total % 11]


def is_valid_nuit(value: str) -> bool:
    """Nine digits (once compacted) whose last is the check digit of the others."""
    nuit = compact_nuit(value)
    return len(nuit) == 9 and _digits(nuit) and nuit_check_digit(nuit[:8]) == nuit[8]


def format_nuit(value: str) -> str:
    """The usual presentation in three groups: "400339910" -> "400 339 910"."""
    nuit = compact_nuit(value)
    return " ".join((nuit[:3], nuit[3:-3], nuit[-3:]))


def _digits(text: str) -> bool:
    return all("0" <= char <= "9" for char in text)
