"""``python manage.py runscheduler``: the engine as runai-scheduler on a cluster.

The same code as ``python -m simulators scheduler`` (simulators.scheduler.cli), with the same
options; without ``--kubeconfig`` it uses ``LAB_KUBECONFIG``, then ``KUBECONFIG``, then the
in-cluster service account.
"""

from __future__ import annotations

import sys
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand

from simulators.scheduler.cli import main, parser


class Command(BaseCommand):
    help = parser().description or ""

    def run_from_argv(self, argv: list[str]) -> None:
        # The scheduler's own parser takes every option, so both commands stay the same.
        args = list(argv[2:])
        if settings.LAB_KUBECONFIG and not any(a.startswith("--kubeconfig") for a in args):
            args = ["--kubeconfig", settings.LAB_KUBECONFIG, *args]
        sys.exit(main(args))

    def handle(self, *args: Any, **options: Any) -> None:
        # call_command("runscheduler") from code: one cycle is the only sensible default.
        main(["--once"])
