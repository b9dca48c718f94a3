"""Alembic revisions, one file per schema change (vNNNN_slug.py)."""
