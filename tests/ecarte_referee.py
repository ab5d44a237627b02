"""An independent referee of Écarté records, written from the rules digest §1 (not from the engine).

``referee(record)`` follows a match record (docs/records.md) by the texts of its steps, keeps the
hands, the turn-up and the score itself, checks that every card played obeys the follow rules, that
the exchanges happen in order with 1 to 5 cards, that the king of trumps is announced only by its
holder before his first card, and computes each deal's points by the scoring table; it returns the
deals as ``[{"points": [...], "tricks": [...], "complete": bool}]`` and the final score, and raises
AssertionError at the first step that breaks a rule.
"""
from __future__ import annotations

RANKS = ["K", "Q", "J", "A", "10", "9", "8", "7"]  # highest first, trumps too (digest §1)
TARGET = 5


def _card(text: str) -> tuple[str, str]:
    """('Q', '♥') from 'play Q♥' / 'deal Q♥' / 'discard Q♥'."""
    name = text.split()[-1]
    return name[:-1], name[-1]


def _higher(a, b) -> bool:
    return RANKS.index(a[0]) < RANKS.index(b[0])


def legal_follow(hand: set, led, trump: str) -> set:
    """The cards the second player may play to ``led`` (source §2: follow suit and beat the card led
    if able; void, trump if able; otherwise any card)."""
    same = {c for c in hand if c[1] == led[1]}
    if same:
        higher = {c for c in same if _higher(c, led)}
        return higher or same
    trumps = {c for c in hand if c[1] == trump}
    return trumps or set(hand)


def trick_winner(leader: int, lead, follow, trump: str) -> int:
    """Highest trump wins, else the highest card of the suit led."""
    if follow[1] == lead[1]:
        return 1 - leader if _higher(follow, lead) else leader
    return 1 - leader if follow[1] == trump else leader


def deal_points(eldest: int, tricks: list[int], exchanges: int, refused: bool) -> list[int]:
    """The digest §1 table: points of each seat for the tricks of a deal."""
    dealer = 1 - eldest
    pts = [0, 0]
    if exchanges == 0 and not refused:  # eldest played without proposing
        t = tricks[eldest]
        if t == 5:
            pts[eldest] += 2
        elif t >= 3:
            pts[eldest] += 1
        else:
            pts[dealer] += 2
    elif exchanges == 0 and refused:  # the dealer refused the first proposal
        t = tricks[dealer]
        if t == 5:
            pts[dealer] += 2
        elif t >= 3:
            pts[dealer] += 1
        else:
            pts[eldest] += 2
    else:  # at least one exchange: whoever took 3-4 scores 1, 5 scores 2
        for p in (0, 1):
            if tricks[p] == 5:
                pts[p] += 2
            elif tricks[p] >= 3:
                pts[p] += 1
    return pts


def referee(record: dict) -> tuple[list[dict], list[int]]:
    steps = record["steps"]
    score = [0, 0]
    deals: list[dict] = []
    dealer = 0  # the first dealer is seat 0; the deal alternates (source §10)
    i = 0
    n = len(steps)

    def take(player=None, prefix=None):
        nonlocal i
        assert i < n, "the record ends in the middle of a deal"
        s = steps[i]
        if player is not None:
            assert s["player"] == player, f"step {i + 1}: seat {s['player']} acts, expected {player}: {s}"
        if prefix is not None:
            assert s["text"].startswith(prefix), f"step {i + 1}: expected '{prefix}...', got {s}"
        i += 1
        return s

    def over() -> bool:
        return max(score) >= TARGET

    while True:
        eldest = 1 - dealer
        hands = [set(), set()]
        start = score[:]
        # the deal: 3 to eldest, 3 to the dealer, 2 to eldest, 2 to the dealer, then the turn-up (CAV 8)
        for who, k in ((eldest, 3), (dealer, 3), (eldest, 2), (dealer, 2)):
            for _ in range(k):
                hands[who].add(_card(take(-1, "deal ")["text"]))
        turnup = _card(take(-1, "deal ")["text"])
        trump = turnup[1]
        seen = hands[0] | hands[1] | {turnup}
        assert len(seen) == 11, "a card was dealt twice"
        if turnup[0] == "K":
            score[dealer] += 1
        if over():
            deals.append({"points": [a - b for a, b in zip(score, start)], "tricks": [0, 0], "complete": False})
            assert i == n, "the match went on after a turned-up king made 5"
            return deals, score
        exchanges, refused = 0, False
        while True:  # propose / accept / exchange (source §7-9)
            s = take(eldest)
            if s["text"] == "I play":
                break
            assert s["text"] == "I propose", s
            s = take(dealer)
            if s["text"] == "We play":
                refused = True
                break
            assert s["text"] == "Please", s
            for who in (eldest, dealer):  # the non-dealer first (fact 12)
                gone = []
                while len(gone) < 5 and steps[i]["text"].startswith("discard "):
                    c = _card(take(who)["text"])
                    assert c in hands[who], f"step {i}: {c} is not in seat {who}'s hand"
                    hands[who].discard(c)
                    gone.append(c)
                if len(gone) < 5:
                    assert take(who)["text"] == f"done ({len(gone)} chosen)"
                assert 1 <= len(gone) <= 5
                for _ in gone:
                    c = _card(take(-1, "deal ")["text"])
                    assert c != turnup, "the turn-up was drawn"
                    assert c not in hands[0] | hands[1], f"{c} drawn while in a hand"
                    hands[who].add(c)
            exchanges += 1
        # the play: eldest leads trick 1, the winner of each trick leads the next (fact 5)
        tricks = [0, 0]
        leader = eldest
        played = [False, False]
        announced = False
        for _ in range(5):
            cards = []
            for who in (leader, 1 - leader):
                s = take(who)
                if s["text"] == "announce the king of trumps":
                    assert not announced and not played[who] and ("K", trump) in hands[who], \
                        f"step {i}: an announcement out of time or without the king"
                    announced = True
                    score[who] += 1
                    if over():
                        deals.append({"points": [a - b for a, b in zip(score, start)], "tricks": tricks,
                                      "complete": False})
                        assert i == n, "the match went on after the king made 5"
                        return deals, score
                    s = take(who)
                c = _card(s["text"])
                assert s["text"].startswith("play ") and c in hands[who], f"step {i}: {s}"
                if cards:
                    allowed = legal_follow(hands[who], cards[0], trump)
                    assert c in allowed, f"step {i}: {c} breaks the follow rules ({sorted(allowed)} allowed)"
                hands[who].discard(c)
                played[who] = True
                cards.append(c)
            w = trick_winner(leader, cards[0], cards[1], trump)
            tricks[w] += 1
            leader = w
        pts = deal_points(eldest, tricks, exchanges, refused)
        score = [a + b for a, b in zip(score, pts)]
        deals.append({"points": [a - b for a, b in zip(score, start)], "tricks": tricks, "complete": True})
        if over():
            assert i == n, "the match went on after a player reached 5"
            return deals, score
        dealer = eldest
