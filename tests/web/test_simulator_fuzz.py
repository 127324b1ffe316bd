"""No query string, however odd, makes the simulator fail: 200 or a redirect, never a 500."""

from __future__ import annotations

from urllib.parse import urlencode

import pytest
from django.test import Client
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytestmark = pytest.mark.django_db

KEYS = [
    "pool", "p", "d", "step", "action", "embed",
    "pool-0-name", "pool-0-gpus", "pool-1-name", "pool-1-gpus", "pool-7-gpus",
    "p-0-name", "p-0-quota-0", "p-0-quota-1", "p-0-demand-0", "p-0-demand-1", "p-0-weight",
    "p-0-limit", "p-0-priority", "p-0-dept", "p-1-name", "p-1-demand-0", "p-99-name",
    "d-0-name", "d-0-quota-0", "d-0-weight", "d-0-limit",
    "step-project", "step-pool", "step-extra",
]  # fmt: skip
ACTIONS = [
    "step", "add-project", "remove-project-0", "remove-project-7", "remove-project-99",
    "add-pool", "remove-pool-0", "remove-pool-1", "add-department", "remove-department-0",
    "remove-", "add-", "",
]  # fmt: skip
# Numbers that matter: edges, negatives, fractions, huge, and not numbers at all.
NUMBERS = st.sampled_from(
    ["0", "1", "2", "8", "24", "-1", "2.5", "1e3", "4096", "4097", "1e9", "NaN", "inf", "", "x"]
) | st.integers(-3, 40).map(str)
TOKEN = (
    NUMBERS
    | st.sampled_from(["team-a", "team-b", "default", "l40s", "research"])
    | st.text(max_size=6)
)


@st.composite
def compact_values(draw: st.DrawFn) -> str:
    """Values shaped like the compact spelling, with odd parts mixed in."""
    parts = draw(st.lists(TOKEN, max_size=9))
    seps = draw(
        st.lists(st.sampled_from([",", "/", ":", ",limit:", ",prio:", ",dept:"]), max_size=9)
    )
    return "".join(part + sep for part, sep in zip(parts, seps, strict=False)) + draw(TOKEN)


pairs = st.lists(
    st.tuples(
        st.sampled_from(KEYS) | st.text(max_size=8),
        compact_values() | NUMBERS | st.sampled_from(ACTIONS) | st.text(max_size=20),
    ),
    max_size=14,
)


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(pairs, st.booleans())
def test_any_parameters_get_a_page_or_a_redirect(
    client: Client, query: list[tuple[str, str]], htmx: bool
) -> None:
    headers = {"HX-Request": "true"} if htmx else {}
    response = client.get("/simulator/?" + urlencode(query), headers=headers)
    assert response.status_code in (200, 302), query
    if response.status_code == 302:
        assert response["Location"].startswith("/simulator/?")
        assert client.get(response["Location"].split("#")[0]).status_code == 200


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.text(alphabet=st.characters(codec="ascii", exclude_categories=["Cc"]), max_size=120))
def test_any_raw_query_string_gets_a_page_or_a_redirect(client: Client, raw: str) -> None:
    response = client.get("/simulator/?" + raw.replace("#", "%23").replace(" ", "+"))
    assert response.status_code in (200, 302), raw
