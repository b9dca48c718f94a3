"""tweakbot: play TWEAK! in Telegram groups."""

import os

# python-telegram-bot 22 moves time spans (e.g. RetryAfter.retry_after) to datetime.timedelta;
# opt in now, so the senders read the new type and no deprecation warning fires on every 429.
os.environ.setdefault("PTB_TIMEDELTA", "true")
