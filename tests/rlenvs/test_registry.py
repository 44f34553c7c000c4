"""Tests of rlenvs/registry.py: every registered environment passes the interface checks."""

import pytest

from rlcore.envs import TRAIT_NAMES, test_interfaces, test_runnable
from rlenvs import ENVS, list_envs, make

# Long-episode environments get fewer steps: the checks are per step, the budget is the suite's.
N_STEPS = {"AtariEnv": 150}


@pytest.mark.parametrize("name", sorted(ENVS))
def test_every_registered_env_passes_the_interface_checks(name):
    env = make(name, seed=0)
    steps = N_STEPS.get(name, 1000)
    test_interfaces(env, n_episodes=2, max_episode_steps=steps, seed=0)
    test_runnable(env, n_steps=steps, seed=1)


def test_list_envs_shows_every_env_with_its_traits():
    table = list_envs()
    assert [row["name"] for row in table.rows] == list(ENVS)
    text = str(table)
    assert text.splitlines()[0] == "| name | " + " | ".join(TRAIT_NAMES) + " |"
    row = next(r for r in table.rows if r["name"] == "TicTacToeEnv")
    assert row["NumAgentStyle"] == "MultiAgent(2)" and row["ActionStyle"] == "FULL_ACTION_SET"
    assert "| KuhnPokerEnv | MultiAgent(2) | SEQUENTIAL |" in text


def test_make_unknown_name_says_what_exists():
    with pytest.raises(KeyError, match="no environment named 'Nope'.*TicTacToeEnv"):
        make("Nope")


def test_list_envs_reports_a_missing_optional_dependency(monkeypatch):
    import rlenvs.registry as registry

    def needs_a_package(seed=None):
        raise ImportError("No module named 'something_optional'")

    monkeypatch.setitem(registry.ENVS, "NeedsAPackage", needs_a_package)
    row = next(r for r in list_envs().rows if r["name"] == "NeedsAPackage")
    assert "something_optional" in row["StateStyle"] and row["NumAgentStyle"] == "-"
