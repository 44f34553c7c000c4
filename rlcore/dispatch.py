"""The project's multiple-dispatch namespace.

Every generic function of the library (``update``, ``on_stage``, ``run_loop``, ...) lives in
``NAMESPACE``, never in multipledispatch's global namespace, so user code that also uses
multipledispatch cannot collide with ours.

Register a rule with the :func:`dispatch` decorator; the decorated name becomes (or extends) the
generic function of that name::

    from rlcore.dispatch import dispatch, update
    from rlcore.stages import PostEpisodeStage

    @dispatch(MyLearner, AbstractTrajectory, AbstractEnv, PostEpisodeStage)
    def update(learner, trajectory, env, stage):
        ...

Dispatch is on positional arguments only; hyper-parameters are keyword fields of the objects.
:func:`check_ambiguities` forces every dispatcher to order its signatures and raises
:class:`AmbiguityError` on any ambiguity (the test suite calls it).
"""

from multipledispatch import Dispatcher
from multipledispatch import dispatch as _md_dispatch
from multipledispatch.conflict import AmbiguityWarning

__all__ = ["NAMESPACE", "dispatch", "generic", "update", "check_ambiguities", "AmbiguityError",
           "AmbiguityWarning"]

NAMESPACE: dict = {}


def generic(name, doc=None):
    """Return the generic function ``name`` of the project namespace, creating it if needed."""
    if name not in NAMESPACE:
        NAMESPACE[name] = Dispatcher(name, doc=doc)
    return NAMESPACE[name]


def dispatch(*types):
    """Register the decorated function as a method of the generic function of the same name.

    ``types`` are the classes of the positional arguments, in order. Returns the generic function
    (a ``multipledispatch.Dispatcher``) so the module-level name stays callable.
    """
    return _md_dispatch(*types, namespace=NAMESPACE)


update = generic(
    "update",
    doc="""The generic function that carries every learning rule.

    ``update(policy, env, stage[, action])``: a policy sees a stage (``Agent`` fans out).
    ``update(trajectory, policy, env, stage[, action])``: what the trajectory records.
    ``update(policy, trajectory, env, stage)``: when and how the policy (its learner) learns.
    ``update(learner, batch)``: one optimisation step on a sampled batch.
    ``update(approximator, loss_or_correction)``: one optimiser step.
    """,
)


class AmbiguityError(TypeError):
    """Two dispatch rules of one generic function match the same call equally well."""


def check_ambiguities():
    """Order every dispatcher of the namespace; raise :class:`AmbiguityError` on any ambiguity.

    multipledispatch orders signatures lazily, on the first call, so an ambiguity in a rule that no
    test calls would go unnoticed; this resolves them all now. Returns the number of dispatchers.
    """
    problems = []

    def collect(dispatcher, ambiguities):
        for a, b in sorted(ambiguities, key=str):
            problems.append(f"{dispatcher.name}: {_sig(a)} vs {_sig(b)}")

    for dispatcher in list(NAMESPACE.values()):
        dispatcher.reorder(on_ambiguity=collect)
    if problems:
        raise AmbiguityError("ambiguous dispatch rules:\n  " + "\n  ".join(problems))
    return len(NAMESPACE)


def _sig(types):
    return "(" + ", ".join(getattr(t, "__name__", str(t)) for t in types) + ")"
