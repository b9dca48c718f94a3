"""tweakbot: play TWEAK! in Telegram groups."""
