"""``python -m grading.fingerprints``: store the fingerprints of the key's mistaken answers.

For every mistake the catalogue recognises by fingerprint (``mistakes.Known``), the key's
example of it is read through the exercise's form and its digests, with the cells around
it, are written to ``attention_book/exercises/fingerprints.py``. Run it after changing a
key's mistaken answers; ``tests/test_exercises.py`` fails while the file is stale. Not
shipped in the autograder zips.
"""

from __future__ import annotations

import sys
from pathlib import Path

from attention_book.exercises.catalogue import CATALOGUE
from attention_book.exercises.fingerprint import digests
from attention_book.exercises.mistakes import Known
from grading.registry import registry

TARGET = Path(__file__).resolve().parent.parent / "attention_book/exercises/fingerprints.py"
HEADER = '''"""The fingerprints of the answer key's mistaken answers, one entry per mistake the
catalogue recognises by fingerprint (``mistakes.Known``): written by
``python -m grading.fingerprints``, do not edit. A digest is one-way
(``attention_book.exercises.fingerprint``): none says what answer it was made from."""

DIGESTS: dict[tuple[str, str], frozenset[str]] = {
'''


def known_digests() -> dict[tuple[str, str], frozenset[str]]:
    keys, found = registry(), {}
    for label, exercise in sorted(CATALOGUE.items()):
        for mistake in exercise.mistakes:
            if isinstance(mistake, Known):
                example = keys[label].mistakes[mistake.name]()
                as_read = exercise.form.read(example, ranges=False)
                found[label, mistake.name] = digests(label, mistake.of(as_read))
    return found


def module_text(found: dict[tuple[str, str], frozenset[str]]) -> str:
    lines = []
    for (label, name), values in found.items():
        lines.append(f'    ("{label}", "{name}"): frozenset({{')
        lines += [f'        "{value}",' for value in sorted(values)]
        lines.append("    }),")
    return HEADER + "\n".join(lines) + "\n}\n"


def main() -> int:
    found = known_digests()
    TARGET.write_text(module_text(found))
    print(f"{TARGET}: fingerprints of {len(found)} mistakes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
