"""The progress page: what has been done, and export, import and reset."""

from __future__ import annotations

import json
from typing import Any

from django.conf import settings
from django.core.files.uploadedfile import UploadedFile
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.http import require_POST, require_safe

from studysite.guide.progress import read_sections
from studysite.guide.sections import load_guide
from studysite.htmx import HtmxHttpRequest
from studysite.limits import expensive
from studysite.sessions import existing_key
from studysite.study import progress, store
from studysite.study.flash import flash, pop_flash
from studysite.study.progress import ProgressDataError, parts

TEMPLATE = "study/progress/home.html"
FILENAME = "runai-study-progress.json"


def _context(request: HtmxHttpRequest, error: str = "") -> dict[str, Any]:
    read = read_sections(request)
    return {
        "study_tool": "progress",
        "parts": [(part, part.summary(request) if part.summary else "") for part in parts()],
        "read": [section for section in load_guide().sections if section.slug in read],
        "history": store.finished_attempts(existing_key(request)),
        "message": pop_flash(request),
        "error": error,
        "max_mb": progress.MAX_FILE_BYTES // 1024 // 1024,
        "cookie_days": settings.SESSION_COOKIE_AGE // 86400,
    }


def _read_upload(upload: UploadedFile[bytes] | None) -> bytes:
    if upload is None:
        raise ProgressDataError("Choose a progress file to import.")
    if upload.size is not None and upload.size > progress.MAX_FILE_BYTES:
        raise ProgressDataError(progress.too_large(upload.size))  # unread
    return bytes(upload.read(progress.MAX_FILE_BYTES + 1))


@require_safe
def progress_home(request: HtmxHttpRequest) -> HttpResponse:
    return render(request, TEMPLATE, _context(request))


@require_safe
def progress_export(request: HtmxHttpRequest) -> HttpResponse:
    document = progress.export_progress(request, timezone.now())
    response = HttpResponse(json.dumps(document, indent=2), content_type="application/json")
    response["Content-Disposition"] = f'attachment; filename="{FILENAME}"'
    return response


@require_POST
@expensive("import")
def progress_import(request: HtmxHttpRequest) -> HttpResponse:
    try:
        found = progress.parse_file(_read_upload(request.FILES.get("file")))
        imported = progress.import_progress(request, found)
    except ProgressDataError as error:
        message = f"Nothing was imported. {error}"
        return render(request, TEMPLATE, _context(request, message), status=400)
    flash(request, f"Progress imported: {', '.join(imported) or 'nothing to import'}.")
    return redirect("study:progress")


@require_safe
def progress_reset_confirm(request: HtmxHttpRequest) -> HttpResponse:
    context = {"study_tool": "progress", "parts": parts(), "error": ""}
    return render(request, "study/progress/reset.html", context)


@require_POST
def progress_reset(request: HtmxHttpRequest) -> HttpResponse:
    try:
        erased = progress.reset_progress(request, request.POST.getlist("part"))
    except ProgressDataError as error:
        context = {"study_tool": "progress", "parts": parts(), "error": str(error)}
        return render(request, "study/progress/reset.html", context, status=400)
    flash(request, f"Erased: {', '.join(erased)}.")
    return redirect("study:progress")
