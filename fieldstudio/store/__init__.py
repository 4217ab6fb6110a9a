"""SQLAlchemy 2 ORM, Alembic migrations, sessions and short write transactions (no Qt)."""
