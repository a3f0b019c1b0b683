"""ddz.solve: the exact open-hand solver against a plain brute-force minimax (no table, no
pruning, no ordering) on thousands of small random positions of every variant's rules, with
2, 3 and 4 seats, with and without a play to answer and bomb limits; positions whose answer
follows from the rules (RULES.md §2.0.1 trick play, §2.0.5 comparison, §2.0.6 the end of the
hand, §2.3.6 bomb limits); bad input."""
from __future__ import annotations

import random
from typing import List, Optional, Sequence, Tuple

import pytest

import ddz
from ddz import Cards, Move, legal_moves

ONE_DECK = "3456789TJQKA2" * 4 + "BR"
TWO_DECKS = "3456789TJQKA2" * 8 + "BBRR"

RULES = {
    "classic": ddz.Rules.classic(),
    "two_player": ddz.Rules.two_player(),
    "bengbu": ddz.Rules.bengbu(),
    "classic_douzero": ddz.Rules.classic_douzero(),   # relaxed kickers: several readings per multiset
    "bengbu_cycle": ddz.Rules.bengbu(bengbu_trio_chain_order="cycle", bengbu_four_with_two=True),
}


# ---- the reference: trick play written out plainly (§2.0.1) ----------------------------

def actions(hands: List[Cards], rules, seat: int, top: Optional[Move], left: List[Optional[int]]) -> List[Optional[Move]]:
    """The seat's legal actions: plays (no bombs once its bomb plays are spent), then None = PASS when following."""
    plays = legal_moves(hands[seat], rules, prev=top)
    if left[seat] == 0:
        plays = [m for m in plays if not m.is_bomb]
    return plays + ([None] if top is not None else [])


def mover_wins_after(hands, rules, seat, top, owner, passes, left, sides, action) -> bool:
    n = len(hands)
    if action is None:  # a pass; after n-1 passes the owner leads a new trick
        if passes + 1 == n - 1:
            child = brute(hands, rules, owner, None, owner, 0, left, sides)
            nxt = owner
        else:
            nxt = (seat + 1) % n
            child = brute(hands, rules, nxt, top, owner, passes + 1, left, sides)
        return child if sides[nxt] == sides[seat] else not child
    rest = hands[seat] - action.cards
    if not rest:  # §2.0.6: going out ends the hand, the mover's side wins
        return True
    hands2 = list(hands)
    hands2[seat] = rest
    left2 = list(left)
    if action.is_bomb and left2[seat] is not None:
        left2[seat] -= 1
    nxt = (seat + 1) % n
    child = brute(hands2, rules, nxt, action, seat, 0, left2, sides)
    return child if sides[nxt] == sides[seat] else not child


def brute(hands, rules, seat, top, owner, passes, left, sides) -> bool:
    """True when the side of `seat` wins: some action after which it wins."""
    return any(mover_wins_after(hands, rules, seat, top, owner, passes, left, sides, a)
               for a in actions(hands, rules, seat, top, left))


def brute_root(hands, rules, seat, top, owner, passes, left, sides) -> Tuple[bool, set]:
    winning = {("PASS" if a is None else str(a))
               for a in actions(hands, rules, seat, top, left)
               if mover_wins_after(hands, rules, seat, top, owner, passes, left, sides, a)}
    return bool(winning), winning


# ---- random small positions -------------------------------------------------------------

def random_position(rng: random.Random, rules_name: str, n: int):
    rules = RULES[rules_name]
    deck = TWO_DECKS if rules.decks == 2 else ONE_DECK
    budget = {2: (2, 7), 3: (1, 5), 4: (1, 4)}[n]
    while True:  # a narrow window of ranks makes pairs, trios, bombs and short chains common
        lo = rng.randrange(0, 9)
        window = set("3456789TJQKA"[lo:lo + rng.choice((2, 3, 4, 5, 6))]) | set(rng.sample("2BR", rng.randrange(0, 3)))
        pool = [c for c in deck if c in window]
        rng.shuffle(pool)
        sizes = [rng.randint(*budget) for _ in range(n)]
        if sum(sizes) <= len(pool):
            break
    hands = []
    for k in sizes:
        hands.append(Cards("".join(pool[:k]), decks=rules.decks))
        pool = pool[k:]
    to_move = rng.randrange(n)
    prev = None
    if rng.random() < 0.5 and pool:
        leads = legal_moves("".join(pool[:rng.randint(1, 6)]), rules)
        prev = rng.choice(leads)
    sides = [rng.randrange(2) for _ in range(n)]
    if len(set(sides)) == 1:
        sides[rng.randrange(n)] ^= 1
    limits = [rng.choice((None, None, 0, 1)) for _ in range(n)] if rng.random() < 0.5 else None
    return rules, hands, to_move, prev, sides, limits


def check(rules, hands, to_move, prev, sides, limits, rng) -> None:
    n = len(hands)
    left = list(limits) if limits is not None else [None] * n
    owner = (to_move - 1) % n
    win, winning = brute_root(hands, rules, to_move, prev, owner, 0, left, sides)
    sol = ddz.solve(hands, rules, to_move=to_move, prev=prev, sides=sides, bomb_limits=limits, all_moves=True,
                    table_mb=1)
    ctx = f"{[str(h) for h in hands]} to_move={to_move} prev={prev} sides={sides} limits={limits} rules={rules!r}"
    assert sol.complete and sol.win is win, ctx
    assert {str(m) for m in sol.moves} == winning, ctx
    one = ddz.solve(hands, rules, to_move=to_move, prev=prev, sides=sides, bomb_limits=limits, table_mb=1)
    assert one.win is win and len(one.moves) == (1 if win else 0) and {str(m) for m in one.moves} <= winning, ctx
    check_pv(sol, rules, hands, to_move, prev, sides, left)


def check_pv(sol, rules, hands, to_move, prev, sides, left) -> None:
    """The principal variation is a legal line to the end of the hand, won by the side the solver named."""
    n = len(hands)
    hands = list(hands)
    left = list(left)
    seat, top, owner, passes = to_move, prev, (to_move - 1) % n, 0
    winner_side = sides[to_move] if sol.win else 1 - sides[to_move]
    for i, (s, m) in enumerate(sol.pv):
        assert s == seat
        legal = {("PASS" if a is None else str(a)) for a in actions(hands, rules, seat, top, left)}
        assert str(m) in legal
        if i == 0 and sol.win:
            assert str(m) in {str(x) for x in sol.moves}
        if m.is_pass:
            passes += 1
            if passes == n - 1:
                top, seat, passes = None, owner, 0
            else:
                seat = (seat + 1) % n
            continue
        hands[seat] = hands[seat] - m.cards
        if m.is_bomb and left[seat] is not None:
            left[seat] -= 1
        if not hands[seat]:
            assert sides[seat] == winner_side and i == len(sol.pv) - 1
            return
        top, owner, passes, seat = m, seat, 0, (seat + 1) % n
    pytest.fail("the principal variation does not reach the end of the hand")


@pytest.mark.parametrize("rules_name", sorted(RULES))
@pytest.mark.parametrize("n", [2, 3, 4])
def test_solver_agrees_with_brute_force(rules_name: str, n: int) -> None:
    rng = random.Random(f"solve-{rules_name}-{n}")
    for _ in range(250):
        check(*random_position(rng, rules_name, n), rng)


@pytest.mark.parametrize("hands,limits,winning", [
    (["33334444", "55566"], [1, None], {"3", "33", "333", "4", "44", "444"}),
    (["33334444", "55566"], [2, None], {"3", "33", "333", "3333", "4", "44", "444", "4444"}),
    (["33334444", "5556"], [1, 1], {"3", "33", "333", "4", "44", "444"}),
    (["3333444455", "66677"], [1, None], {"3", "4"}),
])
def test_bomb_plays_left_are_part_of_the_position(hands, limits, winning) -> None:
    """BENGBU4 §2.3.6: 3333 can leave the hand as one bomb or as 33 + 33, so the position
    'seat 0 leads 4444 against 55566' is reached with one bomb play left (it bombs out) and
    with none (it loses). A table keyed without the bomb plays left answers 3333 wrongly."""
    rules = RULES["bengbu"]
    sol = ddz.solve(hands, rules, bomb_limits=limits, all_moves=True)
    assert {str(m) for m in sol.moves} == winning
    ref = brute_root([Cards(h, decks=2) for h in hands], rules, 0, None, 1, 0, limits, [0, 1])
    assert ref == (True, winning)


def test_bomb_heavy_random_positions() -> None:
    """BENGBU4 hands of two or three ranks (bombs of 4 to 8, trio chains), bomb limits 0-2."""
    rng = random.Random("bomb-limits")
    rules = RULES["bengbu"]
    for _ in range(200):
        lo = rng.randrange(0, 11)
        pool = [c for c in TWO_DECKS if c in "3456789TJQKA2"[lo:lo + rng.choice((2, 3))]]
        rng.shuffle(pool)
        a, b = rng.randint(4, 8), rng.randint(2, 7)
        hands = [Cards("".join(pool[:a]), decks=2), Cards("".join(pool[a:a + b]), decks=2)]
        limits = [rng.choice((0, 1, 1, 2)), rng.choice((None, 0, 1))]
        prev = rng.choice(legal_moves("".join(pool[a + b:a + b + 4]), rules)) if rng.random() < 0.4 else None
        check(rules, hands, 0, prev, [0, 1], limits, rng)


def test_solver_agrees_on_play_states() -> None:
    """solve(play_state): the state's trick, passes, bomb limits and landlord-vs-farmers sides."""
    rng = random.Random(7)
    for name in ("classic", "two_player", "bengbu"):
        rules = RULES[name]
        n = rules.players
        deck = TWO_DECKS if rules.decks == 2 else ONE_DECK
        for _ in range(120):
            lo = rng.randrange(0, 9)
            pool = [c for c in deck if c in set("3456789TJQKA"[lo:lo + 4]) | {"2", "B", "R"}]
            rng.shuffle(pool)
            hands = []
            for _ in range(n):
                k = rng.randint(2, 4 if n > 2 else 6)
                hands.append("".join(pool[:k]))
                pool = pool[k:]
            limits = [rng.choice((None, 0, 1)) for _ in range(n)] if name == "bengbu" else None
            ps = ddz.PlayState(hands, rng.randrange(n), rules, bomb_limits=limits)
            for _ in range(rng.randrange(0, 4)):  # reach a mid-trick state
                if ps.is_over:
                    break
                opts = ps.legal_moves()
                ps.apply(opts[-1] if rng.random() < 0.3 else rng.choice(opts))
            if ps.is_over:
                continue
            sides = [0 if s == ps.landlord else 1 for s in range(n)]
            top = ps.top
            left = [None if lim is None else lim - ps.bombs_played(s) for s, lim in enumerate(ps.bomb_limits)]
            win, winning = brute_root(ps.hands, rules, ps.current_seat, top[0] if top else None,
                                      top[1] if top else ps.current_seat, ps.passes, left, sides)
            before = ps.clone()
            sol = ddz.solve(ps, all_moves=True)
            assert ps == before  # the state is not touched
            assert sol.win is win and {str(m) for m in sol.moves} == winning, repr(ps)


# ---- positions whose answer follows from the rules --------------------------------------

@pytest.mark.parametrize("rules_name,hand,other", [
    ("classic", "33344456", "BR2222"),            # a plane with wings is one play: out on the lead
    ("classic", "3456789TJQKA", "BR2222AAKK"),   # a 12-card straight
    ("two_player", "444455", "BR"),               # TWOP: four with two singles of one rank (§2.0.4 K2)
    ("bengbu", "333444555", "BBRR"),              # BENGBU4 trio chain
    ("bengbu", "2222222", "BBRR"),                # a BOMB7 is one play
])
def test_one_play_hand_wins_on_the_lead(rules_name: str, hand: str, other: str) -> None:
    sol = ddz.solve([hand, other], RULES[rules_name], all_moves=True)
    assert sol.win is True and hand in {str(m) for m in sol.moves}
    assert [str(m) for _, m in sol.pv] == [hand] and sol.pv[0][0] == 0


@pytest.mark.parametrize("single", list("3456789TJQKA2"))
def test_rocket_and_one_card_wins(single: str) -> None:
    """§2.0.5: nothing beats the rocket, so its holder leads it and then goes out."""
    strong = "".join(c for c in "2222AAAKKKQQ" if c != single)
    sol = ddz.solve(["BR" + single, strong], RULES["classic"], all_moves=True)
    assert sol.win is True and "BR" in {str(m) for m in sol.moves}
    bomb = "JJJJ" if single != "J" else "TTTT"
    sol3 = ddz.solve(["BR" + single, strong, bomb], RULES["classic"], all_moves=True)
    assert sol3.win is True and "BR" in {str(m) for m in sol3.moves}


def test_answer_with_prev_and_pass() -> None:
    """Following: PASS is an action and is reported when it wins."""
    # Seat 0 holds 2 and 3 against a 4: beating with the 2 then leading the 3 wins; passing
    # lets seat 1 lead its last card.
    sol = ddz.solve(["23", "5"], RULES["classic"], prev="4", all_moves=True)
    assert sol.win is True and [str(m) for m in sol.moves] == ["2"]
    # Seat 0 cannot beat the rocket: PASS is its only action, and seat 1 then goes out.
    assert ddz.solve(["2", "3"], RULES["classic"], prev="BR").win is False


def test_bomb_limit_decides() -> None:
    """§2.3.6: with no bomb play left the 4-of-a-kind cannot be played whole."""
    rules = RULES["bengbu"]
    assert ddz.solve(["3333", "4"], rules, prev="2", bomb_limits=[None, None]).win is True
    sol = ddz.solve(["3333", "4"], rules, prev="2", bomb_limits=[0, None], all_moves=True)
    assert sol.win is False and sol.moves == []


def test_partners_cooperate() -> None:
    """The farmers' side wins when either farmer goes out: seat 1 passes (or plays low) so
    that seat 2 goes out; overtaking with the A lets the landlord out."""
    rules = RULES["classic"]
    sol = ddz.solve(["2", "A4", "5"], rules, to_move=1, prev="3", sides=[0, 1, 1], all_moves=True)
    assert sol.win is True and {str(m) for m in sol.moves} == {"PASS", "4"}
    lone = ddz.solve(["A3", "4", "5"], rules, to_move=0, sides=[0, 1, 1], all_moves=True)
    assert lone.win is True and {str(m) for m in lone.moves} == {"A"}


# ---- limits, tables, threads, errors ---------------------------------------------------------

HARD = ["RAQQJJT999844", "B22AAT886633"]


def test_node_limit_stops_and_reports_incomplete() -> None:
    sol = ddz.solve(HARD, RULES["classic"], node_limit=1000)
    assert not sol.complete and sol.win is None and sol.moves == [] and sol.nodes <= 1100


def test_time_limit_stops() -> None:
    sol = ddz.solve(HARD, RULES["classic"], time_limit=0.001)
    assert not sol.complete and sol.win is None


def test_small_table_still_exact() -> None:
    """A table far too small for the search only costs time: the answer is the same."""
    pos = ["RKKQJT9876633", "AAKQJT987"]
    big = ddz.solve(pos, RULES["classic"], all_moves=True)
    tiny = ddz.solve(pos, RULES["classic"], all_moves=True, table_mb=0.01)
    assert big.win is tiny.win is True
    assert {str(m) for m in big.moves} == {str(m) for m in tiny.moves}


def test_gil_released_threads_agree() -> None:
    import threading
    results = []
    pos = ["B2AK998553", "RQQJJT953"]

    def run():
        results.append(ddz.solve(pos, RULES["classic"], all_moves=True))

    threads = [threading.Thread(target=run) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert [r.win for r in results] == [True, True]
    assert {str(m) for m in results[0].moves} == {str(m) for m in results[1].moves}


@pytest.mark.parametrize("args,kwargs,err", [
    ((["33"],), {}, ddz.SolveError),                                 # one hand
    ((["3", "4", "5", "6", "7"],), {}, ddz.SolveError),               # five hands
    ((["3", ""],), {}, ddz.SolveError),                               # an empty hand
    ((["3333", "33"],), {}, ddz.CardError),                           # six 3s in one deck
    ((["3", "X"],), {}, ddz.CardError),                               # unknown card
    ((["3", "4"],), {"to_move": 2}, ddz.SolveError),
    ((["3", "4"],), {"prev": "34"}, ddz.MoveError),                   # no combination
    ((["3", "4"],), {"sides": [0, 0]}, ddz.SolveError),               # one side only
    ((["3", "4"],), {"sides": [0]}, ddz.SolveError),
    ((["3", "4"],), {"node_limit": 0}, ddz.SolveError),
    ((["3", "4"],), {"time_limit": -1.0}, ddz.SolveError),
    ((["3", "4"],), {"bomb_limits": [1]}, ddz.SolveError),
    ((["3", 4],), {}, ddz.SolveTypeError),
    (("34",), {}, ddz.SolveTypeError),
    ((["3", "4"],), {"to_move": "0"}, ddz.SolveTypeError),
    ((["3", "4"],), {"node_limit": 1.5}, ddz.SolveTypeError),
    ((["3", "4"],), {"all_moves": 1}, ddz.SolveTypeError),
])
def test_bad_input(args, kwargs, err) -> None:
    with pytest.raises(err):
        ddz.solve(*args, RULES["classic"], **kwargs)
    assert issubclass(err, ValueError)


def test_type_error_is_also_type_error() -> None:
    with pytest.raises(TypeError):
        ddz.solve(["3", 4], RULES["classic"])


def test_play_state_over_and_rules_given() -> None:
    ps = ddz.PlayState(["3", "44", "55"], 0, RULES["classic"])
    with pytest.raises(ddz.SolveError):
        ddz.solve(ps, RULES["classic"])
    ps.apply("3")
    with pytest.raises(ddz.SolveError, match="over"):
        ddz.solve(ps)


def test_keyword_call_as_the_issue_writes_it() -> None:
    sol = ddz.solve(hands=["KK5543", "225543"], rules=RULES["classic"], to_move=0, prev=None, sides=None,
                    all_moves=False, time_limit=None, node_limit=None)
    assert sol.win is True and sol.complete and len(sol.moves) == 1 and sol.nodes > 0 and sol.seconds >= 0
