"""Delete expired sessions and the saved labs of sessions that no longer exist.

Schedule it (cron, a systemd timer) like Django's clearsessions; see the README.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand

from studysite.lab import exam, store


class Command(BaseCommand):
    help = "Delete expired sessions and the lab rows of sessions that no longer exist."

    def handle(self, *args: Any, **options: Any) -> None:
        engine = import_module(settings.SESSION_ENGINE)
        engine.SessionStore.clear_expired()
        deleted = store.delete_orphans() + exam.delete_orphans()
        self.stdout.write(f"Deleted {deleted} saved lab rows of expired sessions.")
