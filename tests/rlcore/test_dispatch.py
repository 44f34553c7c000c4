import pytest

import rlcore  # noqa: F401  (registers every core rule)
import rlenvs  # noqa: F401
import rlzoo.tabular  # noqa: F401
from rlcore.dispatch import NAMESPACE, AmbiguityError, check_ambiguities, dispatch, generic


def test_every_dispatcher_resolves_without_ambiguity():
    assert check_ambiguities() >= 3
    assert {"update", "on_stage", "run_loop"} <= set(NAMESPACE)


def test_ambiguity_is_detected_and_reported():
    class A: ...
    class B(A): ...

    @dispatch(A, B)
    def _ambiguous_probe(x, y):
        return 1

    @dispatch(B, A)
    def _ambiguous_probe(x, y):  # noqa: F811
        return 2

    try:
        with pytest.raises(AmbiguityError, match="_ambiguous_probe"):
            check_ambiguities()
    finally:
        del NAMESPACE["_ambiguous_probe"]
    check_ambiguities()


def test_ambiguity_warnings_are_errors_under_pytest():
    from multipledispatch.conflict import AmbiguityWarning

    probe = generic("_warning_probe")
    try:
        class A: ...
        class B(A): ...
        probe.add((A, B), lambda x, y: 1)
        probe.add((B, A), lambda x, y: 2)
        with pytest.raises(AmbiguityWarning):
            probe(B(), B())
    finally:
        del NAMESPACE["_warning_probe"]


def test_rules_live_in_the_project_namespace_only():
    from multipledispatch.core import global_namespace

    assert "update" not in global_namespace
    assert "on_stage" not in global_namespace
