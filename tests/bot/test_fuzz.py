"""Fuzz: many groups, many users, random taps and commands, the real bot over the fake Bot API.

Several groups (a supergroup, a basic group that becomes a supergroup mid-run, a forum with a game
in each of two topics, a group the bot is removed from and added back to…), each with a few users,
some of whom opened a private chat with the bot. Every step is one of:

* the player to move plays a turn by tapping the keys shown to them (group board or private
  panel; a computer-like choice, so games really progress), sometimes giving up half-way, and
  sometimes first opens their private panel with the board's "📱 Panel" key;
* lobby life: /newgame, joins, a low goal and the live pace in Settings, a computer player, Start;
* a random visible key of a random visible bot message, tapped by someone who can see it;
* forged callback data, keys of stale messages (from their edit history), taps by non-players;
* random commands, with junk arguments or addressed to other bots;
* the clock moves and the sweep runs (reminders, deadlines, idle defaults, lobby expiry);
* the group changes: migration, bot removed and added back, a member leaves, a user blocks the bot,
  an admin deletes a board.

After every step: no unhandled exception (the client re-raises), every callback query answered
exactly once, no Telegram error a correct bot would cause (bad HTML, long text, bad keys, unknown
topics, double answers), every forum message in its topic, at most one active game per topic, and
every stored game state passes the engine's invariant checks. At the end some games reached the
final standings. Seeded: set TWEAK_FUZZ_SEED / TWEAK_FUZZ_STEPS to explore further.
"""

from __future__ import annotations

import os
import random
import time
from dataclasses import dataclass, field
from datetime import timedelta

from sqlalchemy import select as sa_select
from sqlmodel import Session, col, select

from engine import check_invariants, t_actions
from engine.actions import Discard, Sum, encode, t_kind
from engine.ai import greedy_action
from tests.bot.conftest import BotRig
from tests.bot.helpers import BOT, board_id, lobby_id, panel_id, state_of
from tests.fakes.telegram import ApiCall, FakeChat, FakeTelegram, FakeUser, StoredMessage
from tgbot import callbacks as cb
from tgbot.game_settings import GoalStep
from tgbot.pacing import PaceName
from tgbot.store.models import ACTIVE_STATUSES, Game, GamePlayer

SEED = int(os.environ.get("TWEAK_FUZZ_SEED", "20260101"))
STEPS = int(os.environ.get("TWEAK_FUZZ_STEPS", "1000"))

#: Telegram errors a correct bot meets in real life (the world changed under it).
EXPECTED_ERRORS = (
    "message is not modified",
    "message to edit not found",
    "message to be replied not found",
    "bot was blocked by the user",
    "bot was kicked",
    "bot is not a member",
    "bot can't initiate conversation",
    "group chat was upgraded to a supergroup chat",
)

COMMANDS: list[tuple[str, int]] = [
    ("/board", 8),
    ("/newgame", 6),
    ("/help", 3),
    ("/rules", 3),
    ("/language", 2),
    ("/settings", 3),
    ("/pause", 2),
    ("/resume", 3),
    ("/back", 2),
    ("/quiet 23-08 +2", 1),
    ("/quiet off", 1),
    ("/quiet blah", 1),
    ("/start junk", 2),
    ("/start g1", 1),
    ("/foo", 2),
    ("/leave", 1),
    ("/cancel", 1),
    ("/board@other_bot", 1),
    ("/newgame extra words", 1),
]

NAMES = [
    "Ana",
    "Ben",
    "<b>Eve</b> & co",
    "Dmitri Alexandrovich Konstantinopolsky-Featherstonehaugh the Third",
    "さくら",
    "José 🃏",
    "Li",
    "Mía",
    "Nour",
    "Olu",
    "Pia",
    "Quinn",
    "Rae",
    "Sam",
]


@dataclass
class Table:
    """A place where one game at a time is played: a group, or one topic of a forum."""

    name: str
    chat: FakeChat
    thread: int | None
    members: list[FakeUser]
    removed: bool = False  # the bot is out of this group


@dataclass
class World:
    rig: BotRig
    rng: random.Random
    users: list[FakeUser]
    tables: list[Table]
    dm: set[int]  # users with an open, unblocked private chat
    blocked: set[int] = field(default_factory=set)
    migrated: bool = False
    removed_at: int | None = None
    taps: int = 0
    forged: int = 0
    panel_turns: int = 0  # turns composed on a private panel
    checked_calls: int = 0
    seen_states: dict[int, int] = field(default_factory=dict)
    finished: set[int] = field(default_factory=set)

    @property
    def fake(self) -> FakeTelegram:
        return self.rig.fake

    def games(self) -> list[Game]:
        with Session(self.rig.deps.db.engine) as session:
            return list(session.exec(select(Game).order_by(col(Game.id))).all())

    def versions(self) -> list[tuple[int, int, str, int, int | None]]:
        """(id, version, status, chat, topic) of every game: cheap, for the checks after each step."""
        query = sa_select(
            col(Game.id), col(Game.version), col(Game.status), col(Game.chat_id), col(Game.thread_id)
        ).order_by(col(Game.id))
        with Session(self.rig.deps.db.engine) as session:
            rows = session.execute(query).all()
        return [(i, v, s, c, t) for i, v, s, c, t in rows if i is not None]

    def game(self, game_id: int) -> Game:
        with Session(self.rig.deps.db.engine) as session:
            game = session.get(Game, game_id)
            assert game is not None
            return game

    def active_game(self, table: Table) -> Game | None:
        with Session(self.rig.deps.db.engine) as session:
            query = select(Game).where(
                Game.chat_id == table.chat.id,
                col(Game.status).in_(ACTIVE_STATUSES),
            )
            query = (
                query.where(Game.thread_id == table.thread)
                if table.thread is not None
                else query.where(col(Game.thread_id).is_(None))
            )
            return session.exec(query.order_by(col(Game.id).desc())).first()

    def players(self, game_id: int) -> list[GamePlayer]:
        with Session(self.rig.deps.db.engine) as session:
            query = select(GamePlayer).where(GamePlayer.game_id == game_id).order_by(col(GamePlayer.seat))
            return list(session.exec(query).all())


def keys(message: StoredMessage) -> list[tuple[str, str]]:
    return [(t, d) for t, d in message.buttons if d is not None and not d.startswith("https://")]


# --- acting ------------------------------------------------------------------------------------------


async def tap(world: World, user: FakeUser, message: StoredMessage, data: str | None) -> str | None:
    """One tap; checks that the query was answered exactly once. Returns the popup text."""
    fake = world.fake
    views = [m for m in fake.ephemeral_messages(message.chat_id, user) if m.from_bot and m.delivered]
    if in_place := [m for m in views if m.replaces is message]:
        message = in_place[-1]  # the person sees their own view there (🃏 My cards): the tap lands on it
    start = len(fake.calls)
    answer = await world.rig.tg.tap_data(user, message, data)
    answers = [
        c
        for c in fake.calls[start:]
        if c.method == "answerCallbackQuery" and str(c.params.get("callback_query_id")) == answer.query_id
    ]
    assert len(answers) == 1, f"query {data!r} answered {len(answers)} times"
    world.taps += 1
    return answer.text


async def command(world: World, table: Table | None, user: FakeUser, text: str) -> None:
    if table is None:
        await world.rig.tg.send(world.fake.private(user), user, text)
        return
    await world.rig.tg.send(table.chat, user, text, thread_id=table.thread)


def visible_messages(world: World, user: FakeUser) -> list[StoredMessage]:
    """Bot messages with keys that this user can see: in their groups and their private chat."""
    chats = {t.chat.id for t in world.tables if user in t.members and not t.removed}
    if user.id in world.dm:
        chats.add(user.id)
    views = [m for chat_id in chats for m in world.fake.ephemeral_messages(chat_id, user) if m.from_bot]
    return [m for chat_id in chats for m in world.fake.messages(chat_id) if keys(m)] + [
        m for m in views if m.delivered and keys(m)
    ]


def live_board(world: World, game: Game) -> StoredMessage | None:
    found = board_id(world.rig, game)
    return world.fake.message(game.chat_id, found) if found is not None else None


def surface_for(world: World, game: Game, user: FakeUser, seat: int) -> StoredMessage | None:
    """Where the player to move plays: their private panel when it has keys, else the group board."""
    assert game.id is not None
    if user.id in world.dm and world.rng.random() < 0.7:
        found = panel_id(world.rig, game.id, seat, user.id)
        if found is not None:
            panel = world.fake.message(user.id, found)
            if not panel.deleted and keys(panel):
                return panel
    board = live_board(world, game)
    return None if board is None or board.deleted or not keys(board) else board


async def tap_key(world: World, user: FakeUser, surface: StoredMessage, data: str) -> bool:
    """Tap the key with this callback data if the surface shows it."""
    if any(d == data for _t, d in keys(surface)):
        await tap(world, user, surface, data)
        return True
    return False


async def play_turn(world: World, table: Table) -> None:
    """The player to move plays a sensible action with the keys they are shown."""
    rng = world.rng
    game = world.active_game(table)
    if game is None or game.status != "playing" or game.id is None:
        return
    state = state_of(game)
    if state.is_over:
        return
    players = world.players(game.id)
    seat = players[state.current]
    user = next((u for u in world.users if u.id == seat.user_id), None)
    if user is None or seat.left or user not in table.members:
        return
    gid, version = game.id, game.version
    if user.id in world.dm and rng.random() < 0.1:
        # the board's "📱 Panel" key: a deep link that sends /start g<game> in private
        await command(world, None, user, f"/start g{gid}")
    surface = surface_for(world, game, user, state.current)
    if surface is None:
        await command(world, table, user, f"/board{BOT}")
        return
    if surface.chat_id == user.id:
        world.panel_turns += 1
    options = t_actions(state, state.current) if state.t_played is None else []
    if options and rng.random() < 0.3:
        # a [T!] key chooses (again: the next choice), Claim plays it; sometimes the player
        # taps past the last choice (none chosen) and claims with nothing
        code = encode(rng.choice(options))
        found = t_kind(code)
        assert found is not None
        kind = cb.TChoiceKind.of(found)
        chose = await tap_key(world, user, surface, cb.TChoice(gid, version, kind).data)
        if not chose:
            chose = await tap_key(world, user, surface, cb.TChoice(gid, version, cb.TChoiceKind.ANY).data)
            kind = cb.TChoiceKind.ANY
        if chose:
            for _ in range(rng.randrange(3)):
                await tap_key(world, user, surface, cb.TChoice(gid, version, kind).data)
            await tap_key(world, user, surface, cb.Claim(gid, version).data)
        return
    main = greedy_action(state, state.current)
    if rng.random() < 0.1 or not isinstance(main, (Sum, Discard)):
        main = Discard(rng.randrange(len(state.hands[state.current])))
    hand = main.hand
    if not await tap_key(world, user, surface, cb.PickHand(gid, version, hand).data):
        return
    if rng.random() < 0.08:
        return  # gives up half-way: the draft stays on the server (and on the surface)
    if isinstance(main, Sum):
        for position in main.table:
            if not await tap_key(world, user, surface, cb.PickTable(gid, version, position).data):
                return
    final = cb.Claim(gid, version).data if isinstance(main, Sum) else cb.Discard(gid, version).data
    await tap_key(world, user, surface, final)


async def lobby_life(world: World, table: Table) -> None:
    """Open a lobby, fill it, make the game short and live, start it."""
    rng, fake = world.rng, world.fake
    game = world.active_game(table)
    members = [u for u in table.members]
    if not members:
        return
    if game is None:
        await command(world, table, rng.choice(members), f"/newgame{BOT}")
        return
    shown = lobby_id(world.rig, game) if game.id is not None else None
    if game.status != "lobby" or game.id is None or shown is None:
        return
    lobby = fake.message(table.chat.id, shown)
    if lobby.deleted or not keys(lobby):
        await command(world, table, rng.choice(members), f"/board{BOT}")
        return
    gid = game.id
    seated = {p.user_id for p in world.players(gid)}
    for user in members:
        if user.id not in seated and rng.random() < 0.8:
            await tap_key(world, user, lobby, cb.Join(gid).data) or await tap_key(
                world, user, lobby, cb.CloseSettings(gid).data
            )
    creator = next((u for u in world.users if u.id == game.creator_id), None)
    if creator is None or creator not in members:
        return
    await tap_key(world, creator, lobby, cb.OpenSettings(gid).data)
    await tap_key(world, creator, lobby, cb.SetPace(gid, PaceName.LIVE).data)
    for _ in range(rng.randint(4, 6)):
        await tap_key(world, creator, lobby, cb.SetGoal(gid, GoalStep.DOWN).data)
    if rng.random() < 0.4:  # from the settings screen, which stays open
        level = rng.choice(("easy", "normal", "hard"))
        await tap_key(world, creator, lobby, cb.AddComputer(gid, level, stay=True).data)
    await tap_key(world, creator, lobby, cb.CloseSettings(gid).data)
    if len(world.players(gid)) >= 2 or rng.random() < 0.2:
        await tap_key(world, creator, lobby, cb.Start(gid).data)


async def random_key(world: World) -> None:
    user = world.rng.choice(world.users)
    messages = visible_messages(world, user)
    if messages:
        message = world.rng.choice(messages[-12:] if world.rng.random() < 0.8 else messages)
        _text, data = world.rng.choice(keys(message))
        await tap(world, user, message, data)


def forge(world: World, message: StoredMessage) -> str | None:
    rng = world.rng
    real = [d for _t, d in keys(message)]
    game_ids = [g.id for g in world.games() if g.id is not None] or [1]
    choice = rng.randrange(7)
    if choice == 0 and real:  # a real key with its numbers changed
        data = rng.choice(real)
        return "".join(str(rng.randrange(10)) if ch.isdigit() and rng.random() < 0.3 else ch for ch in data)
    if choice == 1:
        return rng.choice(["", "x", "m:", "lj:", "c:1:1:9:ffffffffffffffffff", "r:x", "lg:zz", "é", "A" * 64])
    if choice == 2:
        gid = rng.choice(game_ids)
        v = rng.randrange(1, 40)
        return rng.choice(
            [
                f"lj:{gid}",
                f"ls:{gid}",
                f"lc:{gid}",
                f"ln:{gid}:t:-",
                f"la:{gid}:hard",
                f"la:{gid}:easy:s",
                f"h:{gid}",
                f"k:{gid}:{v}:h:{rng.randrange(5)}",
                f"k:{gid}:{v}:t:{rng.randrange(64)}",
                f"k:{gid}:{v}:{rng.choice('cdxb')}",
                f"p:{gid}:{v}:{rng.choice(['T0', 'T3', 'J+', 'J-', 'F', 'B'])}",
                f"t:{gid}:{v}:{rng.choice(['any', 'thief', 'joker', 'shifter', 'bomb'])}",
                f"dl:{gid}",
                # the old formats (a move in the key, the whole draft in the key): refused
                f"m:{gid}:{v}:D0",
                f"m:{gid}:{v}:S{rng.randrange(4)}.{rng.randrange(1, 255):x}",
                f"c:{gid}:{v}:{rng.randrange(4)}:{rng.randrange(1, 4096):x}",
            ]
        )
    if choice == 3:
        return f"r:{rng.randrange(100)}"
    if choice == 4:
        return rng.choice(["lg:en", "lg:es", "lg:ja"])
    if choice == 5:
        return None  # a game's short name instead of data
    return "".join(
        rng.choice("abcdefghijklmnopqrstuvwxyz0123456789:+-.") for _ in range(rng.randrange(1, 70))
    )


async def forged_tap(world: World) -> None:
    user = world.rng.choice(world.users)
    messages = visible_messages(world, user)
    if messages:
        message = world.rng.choice(messages)
        world.forged += 1
        await tap(world, user, message, forge(world, message))


async def stale_tap(world: World) -> None:
    """A key from an earlier version of a message (the user's app had not refreshed yet)."""
    user = world.rng.choice(world.users)
    candidates = [
        m for m in visible_messages(world, user) + world.fake.messages(user.id) if m.history and not m.deleted
    ]
    if not candidates:
        return
    message = world.rng.choice(candidates)
    revision = world.rng.choice(message.history)
    rows = (revision.reply_markup or {}).get("inline_keyboard") or []
    old = [b["callback_data"] for r in rows for b in r if "callback_data" in b]
    if old:
        await tap(world, user, message, world.rng.choice(old))


async def non_player_tap(world: World) -> None:
    table = world.rng.choice(world.tables)
    game = world.active_game(table)
    board = live_board(world, game) if game is not None else None
    if table.removed or game is None or game.id is None or board is None:
        return
    seated = {p.user_id for p in world.players(game.id)}
    outsiders = [u for u in table.members if u.id not in seated] or [
        u for u in world.users if u.id not in seated
    ]
    if outsiders and keys(board) and not board.deleted:
        await tap(world, world.rng.choice(outsiders), board, world.rng.choice(keys(board))[1])


async def random_command(world: World) -> None:
    rng = world.rng
    text = rng.choices([c for c, _w in COMMANDS], weights=[w for _c, w in COMMANDS])[0]
    places = [t for t in world.tables if t.members and not t.removed]
    if rng.random() < 0.2 or not places:
        user = rng.choice([u for u in world.users if u.id not in world.blocked])
        world.dm.add(user.id)
        await command(world, None, user, text)
        return
    table = rng.choice(places)
    word, _, rest = text.partition(" ")
    if "@" not in word and rng.random() < 0.8:
        word += BOT
    await command(world, table, rng.choice(table.members), f"{word} {rest}".strip())


async def sweep(world: World) -> None:
    world.rig.clock.advance(timedelta(seconds=world.rng.choice((20, 50, 70, 120, 200, 1200))))
    await world.rig.tg.run_job("sweep")


async def group_change(world: World, step: int) -> None:
    rng, fake, tg = world.rng, world.fake, world.rig.tg
    choice = rng.randrange(5)
    if choice == 0 and not world.migrated:
        table = next(t for t in world.tables if t.chat.type == "group")
        old_id, new_id = table.chat.id, -1_005_000_000_000 - step
        world.migrated = True
        await tg.process(fake.migrate_update(old_id, new_id, by=table.members[0]))
        table.chat = fake.chat(new_id)
        await tg.process(fake.migrate_from_update(old_id, new_id, by=table.members[0]))
    elif choice == 1:
        table = next(t for t in world.tables if t.name == "delta")
        if not table.removed:
            await tg.process(fake.my_chat_member_update(table.chat, table.members[0], "kicked"))
            table.removed = True
            world.removed_at = step
        elif world.removed_at is not None and step - world.removed_at > 20:
            await tg.process(fake.my_chat_member_update(table.chat, table.members[0], "member"))
            table.removed = False
            await command(world, table, rng.choice(table.members), f"/board{BOT}")
    elif choice == 2:
        crowded = [t for t in world.tables if len(t.members) > 2 and not t.removed]
        if crowded:
            table = rng.choice(crowded)
            leaver = rng.choice(table.members)
            for t in world.tables:
                if t.chat.id == table.chat.id and leaver in t.members:
                    t.members.remove(leaver)
            await tg.process(fake.left_member_update(table.chat, leaver))
    elif choice == 3:
        candidates = [u for u in world.users if u.id in world.dm]
        if candidates and len(world.blocked) < 2:
            user = rng.choice(candidates)
            world.dm.discard(user.id)
            world.blocked.add(user.id)
            await tg.process(
                fake.my_chat_member_update(fake.private(user), user, "kicked", old_status="member")
            )
    else:
        boards = [
            b for g in world.games() if g.status == "playing" and (b := live_board(world, g)) is not None
        ]
        if boards:
            rng.choice(boards).deleted = True  # an admin deleted it


# --- checking ----------------------------------------------------------------------------------------


def check_world(world: World) -> None:
    fake = world.fake
    new_calls: list[ApiCall] = fake.calls[world.checked_calls :]
    world.checked_calls = len(fake.calls)
    for call in new_calls:
        if not call.ok:
            error = call.error or ""
            assert any(e in error for e in EXPECTED_ERRORS), f"{call.method} failed: {error} {call.params}"
        if call.method == "sendMessage" and call.ok:
            forum = next(t.chat for t in world.tables if t.chat.is_forum)
            if call.chat_id == forum.id:
                assert call.params.get("message_thread_id") in (11, 12), call.params
    active: set[tuple[int, int | None]] = set()
    for game_id, version, status, chat_id, thread_id in world.versions():
        if status in ACTIVE_STATUSES:
            place = (chat_id, thread_id)
            assert place not in active, f"two active games in {place}"
            active.add(place)
        if world.seen_states.get(game_id) == version:
            continue
        world.seen_states[game_id] = version
        game = world.game(game_id)
        if game.state is None:
            assert game.status in ("lobby", "cancelled", "expired"), game.status
            continue
        state = state_of(game)
        problems = check_invariants(state)
        assert not problems, (game.id, problems)
        assert state.players == len(world.players(game_id))
        if game.status == "playing":
            assert not state.is_over and game.current_seat == state.current, game_id
        if game.status == "finished":
            assert state.is_over
            world.finished.add(game_id)


# --- the test ----------------------------------------------------------------------------------------


def build_world(rig: BotRig) -> World:
    fake = rig.fake
    users = [fake.user(i + 1, name, language_code="en") for i, name in enumerate(NAMES)]
    u = users
    forum = fake.forum("Forum", topics={11: "Topic one", 12: "Topic two"})
    tables = [
        Table("alpha", fake.group("Alpha"), None, [u[0], u[1]]),
        Table("beta", fake.group("Beta", kind="group"), None, [u[2], u[3], u[4]]),
        Table("forum-11", forum, 11, [u[5], u[6]]),
        Table("forum-12", forum, 12, [u[7], u[8], u[9]]),
        Table("delta", fake.group("Delta"), None, [u[10], u[11], u[3]]),
        Table("echo", fake.group("Echo " * 20), None, [u[12], u[13], u[0], u[2]]),
    ]
    return World(rig, random.Random(SEED), users, tables, dm=set())


async def test_fuzz_many_groups_random_taps_and_commands(rig: BotRig) -> None:
    world = build_world(rig)
    rng = world.rng
    for user in world.users[::2]:
        world.dm.add(user.id)
        await command(world, None, user, "/start")
    started = time.perf_counter()
    kinds = ["play", "lobby", "key", "forged", "stale", "outsider", "command", "sweep", "change"]
    weights = [46, 12, 9, 5, 4, 4, 10, 6, 2]
    counts: dict[str, int] = dict.fromkeys(kinds, 0)
    for step in range(STEPS):
        kind = rng.choices(kinds, weights=weights)[0]
        counts[kind] += 1
        tables = [t for t in world.tables if not t.removed and t.members]
        if kind == "play":
            await play_turn(world, rng.choice(tables))
        elif kind == "lobby":
            await lobby_life(world, rng.choice(tables))
        elif kind == "key":
            await random_key(world)
        elif kind == "forged":
            await forged_tap(world)
        elif kind == "stale":
            await stale_tap(world)
        elif kind == "outsider":
            await non_player_tap(world)
        elif kind == "command":
            await random_command(world)
        elif kind == "sweep":
            await sweep(world)
        else:
            await group_change(world, step)
        check_world(world)
    elapsed = time.perf_counter() - started
    games = world.games()
    statuses = [g.status for g in games]
    summary = (
        f"{counts} taps={world.taps} panel turns={world.panel_turns} games={len(games)} {statuses} "
        f"in {elapsed:.1f}s"
    )
    if os.environ.get("TWEAK_FUZZ_VERBOSE"):
        print(summary)
    assert len(world.finished) >= 2, summary
    assert world.taps > STEPS // 2 and world.forged > STEPS // 50 and world.panel_turns > 0, summary
    # Final standings, in whatever language each group plays: they give the winner a gold medal.
    standings = [m for t in world.tables for m in world.fake.messages(t.chat.id) if "🥇" in m.content]
    assert standings, summary
    assert not world.rig.tg.errors
