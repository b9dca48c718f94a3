"""The idle default decides from the seat's own view: hidden cards never change it (E4, A30)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from engine import Discard, GameConfig, GameState, default_action, seat_view
from engine.cards import ALL_CARDS, BALANCED_BACK
from engine.views import draws_after_main, target_weights

from .helpers import Picker, build, playthrough
from .hidden import reshuffled


def _pair(below_top_back: int) -> tuple[GameState, str]:
    """Two positions seat 0 cannot tell apart; only the card under the top differs in back number."""
    p = Picker()
    hand = p.non_red(1, 4, 2)
    table = p.non_red(3)
    top = p.take(back=8, colour="G")
    seven = p.take(back=7, colour="B")
    ten = p.take(back=10, colour="B")
    filler = [p.take(back=9) for _ in range(3)]
    other = p.non_red(6, 6)
    below, elsewhere = (seven, ten) if below_top_back == 7 else (ten, seven)
    won = [c for c in ALL_CARDS if c not in p.used]  # every other card is won and announced
    state = build(hands=[hand, [*other, elsewhere]], table=table, deck=[*filler, below, top], piles=[won, []])
    return state, below


def test_the_card_under_the_top_does_not_decide_the_discard() -> None:
    # The old default read the next target from the card under the top; these two positions
    # look the same to seat 0 (only where a 7-back and a 10-back card lie differs).
    state_7, below_7 = _pair(7)
    state_10, below_10 = _pair(10)
    assert BALANCED_BACK[below_7] == 7 and BALANCED_BACK[below_10] == 10
    assert seat_view(state_7, 0) == seat_view(state_10, 0)
    assert default_action(state_7, 0) == default_action(state_10, 0)


def test_next_target_is_weighed_over_the_unseen_backs() -> None:
    state, _ = _pair(7)
    mine = seat_view(state, 0)
    assert draws_after_main(mine) == 1
    # The next target is the back of a card below the top: any hidden card but the top itself
    # (the other hand's cards might as well be in the deck). The top's own back (8) is public.
    hidden = [*state.hands[1], *state.deck[:-1]]
    weights = target_weights(mine, 1)
    expected: dict[int, int] = {}
    for card in hidden:
        expected[BALANCED_BACK[card]] = expected.get(BALANCED_BACK[card], 0) + 1
    assert weights == dict(sorted(expected.items()))
    assert target_weights(mine, 0) == {8: 1}
    assert target_weights(mine, mine.deck_size) == {7: 1}  # the deck runs out: the blue card


def test_with_random_backs_every_next_back_is_equally_likely() -> None:
    config = GameConfig(2, back_numbers="random")
    step = next(iter(playthrough(config, 3, 3)))
    mine = seat_view(step.before, step.before.current)
    assert target_weights(mine, 1) == {7: 1, 8: 1, 9: 1, 10: 1}


@settings(max_examples=25, deadline=None)
@given(
    st.integers(2, 6),
    st.sampled_from(["balanced", "random"]),
    st.booleans(),
    st.integers(0, 2**32 - 1),
    st.integers(0, 2**16),
)
def test_reshuffling_hidden_cards_never_changes_the_default(
    players: int, backs: str, face_down: bool, seed: int, salt: int
) -> None:
    config = GameConfig(players, target_score=25, back_numbers=backs, won_t_face_down=face_down)
    for k, step in enumerate(playthrough(config, seed, seed ^ salt)):
        state, seat = step.before, step.before.current
        mine = default_action(state, seat)
        assert isinstance(mine, Discard)
        other = reshuffled(state, seat, salt + k)
        assert default_action(other, seat) == mine
