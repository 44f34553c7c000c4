"""``Experiment``: a policy, an environment, a stop condition and a hook, as one object."""

import attrs

from rlcore.hooks import EmptyHook
from rlcore.utils.tree import show_tree

__all__ = ["Experiment"]


def _bind_checkpoints(experiment, attribute, hook):
    """Bind ``experiment`` into the ``Checkpoint`` hooks of ``hook`` (an attrs ``on_setattr``)."""
    from rlcore.checkpoint import bind_checkpoints

    bind_checkpoints(experiment, hook)
    return hook


@attrs.define(repr=False)
class Experiment:
    """Everything a run needs; ``run(experiment)`` runs it and returns its hook.

    Printing an experiment shows the tree of its components and their parameters, so the
    experiment's code is its configuration.

    An experiment binds itself into the :class:`~rlcore.checkpoint.Checkpoint` hook of its
    ``hook`` (when it is built and when ``hook`` is replaced), which then saves the whole
    experiment. ``position`` is where a run of it was saved (``POST_ACT_STAGE`` or
    ``POST_EXPERIMENT_STAGE``): ``None`` but on an experiment that ``rlcore.load`` read from a
    checkpoint taken inside a run, which ``rlcore.resume`` continues (and sets back to ``None``).

    >>> from rlcore import RandomPolicy, StopAfterEpisode, TotalRewardPerEpisode, run
    >>> from rlenvs import RandomWalk1D
    >>> ex = Experiment(RandomPolicy(seed=1), RandomWalk1D(), StopAfterEpisode(5),
    ...                 TotalRewardPerEpisode(), "random walk, random policy")
    >>> len(run(ex).rewards)
    5
    """

    policy: object
    env: object
    stop_condition: object
    hook: object = attrs.field(factory=EmptyHook, on_setattr=_bind_checkpoints)
    description: str = ""
    position: object = attrs.field(default=None, kw_only=True, repr=False, eq=False)

    def __attrs_post_init__(self):
        from rlcore.envs.base import AbstractEnv

        if not callable(self.policy):
            raise TypeError(f"policy must be callable as policy(env), got {self.policy!r}")
        if not isinstance(self.env, AbstractEnv):
            raise TypeError(f"env must be an rlcore AbstractEnv, got {type(self.env).__name__}")
        if not callable(self.stop_condition):
            raise TypeError(f"stop_condition must be callable, got {self.stop_condition!r}")
        _bind_checkpoints(self, None, self.hook)

    def run(self):
        """Run the experiment; return its hook."""
        from rlcore.run import run

        return run(self)

    def __str__(self):
        title = "Experiment" + (f": {self.description}" if self.description else "")
        parts = [("policy", self.policy), ("env", self.env),
                 ("stop_condition", self.stop_condition), ("hook", self.hook)]
        lines = [title]
        for i, (name, value) in enumerate(parts):
            last = i == len(parts) - 1
            sub = show_tree(value, name=name).split("\n")
            lines.append(("└─ " if last else "├─ ") + sub[0])
            lines.extend(("   " if last else "│  ") + s for s in sub[1:])
        return "\n".join(lines)

    __repr__ = __str__
