"""What the atlas may say of a head's role: tested only where a test exists and can run."""

import pytest

from attention_book.head_roles import (
    AGREES,
    DISAGREES,
    NOT_COVERED,
    NOT_TESTABLE_OFFLINE,
    NOT_TESTED,
    load_roles,
    role_evidence,
    roles_of,
)


def group(role, chapter_given=True):
    return next(g for g in load_roles() if g.role == role and
                (g.chapter is not None) == chapter_given)


HEADS = {"2.2": {"previous_token_score": 0.9, "negative_mass_share": 0.6},
         "4.11": {"previous_token_score": 0.1, "negative_mass_share": 0.3},
         "5.5": {"previous_token_score": 0.05, "negative_mass_share": 0.2}}


def test_a_test_decides_the_previous_token_role_on_text():
    prev = group("previous-token")
    assert role_evidence("2.2", prev, HEADS, rows_are_tokens=True)["verdict"] == AGREES
    said = role_evidence("4.11", prev, HEADS, rows_are_tokens=True)
    assert said["verdict"] == DISAGREES and said["agrees"] is False
    assert "previous-token score on the example rows 0.100 (rank 2 of 3)" in said["measure"]


@pytest.mark.parametrize("head, role", [("2.2", "previous-token"), ("5.5", "induction")])
def test_position_rows_test_no_role(head, role):
    said = role_evidence(head, group(role), HEADS, rows_are_tokens=False)
    assert said["verdict"] == NOT_TESTABLE_OFFLINE and said["agrees"] is None


def test_nu_is_shown_but_never_decides_a_role():
    said = role_evidence("5.5", group("induction"), HEADS, rows_are_tokens=True)
    assert said["verdict"] == NOT_TESTED and said["agrees"] is None
    assert "ν = 0.200" in said["measure"]


def test_roles_no_chapter_discusses_are_named_as_not_covered():
    groups = load_roles()
    assert {g.role for g in roles_of((9, 9), groups)} == {"name mover"}
    said = role_evidence("5.5", group("name mover", chapter_given=False), HEADS, True)
    assert said["verdict"] == NOT_COVERED and said["agrees"] is None
