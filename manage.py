#!/usr/bin/env python
from __future__ import annotations

import importlib
import os
import sys


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "studysite.settings")
    from django.core.exceptions import ImproperlyConfigured
    from django.core.management import execute_from_command_line

    try:
        # Read the settings first, so that a bad environment variable is one line, not a
        # traceback from deep inside Django.
        importlib.import_module(os.environ["DJANGO_SETTINGS_MODULE"])
    except ImproperlyConfigured as error:
        sys.exit(f"error: {error}")
    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
