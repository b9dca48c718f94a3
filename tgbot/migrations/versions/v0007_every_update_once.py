"""every update once

Every update the bot applies is now recorded in `seen_taps` (`update:<id>:<service>`, in the
transaction of its effect), not only the compose keys' callback queries: its second delivery
changes nothing. The table grows with every update and the sweep forgets rows older than a day,
so it gets an index on `seen_at`: that deletion reads the old rows only.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-07 22:30:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "0007"
down_revision: str | Sequence[str] | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("seen_taps", schema=None) as batch_op:
        batch_op.create_index("ix_seen_taps_seen_at", ["seen_at"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("seen_taps", schema=None) as batch_op:
        batch_op.drop_index("ix_seen_taps_seen_at")
