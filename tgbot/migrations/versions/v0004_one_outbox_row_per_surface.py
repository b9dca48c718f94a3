"""one outbox row per chat and surface

A transaction writes its outbox rows in one statement that replaces the content of a surface's
waiting row (INSERT ... ON CONFLICT (chat_id, surface) DO UPDATE), so the index on the chat and
surface becomes unique. Rows without a surface are unaffected (NULLs are distinct). Should two
rows already wait for one surface (two instances putting at once), the newest is kept: it holds
the latest content.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-02 06:30:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | Sequence[str] | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_OLDER_DUPLICATES = """
DELETE FROM outbox
WHERE surface IS NOT NULL
  AND id NOT IN (SELECT max(id) FROM outbox WHERE surface IS NOT NULL GROUP BY chat_id, surface)
"""


def upgrade() -> None:
    op.execute(sa.text(_OLDER_DUPLICATES))
    with op.batch_alter_table("outbox", schema=None) as batch_op:
        batch_op.drop_index("ix_outbox_chat_surface")
        batch_op.create_index("ux_outbox_chat_surface", ["chat_id", "surface"], unique=True)


def downgrade() -> None:
    with op.batch_alter_table("outbox", schema=None) as batch_op:
        batch_op.drop_index("ux_outbox_chat_surface")
        batch_op.create_index("ix_outbox_chat_surface", ["chat_id", "surface"], unique=False)
