"""Long texts: the rules (one page per message), /help and the private /start welcome.

Every text is marked with ``M_`` for extraction and translated when sent, with ``_(lang, text)``
(``_(lang, WELCOME_TEXT, bot_name=...)`` for the welcome). The bot sends them with parse_mode HTML:
use only <b> and <i>, and write &amp; &lt; &gt; for the three reserved characters.

Limits, checked in every language by tests/test_texts.py: at most 1,500 characters per rules page and
3,000 for the help (well inside one message, 4,096). Translations must keep the HTML tags and the
{placeholders} unchanged.

The catalogs are refreshed with ``scripts/i18n.sh`` (or ``make i18n``), which runs:

    pybabel extract -F babel.cfg -o tgbot/locales/messages.pot --no-location --omit-header .
    pybabel update -i tgbot/locales/messages.pot -d tgbot/locales --ignore-pot-creation-date --ignore-obsolete
"""

from __future__ import annotations

from .i18n import M_

RULES_PAGES: tuple[str, ...] = (
    # 1. Goal and components
    M_(
        "<b>🎯 TWEAK! – the goal and the cards</b>\n"
        "\n"
        "On your turn, add up cards to hit the <b>target sum</b> exactly. Win valuable cards and the "
        "special [T!] cards; after several rounds the best score wins.\n"
        "\n"
        "<b>Number cards</b>: 54 of them in 6 colours: 🟥 red, 🟧 orange, 🟨 yellow, 🟩 green, "
        "🟦 blue and 🟪 purple. Each colour has the values 1, 1, 2, 2, 3, 3, 4, 5 and 6.\n"
        "\n"
        "<b>Black backs</b>: the back of every number card shows a number from 7 to 10. The back of the "
        "top card of the deck is the target of the moment.\n"
        "\n"
        "<b>Blue 7 card</b>: it lies under the deck. Once the deck is used up it reminds everyone that "
        "the target is now 7. Nobody ever plays, takes or scores it.\n"
        "\n"
        "<b>[T!] cards</b>: action cards that change the rules for a moment. Classic deck: 4 Thief, "
        "3 Joker, 2 Shifter and 1 Bomb (10 cards). Extended deck: 5 Thief, 5 Joker, 5 Shifter and "
        "2 Bomb (17 cards)."
    ),
    # 2. Set-up
    M_(
        "<b>🃏 Set-up</b>\n"
        "\n"
        "Fewer players play with fewer colours. Red is always in, because red cards score more:\n"
        "• 2–3 players: 🟥 + 3 more colours (36 cards)\n"
        "• 4 players: 🟥 + 4 more colours (45 cards)\n"
        "• 5–6 players: all 6 colours (54 cards)\n"
        "\n"
        "The [T!] cards are shuffled into their own face-down pile. The number cards are shuffled, "
        "each player gets <b>3</b> (your hand is secret) and <b>2</b> go face up on the table. The "
        "rest form the deck, black backs up, on top of the blue 7 card.\n"
        "\n"
        "The bot deals for you. The first turn goes to the player after the dealer, then turns pass "
        "round in seat order. Each new round, the next player deals."
    ),
    # 3. The turn
    M_(
        "<b>▶️ Your turn</b>\n"
        "\n"
        "<b>Target</b>: the number on the back of the top deck card, or 7 once the deck is empty.\n"
        "\n"
        "Then do exactly one of these:\n"
        "<b>➕ SUM</b>: pick <b>one</b> card from your hand and one or more table cards so that their "
        "values add up to <b>exactly</b> the target. You win all these cards; they go face down onto "
        "your score pile.\n"
        "<b>🗑 DISCARD</b>: put one card from your hand face up on the table.\n"
        "\n"
        "<i>Example: the target is 8, you hold a 2 and the table shows 1, 4 and 5. Your 2 with the "
        "1 and the 5 makes 8.</i>\n"
        "\n"
        "You may discard even when a sum is possible, but that chance is gone: nobody else can take it.\n"
        "\n"
        "At the end of your turn, draw from the deck until you hold 3 cards again. Each card drawn "
        "uncovers a new target.\n"
        "\n"
        "<b>Say your sum</b>: at a real table you say it aloud so the others can check it. Here the "
        "bot checks every sum, and the table chooses how much it helps: with <b>sum hints off</b> "
        "(the usual way) you find the sum yourself; with <b>sum hints on</b> (for learning) 🎯 Play "
        "lists every sum you can make."
    ),
    # 4. TWEAK! and how to use [T!] cards
    M_(
        "<b>⭐ TWEAK!</b>\n"
        "\n"
        "A sum that takes <b>every</b> card on the table is a TWEAK! You win the top card of the [T!] "
        "pile (if any are left) and keep it in front of you.\n"
        "\n"
        "The table is then empty, so after you refill your hand, <b>2 new cards</b> are dealt from "
        "the deck onto the table (as many as the deck still has).\n"
        "\n"
        "<b>Playing a [T!] card</b>\n"
        "• at most one per turn, before your sum or discard;\n"
        "• never in the turn you won it;\n"
        "• only while you still hold at least one hand card.\n"
        "\n"
        "Any card a [T!] moves lands face up on the table and can go straight into your sum. You may "
        "also play a [T!] and then discard. A used [T!] card still scores 2 points at the end of the "
        "round."
    ),
    # 5. The four [T!] cards
    M_(
        "<b>🎴 The four [T!] cards</b>\n"
        "\n"
        "<b>Thief</b>: choose an opponent. A random card from their hand goes onto the table.\n"
        "\n"
        "<b>Joker</b>: the target goes up by 1 or down by 1, as you choose, for this turn only.\n"
        "\n"
        "<b>Shifter</b>: the top card of the deck goes onto the table as a playable card, and the card "
        "under it sets the new target (7 if the deck is now empty). It cannot be played when the deck "
        "is empty.\n"
        "\n"
        "<b>Bomb</b>: every opponent who still has cards drops a random card from their hand onto "
        "the table.\n"
        "\n"
        "Thief and Bomb need at least one opponent with a card in hand. Their victims play their next "
        "turn with one card fewer, because they only refill at the end of that turn."
    ),
    # 6. Empty deck, empty hands, end of the round
    M_(
        "<b>🔚 Empty deck and end of the round</b>\n"
        "\n"
        "When the deck runs out, the blue 7 card is uncovered:\n"
        "• the target stays at <b>7</b> (a Joker still makes it 6 or 8);\n"
        "• nobody draws any more: no hand refills, no new table cards;\n"
        "• the Shifter can no longer be played.\n"
        "\n"
        "<b>Empty hand</b>: if a Thief or a Bomb took your last card, you lose your next turn and only "
        "refill your hand to 3 cards. If the deck is empty too, you sit out for the rest of the round. "
        "Your unused [T!] cards can no longer be played, but they still score.\n"
        "\n"
        "<b>End of the round</b>: the round is over when the deck is empty and nobody has a card left "
        "in hand. Cards still on the table score for nobody."
    ),
    # 7. Scoring and the end of the game
    M_(
        "<b>🏆 Scoring and winning</b>\n"
        "\n"
        "After each round, everyone counts the cards they won and their [T!] cards:\n"
        "• 🟥 red 5: <b>5</b> points\n"
        "• 5 of any other colour: <b>4</b> points\n"
        "• 🟥 any other red card: <b>3</b> points\n"
        "• any other number card: <b>1</b> point\n"
        "• each [T!] card won, used or not: <b>2</b> points\n"
        "\n"
        "Points add up from round to round. The game ends after the round in which someone reaches "
        "or passes the winning score for the number of players:\n"
        "• 2 players: <b>140</b>\n"
        "• 3 players: <b>120</b>\n"
        "• 4 players: <b>100</b>\n"
        "• 5 players: <b>80</b>\n"
        "• 6 players: <b>60</b>\n"
        "\n"
        "The highest total wins. Players tied for the top share the win."
    ),
)

#: The help's part on games in any chat (inline mode), said only when the bot has inline mode.
ANYWHERE_HELP = M_(
    "<b>In any chat</b>\n"
    "With a friend, or in a group I am not in: type @{bot} there and pick 🎴 New game here."
)

HELP_TEXT = M_(
    "<b>❓ Playing TWEAK! with the bot</b>\n"
    "\n"
    "<b>Start a game</b>\n"
    "Send /newgame in a group. Players tap <b>Join</b> or <b>Leave</b> on the lobby message. When 2 to "
    "6 players are in, the creator can adjust the <b>Settings</b> and tap <b>Start</b>.\n"
    "<b>🤖 Add computer</b> fills a seat with a computer player (Easy, Normal or Hard in "
    "<b>Settings</b>).\n"
    "\n"
    "<b>Practise alone</b>\n"
    "Send /newgame in our private chat: you against 1 to 5 computers, with your real cards on the "
    "keys.\n"
    "\n"
    "<b>Whose turn?</b>\n"
    "Each turn the bot posts the board and mentions the player to move. Tap <b>👀 My hand</b> to see "
    "your cards in a popup that only you can see.\n"
    "\n"
    "<b>Making your move</b>\n"
    "1. Pick your hand card. In the group it shows as hidden slots 1–3; the My hand popup tells you "
    "which slot is which card.\n"
    "2. Tap table cards to select or unselect them. The popup shows the running sum (the board "
    "stays as it is until your move is played).\n"
    "3. Tap <b>✅ Claim</b> to take the sum or <b>🗑 Discard</b> to put your hand card on the table. "
    "<b>↩️ Clear</b> starts the move over.\n"
    "A [T!] card first? Tap its key (🥷 Thief, 🃏 Joker, 🔀 Shifter, 💣 Bomb) to choose it, again for "
    "another choice (another player, −1), and <b>✅ Claim</b> plays it. A Joker is played with the sum "
    "you compose after choosing it, by the same Claim.\n"
    "<b>Sum hints</b> (a <b>Settings</b> choice before Start): off, you find the sum; tap 🎯 Play and "
    "type its values (5 3 1) to play it in two taps. On, 🎯 Play lists every sum, best first.\n"
    "\n"
    "<b>Your private panel</b>\n"
    "Tap <b>📱 Panel</b> on the board: your turns in that game then also come to our private chat, "
    "with your real cards on the keys. Composing a move on the group board again turns it off.\n"
    "\n"
    "<b>Playing</b>\n"
    "/newgame – open a lobby\n"
    "/board – post the board again\n"
    "/leave – hand your seat to the autopilot\n"
    "/cancel – cancel the game (creator or admin)\n"
    "/rules – the rules of TWEAK!\n"
    "/language – choose the language\n"
    "/help – this message\n"
    "\n"
    "<b>The table's pace</b>\n"
    "The pace, chosen in <b>Settings</b>, sets when the player to move gets a reminder and when the "
    "bot plays for them at the deadline; after two missed turns in a row a player is away, and "
    "their turns are played at once until they come back.\n"
    "/settings – see or change the pace\n"
    "/pause, /resume – stop the clocks, then go on (creator or admin)\n"
    "/back – I'm back: my turns wait for me again\n"
    "/quiet 23-08 +7 – quiet hours for reminders (creator or admin)\n"
    "\n"
    "<b>Stats</b>\n"
    "/stats – your stats (reply to someone for theirs)\n"
    "/top – the group's leaderboard\n"
    "/history – recent games and their replay files"
)

WELCOME_TEXT = M_(
    "<b>👋 Hi, I'm {bot_name}!</b>\n"
    "\n"
    "I host games of TWEAK!, the card game of quick sums, in Telegram groups. Everyone plays when "
    "they have a moment, and I keep track of the cards, the turns and the scores.\n"
    "\n"
    "✅ <b>I can write to you here now.</b> In a game, tap <b>📱 Panel</b> on its board and your "
    "turns come here too, with your real cards on the keys.\n"
    "\n"
    "To play with friends, add me to a group with the <b>Add to a group</b> key below and send "
    "/newgame there. To practise alone against the computer, send /newgame right here. "
    "/rules explains the game and /help shows how the keys work."
)
