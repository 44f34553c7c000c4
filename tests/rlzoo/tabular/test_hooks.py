"""RecordPerEpisode keeps one value per finished episode."""

import pytest

from rlcore import RandomPolicy, StopAfterEpisode, run
from rlenvs import RandomWalk1D
from rlzoo.tabular.hooks import RecordPerEpisode


def test_record_per_episode():
    hook = run(RandomPolicy(seed=0), RandomWalk1D(seed=0), StopAfterEpisode(5),
               RecordPerEpisode(lambda policy, env: env.reward()))
    assert len(hook.values) == 5 and set(hook.values) <= {-1.0, 1.0}
    with pytest.raises(TypeError, match="callable"):
        RecordPerEpisode(3)
