"""Two-tap turns through inline mode: the board's 🎯 Play key opens a list of the player's legal
moves, only they see it, and picking one plays it.

The list is built from the player's own view of the game, with the engine's sum-by-value search:
every distinct sum (the best-scoring cards for each combination of values), TWEAKs first, then by
points taken; the Joker's ±1 sums; the Thief, Shifter and Bomb as cards to play first (their effect
depends on cards nobody has seen, so the sums they open are listed after they are played); then
the discards, fewest points given away first.

A pick posts the player's own message "via" the bot — the move's announcement, which costs the
group's budget nothing — and comes back as a `chosen_inline_result` (inline feedback on) and as
that message; whichever arrives first plays the move, with the same version check as a key. The
new board (the bot's one write for the turn) carries the report too, so the group's record stays
whole even if the pick was posted elsewhere.
"""

from __future__ import annotations

import unicodedata

from sqlmodel import Session

from engine import View, seat_view, sum_options
from engine.actions import T_ACTION_KIND, Discard, PlayJoker, PlayThief, Sum
from engine.cards import POINTS
from engine.game import t_actions
from engine.sums import realise

from ..errors import Outcome, Refusal
from ..inline_data import BoardHere, GameQuery, InfoLine, InfoTopic, PickedMoves, pick_link
from ..render import glance, move_list
from ..render import inline_table as inline_table_render
from ..render.cards import plain_name
from ..render.hand_sums import card_choices
from ..store import db, once, once_keys
from ..store import games as game_rows
from ..store.models import PLAYING
from ..store.once_keys import SeenKey
from . import drafts, inline_table, moves
from .call import InlineAnswer, InlineCall, Noted, PickCall, Result, inline_service, pick_service
from .context import GameContext, SeatInfo, load_game
from .env import Env
from .people import Person
from .tables import presenter_of

#: Telegram shows at most 50 results per answer; more come with `next_offset`.
PAGE = 50


def offers(ctx: GameContext, seat: SeatInfo) -> list[move_list.Offer]:
    """The player's legal moves, best first (see the module docstring): the table plays with
    sum hints on."""
    state = ctx.playing_state()
    view = seat_view(state, seat.seat)
    hand, table = list(view.hand or ()), list(view.table)
    sums: list[move_list.Offer] = []
    for delta in (0, *_jokers(ctx, seat)):
        for option in sum_options(hand, table, view.target + delta):
            h, positions = realise(hand, table, option)
            sums.append(_sum_offer(view, h, positions, delta))
    sums.sort(key=lambda o: (not o.tweak, -o.points, o.joker != 0))
    return sums + plays_and_discards(ctx, seat)


def _jokers(ctx: GameContext, seat: SeatInfo) -> list[int]:
    """The Joker's changes of the target the player may play now (none, +1 and −1)."""
    return [a.delta for a in t_actions(ctx.playing_state(), seat.seat) if isinstance(a, PlayJoker)]


def _sum_offer(view: View, hand_index: int, positions: tuple[int, ...], delta: int) -> move_list.Offer:
    hand, table = view.hand or (), view.table
    joker = (PlayJoker(delta),) if delta else ()
    tweak = len(positions) == len(table)
    return move_list.Offer(
        (*joker, Sum(hand_index, positions)),
        hand[hand_index],
        tuple(table[p] for p in positions),
        tweak,
        joker=delta,
        wins_t=tweak and view.tdeck_size > 0,
    )


def plays_and_discards(ctx: GameContext, seat: SeatInfo) -> list[move_list.Offer]:
    """The Thief, Shifter and Bomb to play first, then the discards, fewest points given away first."""
    state = ctx.playing_state()
    hand = list(seat_view(state, seat.seat).hand or ())
    held = t_actions(state, seat.seat)
    cards_first = [
        move_list.Offer(
            (a,),
            t_kind=T_ACTION_KIND[type(a)],
            victim=plain_name(ctx.seats[a.victim].name, 16) if isinstance(a, PlayThief) else None,
        )
        for a in held
        if not isinstance(a, PlayJoker)
    ]
    discards = [move_list.Offer((Discard(i),), hand_card=c) for i, c in enumerate(hand)]
    discards.sort(key=lambda o: POINTS[o.hand_card or ""])
    return cards_first + discards


def typed_values(query: str) -> list[int] | None:
    """The card values typed after the game the key filled in: every decimal digit, in any
    script (५ ३ १, ５３１), spaces and signs ignored. None when nothing was typed."""
    named = GameQuery.of(query)
    rest = named.typed if named is not None else query
    digits = [unicodedata.decimal(ch) for ch in rest if unicodedata.decimal(ch, None) is not None]
    return digits or None


def typed_sums(ctx: GameContext, seat: SeatInfo, values: list[int]) -> list[move_list.Offer] | str:
    """The legal sums made of exactly the typed values (one per choice of cards, the hand card
    among them), or why the values make no sum here (a line to show, which plays nothing).

    No ranking and no other sums: the player found the sum, the list only checks it."""
    state = ctx.playing_state()
    view = seat_view(state, seat.seat)
    lang = seat.language
    if any(not 1 <= v <= 6 for v in values):
        return move_list.not_card_values(lang)
    total = sum(values)
    deltas = [d for d in (0, *_jokers(ctx, seat)) if view.target + d == total]
    if len(values) < 2 or not deltas:
        return move_list.not_a_sum(lang, values, view.target)
    hand, table = list(view.hand or ()), list(view.table)
    found: list[move_list.Offer] = []
    for delta in deltas:
        for hand_index, positions in card_choices(hand, table, values):
            found.append(_sum_offer(view, hand_index, positions, delta))
    return found or move_list.cards_missing(lang, values)


def _game_for(session: Session, person: Person, query: str) -> GameContext | None:
    """The game named in the query (the 🎯 Play key types `g<id>`), else the person's newest
    running game."""
    named = GameQuery.of(query)
    if named is not None:
        return load_game(session, named.game_id) if named.game_id is not None else None
    newest = game_rows.newest_playing_for(session, person.id)
    return load_game(session, newest.id) if newest is not None and newest.id is not None else None


@inline_service
def answer(call: InlineCall) -> InlineAnswer:
    """The inline list for the person typing: their moves when it is their turn, typed in the
    game's own chat (a group, or the bot's chat for a practice table), else one line saying whose
    turn it is."""
    session, env, origin = call.session, call.env, call.origin
    query, offset = origin.query, origin.offset
    lang = call.language
    ctx = _game_for(session, origin.person, query)
    seat = ctx.seat_of(origin.person.id) if ctx is not None else None
    if ctx is None or seat is None or ctx.state is None or ctx.game.status != PLAYING:
        # (nothing to post: advice posted would be the person's own message, where they typed)
        return InlineAnswer.saying(inline_table_render.no_game(lang), Refusal.NO_GAME)
    presenter = presenter_of(ctx)
    if presenter.carried_by_posts and not inline_table.from_its_chat(ctx, query):
        # not from the 🎯 Play key of its board in its own chat: a move posted here splits the record
        return InlineAnswer.saying(inline_table_render.not_its_chat(lang), Outcome.NOT_ITS_CHAT, ctx.game_id)
    current = ctx.seats[ctx.state.current]
    if current.seat != seat.seat or origin.chat_type not in presenter.picked_in:
        turn = _info(InfoLine(InfoTopic.TURN, ctx.game_id), *move_list.not_your_turn(lang, current.name))
        return InlineAnswer([turn, board_result(lang, ctx)] if presenter.carried_by_posts else [turn])
    start = int(offset) if offset.isdigit() else 0
    if ctx.settings.hints:
        found = offers(ctx, seat)
    else:
        # The lines that play nothing show the live table and target: the group board may be a
        # [T!] card behind (one group message a turn).
        view = seat_view(ctx.playing_state(), seat.seat)
        thinking = move_list.thinking(ctx.language, seat.name)
        typed = typed_values(query)
        checked = typed_sums(ctx, seat, typed) if typed is not None else None
        if isinstance(checked, str):
            table = glance.description(lang, view, with_target=True)
            why = _info(InfoLine(InfoTopic.SUM, ctx.game_id), checked, thinking, table)
            return InlineAnswer([why])
        found = checked if checked is not None else plays_and_discards(ctx, seat)
        if typed is None and start == 0:
            table = glance.description(lang, view, with_target=False)
            how = InfoLine(InfoTopic.HOW, ctx.game_id)
            hint = [_info(how, move_list.how_to_type(lang, view), thinking, table)]
            return _page(env, ctx, seat, lang, found, start, hint)
    return _page(env, ctx, seat, lang, found, start)


def _page(
    env: Env,
    ctx: GameContext,
    seat: SeatInfo,
    lang: str,
    found: list[move_list.Offer],
    start: int,
    first: list[Result] | None = None,
) -> InlineAnswer:
    """One page of offers (Telegram takes 50 results an answer), `first` above them."""
    page = found[start : start + PAGE - len(first or [])]
    results = []
    # In a chat the bot is not in, the posted pick becomes the next board: with a key, so that
    # Telegram gives the bot its inline id.
    keys = presenter_of(ctx).pick_keys(lang, ctx.game_id)
    for offer in page:
        picked = PickedMoves(ctx.game_id, ctx.game.version, offer.moves)
        link = pick_link(env.bot_username, picked)
        results.append(
            Result(
                picked,
                move_list.title(lang, offer),
                move_list.description(lang, offer),
                move_list.announcement(ctx.language, seat.name, offer, link),
                keys,
            )
        )
    end = start + len(page)
    return InlineAnswer([*(first or []), *results], str(end) if end < len(found) else "")


def board_result(lang: str, ctx: GameContext) -> Result:
    """The line that posts the live board of a game played via inline mode here again: its post
    asks for a tap, which tells the chat (`inline_posts.show_board`)."""
    names = [s.name for s in ctx.seats]
    title, description = inline_table_render.board_title(lang, names)
    keys = inline_table_render.show_board_keys(lang, ctx.game_id)
    message = inline_table_render.board_posted(lang, names)
    return Result(BoardHere(ctx.game_id), title, description, message, keys)


def _info(line: InfoLine, title: str, message: str, description: str = "") -> Result:
    return Result(line, title, description, message)


@pick_service
def pick(call: PickCall) -> Noted:
    """Play a picked result; the outcome for the log ("ok", "stale", "forged", "ignored", ...).

    The same pick arrives twice when inline feedback is on (the chosen result and the posted
    message): the second finds its move already played by this very pick and does nothing. A
    pick from an old list of the move its player has meanwhile played another way (the keys, the
    panel) is stale like any other: its posted message stands in the chat after the report of
    that move, and would read as the move made twice without the note that it played nothing.
    That note is said once per player and turn (`_stale`), and only for a pick the bot saw posted
    in the game's own group; a pick no list of this game ever offered (a version the game has not
    reached, its turn but another player's, moves that do not decode) is forged and says nothing.
    """
    session, env = call.session, call.env
    person, picked, chat_id = call.origin.person, call.origin.picked, call.origin.chat_id
    if picked is None:
        return Noted(Outcome.IGNORED)
    game_id = picked.game_id
    ctx = load_game(session, game_id, lock=True)
    if ctx is None or (chat_id is not None and ctx.game.chat_id != chat_id):
        return Noted(Outcome.IGNORED, game_id)
    seat = ctx.seat_of(person.id)
    if seat is None or ctx.state is None:
        return Noted(Outcome.IGNORED, game_id)
    if not presenter_of(ctx).carried_by_posts:
        return _pick(call, ctx, seat, picked, None)
    # In a chat the bot is not in, the posted pick is the game's next message (`inline_table`);
    # one that plays nothing stands there too, and says so (its own edit: never a bot message).
    post = call.origin.inline_id
    if post is None:
        return Noted(Outcome.IGNORED, game_id)
    noted = _pick(call, ctx, seat, picked, post)
    if noted.outcome not in (Outcome.OK, Outcome.DUPLICATE):
        notice = move_list.stale_pick(ctx.language, seat.name)
        inline_table.correct_post(session, env, ctx, post, notice)
    return noted


def _pick(call: PickCall, ctx: GameContext, seat: SeatInfo, picked: PickedMoves, post: str | None) -> Noted:
    session, env = call.session, call.env
    game_id, version, codes = picked.game_id, picked.version, picked.codes
    if not 1 <= version <= ctx.game.version:
        return Noted(Outcome.FORGED, game_id)  # a version the game never had: no list offered it
    key = _pick_key(game_id, version, seat.seat, codes, post)
    playing = ctx.game.status == PLAYING
    assert ctx.state is not None
    if ctx.game.version != version or not playing or ctx.state.current != seat.seat:
        if once.known(session, key):
            return Noted(Outcome.DUPLICATE, game_id)  # this very pick was played: its second arrival
        if ctx.game.version == version and playing:
            return Noted(Outcome.FORGED, game_id)  # this turn's list is only its mover's
        return Noted(Refusal.STALE, game_id) if post is not None else _stale(call, ctx, seat)
    # The engine checks the whole pick before any of it is recorded (a forged list: a Joker, then
    # a sum it does not make), so a refused pick writes nothing (in a chat the bot is not in, it
    # stands there, and says so: `pick`).
    refused = moves.refused(ctx.playing_state(), seat.seat, codes)
    if refused is not None and post is not None:
        return Noted(Refusal.ILLEGAL, game_id)
    if refused is not None:
        raise refused
    with db.writes_held(session):  # the game's changes go out as one UPDATE at the end
        if post is not None:
            inline_table.on_post(session, env, ctx, post)
        _play(session, env, ctx, seat, codes)
        once.first_time(session, key, env.now)
    return Noted(Outcome.OK, game_id)


def _stale(call: PickCall, ctx: GameContext, seat: SeatInfo) -> Noted:
    """A pick from an old list: the group hears it played nothing at most once per player and
    turn of the game as it stands, however many old picks they post (each would spend the
    group's budget and delay the next board). Only the posted message, which names its chat,
    can say it: a chosen result does not tell where it was posted (another chat, where the
    group has nothing to correct), and the message comes too when it was this game's group."""
    if call.origin.chat_id is None:
        return Noted(Refusal.STALE, ctx.game_id)
    state = ctx.playing_state()
    turn = once_keys.stale_note(ctx.game_id, state.round, state.turn, seat.seat)
    if not once.first_time(call.session, turn, call.env.now):
        return Noted(Outcome.STALE_AGAIN, ctx.game_id)  # the note of this turn stands for it
    presenter_of(ctx).say(call.session, call.env, ctx, move_list.stale_pick(ctx.language, seat.name))
    return Noted(Refusal.STALE, ctx.game_id)


def _pick_key(game_id: int, version: int, seat: int, codes: tuple[str, ...], post: str | None) -> SeenKey:
    """A pick as `store.once` records it once played, so that only its own second arrival finds
    it: its turn (the game's version, the seat) and its moves, not another pick of the turn. In a
    chat the bot is not in, the message it posted (`post`): the same move posted again from the
    list still open in the person's app is a message of its own, which played nothing and must
    say so, or the chat would read the move twice."""
    return once_keys.post(post) if post is not None else once_keys.pick(game_id, version, seat, codes)


def _play(session: Session, env: Env, ctx: GameContext, seat: SeatInfo, codes: tuple[str, ...]) -> None:
    """Play the pick's moves (a Joker, then its sum). The player's own message announces it; the
    record reports it on the next board, or, for a [T!] card alone, with the rest of the turn (in
    a chat the bot is not in, where the post is the next board, at once)."""
    outcomes: list[moves.MoveOutcome] = []
    result: moves.PlayResult | None = None
    for code in codes:
        result = moves.play(session, env, ctx, seat, code)
        outcomes.extend(result.outcomes)
        ctx = result.ctx
        seat = ctx.seats[seat.seat]
    if result is None:
        return
    result.outcomes = outcomes
    drafts.clear(session, ctx.game_id)
    presenter_of(result.ctx).report_pick(session, env, result)
