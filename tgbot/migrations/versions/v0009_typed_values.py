"""typed values

A draft keeps the card values its player typed in reply to their own view (`drafts.typed`,
"531"), so the sums those values make stay offered while the player composes (issue 61). A
nullable column: existing drafts typed nothing.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-08 12:00:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel.sql.sqltypes
from alembic import op

revision: str = "0009"
down_revision: str | Sequence[str] | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("drafts", schema=None) as batch_op:
        batch_op.add_column(sa.Column("typed", sqlmodel.sql.sqltypes.AutoString(length=24), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("drafts", schema=None) as batch_op:
        batch_op.drop_column("typed")
