"""tweakbot: the Telegram side of TWEAK! (handlers, services, storage, scheduling)."""
