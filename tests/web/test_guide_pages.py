from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest
from django.test import Client

from studysite.guide.sections import load_guide
from tests.conftest import REPO_ROOT

SECTIONS = load_guide().sections

pytestmark = pytest.mark.django_db


def test_the_home_page_lists_every_section_in_order(client: Client) -> None:
    response = client.get("/")
    assert response.status_code == 200
    body = response.content.decode()
    positions = [body.index(f'href="{section.url}"') for section in SECTIONS]
    assert positions == sorted(positions)
    assert "<title>NVIDIA Run:ai on Kubernetes · Run:ai Study</title>" in body


@pytest.mark.parametrize("section", SECTIONS, ids=lambda s: s.slug)
def test_every_section_has_its_page_with_title_and_navigation(client: Client, section) -> None:
    response = client.get(section.url)
    assert response.status_code == 200
    body = response.content.decode()
    assert f"<title>{section.order}. {section.title}" in body.replace("&#x27;", "'")
    assert re.search(rf'href="{re.escape(section.url)}" aria-current="page"', body)
    previous, following = load_guide().neighbours(section)
    if previous:
        assert f'rel="prev" href="{previous.url}"' in body
    if following:
        assert f'rel="next" href="{following.url}"' in body
    assert previous or following


def test_first_and_last_sections_have_only_one_neighbour(client: Client) -> None:
    first = client.get(SECTIONS[0].url).content.decode()
    last = client.get(SECTIONS[-1].url).content.decode()
    assert 'rel="prev"' not in first and 'rel="next"' in first
    assert 'rel="next"' not in last and 'rel="prev"' in last


def test_the_guide_on_its_own_leads_to_its_contents(client: Client) -> None:
    response = client.get("/guide/")
    assert (response.status_code, response["Location"]) == (302, "/#contents")
    assert client.get("/guide").headers["Location"] == "/guide/"
    home = client.get("/").content.decode()
    assert '<h2 id="contents">Contents' in home


def test_an_unknown_section_is_a_friendly_404(client: Client) -> None:
    response = client.get("/guide/no-such-section/")
    assert response.status_code == 404
    assert "Page not found" in response.content.decode()


def test_marking_a_section_read_is_remembered_for_this_browser(client: Client) -> None:
    section = SECTIONS[2]
    response = client.post(f"{section.url}read", {"read": "1"})
    assert response.status_code == 302 and response["Location"] == f"{section.url}read"
    page = client.get(f"{section.url}read").content.decode()
    assert "You marked this section as read" in page
    assert "1 of 27 sections read" in page
    assert "1 of 27 sections read" not in Client().get(f"{section.url}read").content.decode()


def test_marking_read_with_htmx_returns_only_the_swapped_region(client: Client) -> None:
    section = SECTIONS[0]
    response = client.post(f"{section.url}read", {"read": "1"}, headers={"HX-Request": "true"})
    body = response.content.decode()
    assert response.status_code == 200
    assert body.lstrip().startswith('<form id="read-state"')
    assert '<nav id="guide-toc" class="toc" aria-label="Guide contents" hx-swap-oob="true">' in body
    assert f'id="read-mark-{section.slug}" class="read-mark"><span aria-hidden="true">✓' in body
    assert "<html" not in body


def test_marking_read_then_unread_clears_the_mark(client: Client) -> None:
    url = f"{SECTIONS[0].url}read"
    client.post(url, {"read": "1"})
    client.post(url, {"read": "0"})
    assert "0 of 27 sections read" in client.get(url).content.decode()


def test_posting_without_a_csrf_token_is_refused() -> None:
    strict = Client(enforce_csrf_checks=True)
    response = strict.post(f"{SECTIONS[0].url}read", {"read": "1"})
    assert response.status_code == 403


def test_the_csrf_token_rides_on_every_htmx_request_of_a_page_rendered_per_request(
    client: Client,
) -> None:
    body = client.get("/search/").content.decode()
    assert re.search(r"<body hx-headers='\{\"X-CSRFToken\": \"\w+\"\}'>", body)


def test_search_finds_a_heading_and_links_to_its_anchor(client: Client) -> None:
    response = client.get("/search/", {"q": "single vs mixed"})
    body = response.content.decode()
    assert response.status_code == 200
    assert 'href="/guide/mig-gpu-operator/#single-vs-mixed"' in body


def test_search_with_htmx_returns_only_the_results(client: Client) -> None:
    response = client.get("/search/", {"q": "fragmentation"}, headers={"HX-Request": "true"})
    body = response.content.decode()
    assert "<html" not in body and "/guide/placement/" in body


def test_search_says_so_when_nothing_matches(client: Client) -> None:
    body = client.get("/search/", {"q": "zzqxv"}).content.decode()
    assert "No results for “zzqxv”" in body


def test_search_survives_odd_input(client: Client) -> None:
    for query in ["<script>alert(1)</script>", "a" * 5000, "%%%", "\u202e\u0000"]:
        response = client.get("/search/", {"q": query})
        assert response.status_code == 200
        assert "<script>alert(1)</script>" not in response.content.decode()


def test_pages_carry_a_strict_csp_and_no_inline_script(client: Client) -> None:
    response = client.get(SECTIONS[11].url)
    policy = response["Content-Security-Policy"]
    assert "script-src 'self';" in policy and "'unsafe-inline'" not in policy
    assert "object-src 'none'" in policy and "frame-ancestors 'none'" in policy
    for tag in re.findall(r"<script[^>]*>", response.content.decode()):
        assert "src=" in tag or "nonce=" in tag
    assert response["X-Frame-Options"] == "DENY"
    assert response["X-Content-Type-Options"] == "nosniff"


def test_static_files_are_vendored_not_fetched_from_a_cdn(client: Client) -> None:
    body = client.get("/").content.decode()
    assert not re.search(r'(src|href)="https?://', body)
    assert client.get("/static/vendor/htmx-2.0.11/htmx.min.js").status_code == 200


def manage(settings: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    """Run manage.py in a fresh process with these environment settings."""
    env = {**os.environ, **settings}
    env.pop("DJANGO_SETTINGS_MODULE", None)
    if "SECRET_KEY" not in settings:
        env.pop("SECRET_KEY", None)
    return subprocess.run(
        [sys.executable, "manage.py", *args], cwd=REPO_ROOT, env=env, capture_output=True, text=True
    )


def test_production_settings_pass_the_deploy_check() -> None:
    settings = {
        "DEBUG": "0",
        "SECRET_KEY": "x" * 20 + "a-long-production-secret-that-is-random-enough-1234567890",
        "SECURE_HTTPS": "1",
        "ALLOWED_HOSTS": "study.example.com",
    }
    result = manage(settings, "check", "--deploy", "--fail-level", "WARNING")
    assert result.returncode == 0, result.stdout + result.stderr


def test_a_bad_setting_stops_the_start_with_a_clear_message() -> None:
    result = manage({"DEBUG": "maybe"}, "check")
    assert result.returncode != 0
    assert result.stderr.strip() == "error: DEBUG must be a boolean (true/false), got 'maybe'"


def test_the_development_server_prints_each_log_line_once() -> None:
    script = (
        "import django, logging; django.setup();"
        "logging.getLogger('django.channels.server').info('HTTP GET /guide/ 200');"
        "logging.getLogger('django.request').warning('Not Found: /nope/')"
    )
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "studysite.settings", "DEBUG": "1"}
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=REPO_ROOT, env=env, capture_output=True, text=True
    )
    assert result.stderr.splitlines() == ["HTTP GET /guide/ 200", "Not Found: /nope/"]


def test_https_without_a_real_secret_key_refuses_to_start() -> None:
    result = manage({"SECURE_HTTPS": "1"}, "check")
    assert result.returncode != 0
    assert "SECRET_KEY must be set to a real secret when SECURE_HTTPS is on" in result.stderr
