"""The admin host's kubeconfig in the browser terminal: a context's namespace typed once holds
for every later command and survives a reload; Tab completes `kubectl config` and its names."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from tests.browser.test_lab_streams import open_terminal, run


def test_a_namespace_set_on_the_context_holds_after_a_reload_and_tab_completes_config(
    page: Page,
) -> None:
    open_terminal(page)
    run(page, "kubectl config set-context --current --namespace=kube-system")
    log = page.locator("#transcript-log")
    expect(log).to_contain_text('Context "kubernetes-admin@dgx-cluster" modified.')
    run(page, "kubectl get deploy")
    expect(log).to_contain_text("coredns")

    page.reload()
    open_terminal(page)
    run(page, "kubectl config view --minify -o jsonpath='{..namespace}'")
    expect(log.locator(".transcript-entry").last).to_contain_text("kube-system")

    # A keyboard user's Tab: the subcommand, then the one context there is.
    entries = log.locator(".transcript-entry")
    before = entries.count()
    rows = page.locator(".xterm-rows")
    page.keyboard.type("kubectl config use-c")
    page.keyboard.press("Tab")
    expect(rows).to_contain_text("kubectl config use-context")
    page.keyboard.press("Tab")
    expect(rows).to_contain_text("kubectl config use-context kubernetes-admin@dgx-cluster")
    page.keyboard.press("Enter")
    expect(entries).to_have_count(before + 1)
    expect(entries.last).to_contain_text('Switched to context "kubernetes-admin@dgx-cluster".')
