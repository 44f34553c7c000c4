import pytest

import importlib
import pkgutil

import rlcore
import rlenvs
import rlzoo

# Every module of the three packages registers its rules, so the check below sees them all.
for _package in (rlcore, rlenvs, rlzoo):
    for _module in pkgutil.walk_packages(_package.__path__, _package.__name__ + "."):
        importlib.import_module(_module.name)
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


def test_generic_functions_call_as_multipledispatch_does():
    from multipledispatch import Dispatcher
    from multipledispatch.dispatcher import MDNotImplementedError

    from rlcore.dispatch import GenericFunction

    assert all(type(f) is GenericFunction for f in NAMESPACE.values())

    class A: ...
    class B(A): ...

    try:
        for arity in range(1, 7):  # the direct lookups (2 to 5 arguments) and the general path
            @dispatch(*[A] * arity)
            def _call_probe(*args, scale=1):
                return ("A", len(args) * scale)

            @dispatch(*[B] * arity)
            def _call_probe(*args, scale=1):  # noqa: F811
                if len(args) == 3:
                    raise MDNotImplementedError  # go on to the next method, as multipledispatch
                return ("B", len(args) * scale)

            probe = NAMESPACE["_call_probe"]
            reference = Dispatcher("reference")
            for signature, method in probe.funcs.items():
                reference.add(signature, method)
            for args in ([A()] * arity, [B()] * arity):
                for _ in range(2):  # the first call resolves, the second takes the cache
                    assert probe(*args, scale=10) == reference(*args, scale=10)
            assert probe(*[B()] * arity) == (("A", 3) if arity == 3 else ("B", arity))
            with pytest.raises(NotImplementedError, match="Could not find signature"):
                probe(*[object()] * arity)
        probe.add((int, int, int), lambda *args: (_ for _ in ()).throw(MDNotImplementedError()))
        for _ in range(2):  # multipledispatch's first call, then GenericFunction's cached one
            with pytest.raises(NotImplementedError, match="none completed successfully"):
                probe(1, 2, 3)
    finally:
        del NAMESPACE["_call_probe"]


def test_generic_functions_keep_their_documentation():
    from rlcore.dispatch import update

    doc = update.__doc__
    assert doc.startswith("Multiply dispatched method: update")
    assert "carries every learning rule" in doc  # the doc given to generic()
    assert "Default: a policy ignores the stage." in doc  # and the methods' docstrings


def test_rules_with_a_self_parameter_follow_multipledispatch():
    from rlcore.dispatch import update

    class L: ...
    class B: ...

    @dispatch(L, B)
    def update(self, batch):  # noqa: F811 (the module's generic function, as before)
        return "mine"

    try:
        assert update is NAMESPACE["update"] and NAMESPACE["update"](L(), B()) == "mine"
    finally:  # the rule leaves update as it found it
        generic_update = NAMESPACE["update"]
        del generic_update.funcs[(L, B)]
        generic_update._cache.clear()
        generic_update.reorder()

    class C:  # methods dispatched in a class body: a MethodDispatcher of the class
        @dispatch(int)
        def method(self, x):
            return "int"

        @dispatch(str)
        def method(self, x):  # noqa: F811
            return "str"

    assert (C().method(1), C().method("a")) == ("int", "str")
    assert "method" not in NAMESPACE


def test_copies_and_pickles_of_a_generic_function_are_that_function():
    import copy
    import pickle
    import subprocess
    import sys

    from rlcore import DoEveryNStep
    from rlcore.dispatch import GenericFunction, update

    assert copy.copy(update) is update and copy.deepcopy(update) is update
    assert pickle.loads(pickle.dumps(update)) is update
    hook = DoEveryNStep(update, n=3)  # any object holding one
    assert copy.deepcopy(hook).f is update
    # in a fresh process the pickle names the namespace's function, with its rules
    code = ("import pickle, sys; from rlcore.dispatch import update; "
            "f = pickle.loads(sys.stdin.buffer.read()); print(f is update, len(f.funcs) > 5)")
    out = subprocess.run([sys.executable, "-c", code], input=pickle.dumps(update),
                         capture_output=True, check=True).stdout.decode().split()
    assert out == ["True", "True"]
    # one made outside the namespace is copied as multipledispatch copies a Dispatcher
    lonely = GenericFunction("lonely")
    lonely.add((int,), lambda x: x + 1)
    twin = copy.deepcopy(lonely)
    assert twin is not lonely and twin(1) == 2
