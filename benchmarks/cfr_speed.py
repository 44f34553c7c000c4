"""CFR+ iterations per second and NashConv after N iterations: ours through ``run`` against a
bare loop, on Kuhn poker and Leduc hold'em; and our CFR against OpenSpiel's published curve.

    python benchmarks/cfr_speed.py [--kuhn 1000] [--leduc 100] [--repeats 5] [--openspiel]
                                   [--mccfr]

The work: CFR+ as Tammelin et al. (2015) (regret matching+, linear averaging with weight t and
no delay, alternating updates: player_0's pass, then player_1's against player_0's new policy).

* ours: ``run(TabularCFRPolicy(tree), env, StopAfterStep(N))`` on a :class:`GameTree` of
  ``KuhnPokerEnv`` / ``LeducPokerEnv``: level-by-level numpy sweeps over the whole tree. The tree
  is built before the clock starts; its build time is printed apart (Kuhn about 10 ms, Leduc
  about 2.5 s).
* bare: the reference written in this file the way a competent user writes CFR+ by hand: the
  game coded by hand (``HandCodedKuhn``, ``HandCodedLeduc``: states as tuples, the deals
  enumerated at the root), one recursive function over the histories, information sets keyed
  in dicts by ``(card, history)`` tuples, Python lists for the regrets and strategies; the
  strategies are recomputed after each player's pass (as RL.jl and OpenSpiel do), so both sides
  run the same algorithm and must end with the same average policy.

Each repeat runs both in turn (interleaved, so drift on a shared machine hits both alike); the
table shows the median iterations per second, the ratio ours / bare (target >= 0.9), and both
NashConvs after N iterations (target: equal to floating-point accuracy), measured by
``nash_conv_of_table`` on the same tree.

``--openspiel``: our CFR with OpenSpiel's ``CFRSolver`` settings (regret matching, uniform
averaging, alternating updates) on Leduc hold'em against the exploitability (NashConv / 2)
OpenSpiel printed every 100 iterations in google-deepmind/open_spiel pull request #197
(https://github.com/google-deepmind/open_spiel/pull/197, ``cfr_example.py`` on
``leduc_poker``; its "iteration i" is the policy after i + 1 iterations).

``--mccfr``: outcome- and external-sampling MCCFR, ten seeds each, NashConv after the budgets
of OpenSpiel's own tests (``outcome_sampling_mccfr_test.py``: 10,000 iterations, Kuhn < 0.04,
Leduc < 3; ``external_sampling_mccfr_test.py``: 1,000 iterations, Kuhn < 0.05, Leduc < 2.5;
one seed each there), and iterations per second.
"""

import argparse
import itertools
import statistics
import time

import numpy as np

from rlcore import StopAfterStep, run
from rlenvs import KuhnPokerEnv, LeducPokerEnv
from rlenvs.games import kuhn_poker, leduc_poker
from rlzoo.multi_agent.exploitability import nash_conv_of_table
from rlzoo.multi_agent.external_sampling_mccfr import ExternalSamplingMCCFRPolicy
from rlzoo.multi_agent.game_tree import GameTree
from rlzoo.multi_agent.outcome_sampling_mccfr import OutcomeSamplingMCCFRPolicy
from rlzoo.multi_agent.tabular_cfr import TabularCFRPolicy

KUHN_SHOWDOWN_STAKES = {"pp": 1, "bb": 2, "pbb": 2}  # "bp" and "pbp" are folds


class HandCodedKuhn:
    """Kuhn poker by hand: a state is ``(card_0, card_1, history)``; pass 0, bet 1."""

    def deals(self):
        return [(cards, 1 / 6) for cards in itertools.permutations(range(3), 2)]

    def initial(self, cards):
        return cards[0], cards[1], ""

    def chance_outcomes(self, state):
        return None

    def is_terminal(self, state):
        return state[2] in ("pp", "bp", "bb", "pbp", "pbb")

    def payoff(self, state):
        """player_0's payoff."""
        c0, c1, h = state
        if h == "bp":
            return 1.0
        if h == "pbp":
            return -1.0
        stake = KUHN_SHOWDOWN_STAKES[h]
        return float(stake if c0 > c1 else -stake)

    def player(self, state):
        return len(state[2]) % 2

    def key(self, state, player):
        return state[player], state[2]

    def actions(self, state):
        return (0, 1)

    def next(self, state, action):
        return state[0], state[1], state[2] + "pb"[action]


def _round_over(h):
    return h.endswith("f") or h == "cc" or (h.endswith("c") and "r" in h)


class HandCodedLeduc:
    """Leduc hold'em by hand: a state is ``(card_0, card_1, public, round_1, round_2, stake_0,
    stake_1)``; fold 0, call 1, raise 2 (by 2, then 4 in the second round; two per round)."""

    def deals(self):
        return [(cards, 1 / 30) for cards in itertools.permutations(range(6), 2)]

    def initial(self, cards):
        return cards[0], cards[1], None, "", "", 1, 1

    def chance_outcomes(self, state):
        c0, c1, public, h1, h2, s0, s1 = state
        if public is None and _round_over(h1) and not h1.endswith("f"):
            return [((c0, c1, card, h1, h2, s0, s1), 0.25) for card in range(6)
                    if card not in (c0, c1)]
        return None

    def is_terminal(self, state):
        return state[3].endswith("f") or (state[2] is not None and _round_over(state[4]))

    def payoff(self, state):
        """player_0's payoff."""
        c0, c1, public, h1, h2, s0, s1 = state
        for h in (h1, h2):
            if h.endswith("f"):
                return float(-s0 if (len(h) - 1) % 2 == 0 else s1)
        strength = [3 + c // 2 if c // 2 == public // 2 else c // 2 for c in (c0, c1)]
        return float((strength[0] > strength[1]) - (strength[0] < strength[1])) * s1

    def player(self, state):
        return len(state[4] if state[2] is not None else state[3]) % 2

    def key(self, state, player):
        return state[player], state[2], state[3], state[4]

    def actions(self, state):
        h = state[4] if state[2] is not None else state[3]
        legal = [0] if h.endswith("r") else []
        legal.append(1)
        if h.count("r") < 2:
            legal.append(2)
        return legal

    def next(self, state, action):
        c0, c1, public, h1, h2, s0, s1 = state
        second = public is not None
        stakes = [s0, s1]
        i = len(h2 if second else h1) % 2
        if action == 1:
            stakes[i] = max(stakes)
        elif action == 2:
            stakes[i] = max(stakes) + (4 if second else 2)
        if second:
            h2 += "fcr"[action]
        else:
            h1 += "fcr"[action]
        return c0, c1, public, h1, h2, stakes[0], stakes[1]


def bare_cfr_plus(game, n_iterations):
    """CFR+ by hand, ``n_iterations`` iterations; returns ``[{key: average policy}]`` per
    player (over the legal actions)."""
    regrets, strategy, strategy_sum = ({}, {}), ({}, {}), ({}, {})
    deals = game.deals()

    def walk(state, traverser, my_reach, others_reach, t):
        """The traverser's expected value of ``state``; updates its regrets and average."""
        if game.is_terminal(state):
            u = game.payoff(state)
            return u if traverser == 0 else -u
        outcomes = game.chance_outcomes(state)
        if outcomes is not None:
            return sum(p * walk(child, traverser, my_reach, others_reach * p, t)
                       for child, p in outcomes)
        player = game.player(state)
        key = game.key(state, player)
        actions = game.actions(state)
        sigma = strategy[player].get(key)
        if sigma is None:
            n = len(actions)
            sigma = strategy[player][key] = [1.0 / n] * n
            regrets[player][key] = [0.0] * n
            strategy_sum[player][key] = [0.0] * n
        if player != traverser:
            return sum(s * walk(game.next(state, a), traverser, my_reach, others_reach * s, t)
                       for a, s in zip(actions, sigma))
        values = [walk(game.next(state, a), traverser, my_reach * s, others_reach, t)
                  for a, s in zip(actions, sigma)]
        v = sum(s * x for s, x in zip(sigma, values))
        r, ss = regrets[player][key], strategy_sum[player][key]
        for k, (s, x) in enumerate(zip(sigma, values)):
            r[k] += others_reach * (x - v)
            ss[k] += t * my_reach * s
        return v

    for t in range(1, n_iterations + 1):
        for traverser in (0, 1):
            for cards, p in deals:
                walk(game.initial(cards), traverser, 1.0, p, t)
            for key, r in regrets[traverser].items():  # regret matching+
                r[:] = [max(x, 0.0) for x in r]
                total = sum(r)
                strategy[traverser][key] = [x / total for x in r] if total > 0 else \
                    [1.0 / len(r)] * len(r)
    return [{key: [x / sum(ss) for x in ss] if sum(ss) > 0 else [1 / len(ss)] * len(ss)
             for key, ss in strategy_sum[p].items()} for p in (0, 1)]


def table_of(tree, average, info_sets):
    """The bare loop's average policy as a ``(n_infosets, n_actions)`` table of ``tree``."""
    table = np.zeros((tree.n_infosets, tree.n_actions))
    for i, (player, state) in enumerate(tree.infoset_keys):
        legal = np.flatnonzero(tree.infoset_legal[i])
        table[i, legal] = average[tree.players.index(player)][info_sets[state]]
    return table


GAMES = {"Kuhn": (KuhnPokerEnv, HandCodedKuhn, kuhn_poker.INFO_SETS),
         "Leduc": (LeducPokerEnv, HandCodedLeduc, leduc_poker.INFO_SETS)}


def ours(tree, make_env, n):
    solver = TabularCFRPolicy(tree)
    start = time.perf_counter()
    run(solver, make_env(), StopAfterStep(n))
    return n / (time.perf_counter() - start), solver.average_policy_table()


def bare(tree, game, info_sets, n):
    start = time.perf_counter()
    average = bare_cfr_plus(game, n)
    return n / (time.perf_counter() - start), table_of(tree, average, info_sets)


def speed(args):
    rows = []
    for name, n in (("Kuhn", args.kuhn), ("Leduc", args.leduc)):
        make_env, make_game, info_sets = GAMES[name]
        start = time.perf_counter()
        tree = GameTree(make_env())
        build = time.perf_counter() - start
        print(f"{name}: {tree}, built in {build:.3f} s", flush=True)
        rates = {"ours": [], "bare": []}
        for repeat in range(args.repeats):
            rate, ours_table = ours(tree, make_env, n)
            rates["ours"].append(rate)
            rate, bare_table = bare(tree, make_game(), info_sets, n)
            rates["bare"].append(rate)
            print(f"  repeat {repeat}: ours {rates['ours'][-1]:,.1f} it/s, "
                  f"bare {rates['bare'][-1]:,.1f} it/s", flush=True)
        conv = {"ours": nash_conv_of_table(tree, ours_table),
                "bare": nash_conv_of_table(tree, bare_table)}
        rows.append((name, n, {k: statistics.median(v) for k, v in rates.items()}, conv,
                     np.abs(ours_table - bare_table).max(), build))
    print(f"\nCFR+, median of {args.repeats} interleaved repeats")
    print("| game | iterations | ours it/s | bare it/s | ratio | NashConv ours | NashConv bare "
          "| max policy difference | tree build |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, n, rate, conv, diff, build in rows:
        print(f"| {name} | {n:,} | {rate['ours']:,.1f} | {rate['bare']:,.1f} | "
              f"{rate['ours'] / rate['bare']:.2f} | {conv['ours']:.10g} | {conv['bare']:.10g} | "
              f"{diff:.1e} | {build:.2f} s |")


# exploitability (NashConv / 2) of OpenSpiel's CFRSolver on leduc_poker after 1, 101, ...
# iterations, as printed in google-deepmind/open_spiel pull request #197
OPENSPIEL_LEDUC_CFR = {1: 2.37361, 101: 0.0939493, 201: 0.0533379, 301: 0.0355078,
                       401: 0.0261679, 501: 0.0214263, 601: 0.019941, 701: 0.0162468,
                       801: 0.0145468, 901: 0.0139447, 1000: 0.0118178}


def openspiel():
    from rlcore import POST_ACT_STAGE
    from rlcore.dispatch import update

    tree = GameTree(LeducPokerEnv())
    solver = TabularCFRPolicy(tree, is_reset_neg_regrets=False, is_linear_averaging=False)
    env = LeducPokerEnv()
    print("\nCFR (OpenSpiel's CFRSolver settings) on Leduc hold'em, exploitability = NashConv/2")
    print("| iterations | ours | OpenSpiel (PR #197) | difference |\n|---:|---:|---:|---:|")
    for t in range(1, max(OPENSPIEL_LEDUC_CFR) + 1):
        update(solver, env, POST_ACT_STAGE)
        if t in OPENSPIEL_LEDUC_CFR:
            value = nash_conv_of_table(tree, solver.average_policy_table()) / 2
            print(f"| {t} | {value:.7g} | {OPENSPIEL_LEDUC_CFR[t]} | "
                  f"{value - OPENSPIEL_LEDUC_CFR[t]:+.1e} |", flush=True)


def mccfr(seeds=10):
    budgets = [("outcome", OutcomeSamplingMCCFRPolicy, "Kuhn", 10_000, 0.04),
               ("outcome", OutcomeSamplingMCCFRPolicy, "Leduc", 10_000, 3.0),
               ("external", ExternalSamplingMCCFRPolicy, "Kuhn", 1000, 0.05),
               ("external", ExternalSamplingMCCFRPolicy, "Leduc", 1000, 2.5)]
    trees = {name: GameTree(GAMES[name][0]()) for name in GAMES}
    print(f"\nMCCFR, {seeds} seeds: NashConv after the budget of OpenSpiel's tests")
    print("| sampling | game | iterations | NashConv median | min | max | OpenSpiel's bound "
          "(one seed) | it/s |\n|---|---|---:|---:|---:|---:|---:|---:|")
    for sampling, cls, name, n, bound in budgets:
        values, rates = [], []
        for seed in range(seeds):
            solver = cls(trees[name], seed=seed)
            start = time.perf_counter()
            run(solver, GAMES[name][0](), StopAfterStep(n))
            rates.append(n / (time.perf_counter() - start))
            values.append(nash_conv_of_table(trees[name], solver.average_policy_table()))
        print(f"| {sampling} | {name} | {n:,} | {statistics.median(values):.4f} | "
              f"{min(values):.4f} | {max(values):.4f} | < {bound} | "
              f"{statistics.median(rates):,.0f} |", flush=True)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kuhn", type=int, default=1000, help="CFR+ iterations on Kuhn")
    parser.add_argument("--leduc", type=int, default=100, help="CFR+ iterations on Leduc")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--openspiel", action="store_true",
                        help="also compare CFR on Leduc with OpenSpiel's published curve")
    parser.add_argument("--mccfr", action="store_true", help="also the ten-seed MCCFR table")
    args = parser.parse_args(argv)
    speed(args)
    if args.openspiel:
        openspiel()
    if args.mccfr:
        mccfr()


if __name__ == "__main__":
    main()
