from __future__ import annotations

import pytest
from django.core.exceptions import ImproperlyConfigured

from studysite.settings import database_from_url, redis_layer


def test_a_postgres_url_becomes_a_psycopg_database_with_a_connection_pool(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("DATABASE_POOL_SIZE", "4")
    config = database_from_url("DATABASE_URL", "postgres://learn:s3cret@db.internal:5433/study")
    assert config["ENGINE"] == "django.db.backends.postgresql"
    assert (config["HOST"], config["PORT"], config["NAME"]) == ("db.internal", 5433, "study")
    assert (config["USER"], config["PASSWORD"]) == ("learn", "s3cret")
    assert config["CONN_MAX_AGE"] == 0
    assert config["OPTIONS"]["pool"]["max_size"] == 4


def test_a_database_url_of_another_kind_stops_start_up_naming_the_variable() -> None:
    with pytest.raises(ImproperlyConfigured, match="DATABASE_URL must be a postgres://"):
        database_from_url("DATABASE_URL", "mysql://root@localhost/study")


def test_a_redis_url_selects_the_redis_channel_layer() -> None:
    layer = redis_layer("REDIS_URL", "redis://127.0.0.1:6379/0")
    assert layer["BACKEND"] == "channels_redis.core.RedisChannelLayer"
    assert layer["CONFIG"]["hosts"] == ["redis://127.0.0.1:6379/0"]


def test_a_redis_url_without_a_redis_scheme_stops_start_up_naming_the_variable() -> None:
    with pytest.raises(ImproperlyConfigured, match="REDIS_URL must be a redis://"):
        redis_layer("REDIS_URL", "127.0.0.1:6379")


def test_a_pool_size_that_is_not_a_number_stops_start_up_naming_the_variable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("DATABASE_POOL_SIZE", "many")
    with pytest.raises(ImproperlyConfigured, match="DATABASE_POOL_SIZE must be a whole number"):
        database_from_url("DATABASE_URL", "postgres://learn@db/study")
