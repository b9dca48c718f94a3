"""one message a turn: the board's report, the reported version, the chosen [T!] play

The group chat is the game's record: each board opens with the report of the moves since the
board before it, kept on the game row (`board_report`) so that a board that never reached the
chat hands its lines to whatever replaces it. `reported_version` marks the moves already in the
record. A draft no longer opens a [T!] menu: it holds the [T!] play chosen with its key
(`t_code`), which *Claim* plays. Outbox priorities gain a band for the next board, so waiting
rows move down one step to keep their order.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01 23:30:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel.sql.sqltypes
from alembic import op

revision: str = "0003"
down_revision: str | Sequence[str] | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.add_column(sa.Column("board_report", sa.Text(), nullable=False, server_default=""))
        batch_op.add_column(
            sa.Column("reported_version", sa.Integer(), nullable=False, server_default=sa.text("0"))
        )
    with op.batch_alter_table("drafts", schema=None) as batch_op:
        batch_op.add_column(sa.Column("t_code", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=True))
        batch_op.drop_column("menu")
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.alter_column("reported_version", server_default=None)
        batch_op.alter_column("board_report", server_default=None)
    # Running games: what happened so far is in the chat already.
    op.execute(sa.text("UPDATE games SET reported_version = version"))
    # INFO (1) and PREVIEW (2) become INFO (2) and COSMETIC (3); TURN (0) becomes BOARD (0).
    op.execute(sa.text("UPDATE outbox SET priority = priority + 1 WHERE priority > 0"))


def downgrade() -> None:
    older = "CASE WHEN priority <= 1 THEN 0 WHEN priority = 2 THEN 1 ELSE 2 END"
    op.execute(sa.text(f"UPDATE outbox SET priority = {older}"))
    with op.batch_alter_table("drafts", schema=None) as batch_op:
        batch_op.add_column(sa.Column("menu", sqlmodel.sql.sqltypes.AutoString(length=16), nullable=True))
        batch_op.drop_column("t_code")
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.drop_column("reported_version")
        batch_op.drop_column("board_report")
