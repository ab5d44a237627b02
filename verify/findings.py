"""Findings: facts about the rules beyond the stated properties, each with a concrete example.

* a player draws back a card he himself discarded in the same deal (the source text's reshuffle
  of "the cards discarded earlier" allows it; whether it should is a question for the author).

Findings come from seeded engine runs, so each has a replayable record.
"""
from __future__ import annotations

import random

from atout.engine.evaluate import RuleError

from .checker import Counterexample, Finding, Verifier


def extra_findings(V: Verifier, matches: int = 16, max_steps: int = 1500) -> list[Finding]:
    """Findings from ``matches`` seeded engine matches (a count, not a time: the same on every machine)."""
    game = V.game
    if game.hand_base is None:
        return []
    out = []
    rng = random.Random(1)
    same_exchange = earlier = None
    for _ in range(matches):
        if same_exchange is not None and earlier is not None:
            break
        st = game.new_initial_state()
        steps = []
        discarded: dict[int, tuple[int, int]] = {}  # card -> (player, exchange index within the deal)
        n_ex = 0
        deals = 0
        guard = 0
        while not st.is_terminal() and guard < max_steps:
            guard += 1
            if len(st.deal_log) != deals:
                deals = len(st.deal_log)
                discarded.clear()
            if st.is_chance_node():
                src, dst = st.pending[0]
                outs = st.chance_outcomes()
                a = outs[rng.randrange(len(outs))][0]
                slot = game.zone_slots[dst]
                if slot.name == "hand" and a in discarded and discarded[a][0] == slot.owner:
                    who, when = discarded[a]
                    steps.append({"player": -1, "action": a, "text": st.action_to_string(a)})
                    try:
                        st.apply_action(a)
                    except RuleError:
                        break
                    kind = "same" if when == n_ex else "earlier"
                    if (same_exchange if kind == "same" else earlier) is not None:
                        del discarded[a]
                        continue
                    ce = Counterexample("trace", list(steps), note=f"seat {who} draws back {game.card_str(a)}",
                                        play_by_play=V.play_by_play(steps, start=max(0, len(steps) - 14)))
                    if kind == "same" and same_exchange is None:
                        same_exchange = Finding("draw_back_own_discard",
                                                f"a player can draw back a card he discarded in the same exchange "
                                                f"(seat {who}: {game.card_str(a)}), when the reshuffle takes in "
                                                f"the discards of the exchange in progress", counterexample=ce)
                    elif kind == "earlier" and earlier is None:
                        earlier = Finding("draw_back_own_discard",
                                          f"after a reshuffle a player can draw back a card he discarded in an "
                                          f"earlier exchange of the same deal (seat {who}: {game.card_str(a)})",
                                          counterexample=ce)
                    del discarded[a]
                    continue
                steps.append({"player": -1, "action": a, "text": st.action_to_string(a)})
                try:
                    st.apply_action(a)
                except RuleError:
                    break
                continue
            try:
                legal = st.legal_actions()
            except RuleError:
                break
            if not legal:
                break
            # prefer exchanges so that reshuffles happen
            named = [x for x in legal if x >= game.num_cards]
            prefer = [x for x in named if game.slot(x).name in ("propose", "accept")]
            a = rng.choice(prefer) if prefer and rng.random() < 0.9 else rng.choice(legal)
            how = st._legal().get(a)
            p = st.current_player()
            if how and how[0] == "choose":
                if st.selecting is None:
                    n_ex += 1  # a new selection (one player's discard) starts
                discarded[a] = (p, n_ex)
            steps.append({"player": p, "action": a, "text": st.action_to_string(a)})
            try:
                st.apply_action(a)
            except RuleError:
                break
    for f in (same_exchange, earlier):
        if f is not None:
            out.append(f)
    return out
