// Site-wide behaviour: theme toggle, "/" to search, copy buttons, search popup keys.
(function () {
  "use strict";

  function currentTheme() {
    var chosen = document.documentElement.dataset.theme;
    if (chosen) return chosen;
    return window.matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
  }

  function setupThemeToggle() {
    var button = document.getElementById("theme-toggle");
    if (!button) return;
    function sync() {
      button.setAttribute("aria-pressed", currentTheme() === "dark" ? "true" : "false");
    }
    button.hidden = false;
    sync();
    button.addEventListener("click", function () {
      var next = currentTheme() === "dark" ? "light" : "dark";
      document.documentElement.dataset.theme = next;
      try { localStorage.setItem("theme", next); } catch (e) { /* not remembered */ }
      sync();
    });
  }

  function isTyping(target) {
    if (!target) return false;
    var tag = target.tagName;
    return tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || target.isContentEditable;
  }

  function setupSearchShortcut() {
    var input = document.getElementById("site-search");
    var popup = document.getElementById("search-popup");
    if (!input) return;
    document.addEventListener("keydown", function (event) {
      if (event.key === "/" && !event.ctrlKey && !event.metaKey && !event.altKey && !isTyping(event.target)) {
        event.preventDefault();
        input.focus();
        input.select();
      }
      if (event.key === "Escape" && popup && (popup.contains(document.activeElement) || document.activeElement === input)) {
        if (popup) popup.innerHTML = "";
        input.focus();
      }
    });
    input.addEventListener("keydown", function (event) {
      if (event.key === "ArrowDown" && popup) {
        var first = popup.querySelector("a");
        if (first) { event.preventDefault(); first.focus(); }
      }
    });
    if (popup) {
      popup.addEventListener("keydown", function (event) {
        var links = Array.prototype.slice.call(popup.querySelectorAll("a"));
        var index = links.indexOf(document.activeElement);
        if (index < 0) return;
        if (event.key === "ArrowDown" && index + 1 < links.length) { event.preventDefault(); links[index + 1].focus(); }
        if (event.key === "ArrowUp") { event.preventDefault(); (index > 0 ? links[index - 1] : input).focus(); }
      });
    }
  }

  function commandText(block) {
    var code = block.querySelector("pre code");
    if (!code) return "";
    return code.textContent.split("\n").map(function (line) {
      return line.indexOf("$ ") === 0 ? line.slice(2) : line;
    }).join("\n").trim();
  }

  function copyText(text) {
    if (navigator.clipboard && window.isSecureContext) {
      return navigator.clipboard.writeText(text);
    }
    var area = document.createElement("textarea");
    area.value = text;
    area.setAttribute("readonly", "");
    area.className = "visually-hidden";
    document.body.appendChild(area);
    area.select();
    try { document.execCommand("copy"); } finally { document.body.removeChild(area); }
    return Promise.resolve();
  }

  function setupCopyButtons(root) {
    root.querySelectorAll(".code-block.command button.copy").forEach(function (button) {
      if (button.dataset.ready) return;
      button.dataset.ready = "1";
      button.hidden = false;
      var label = button.textContent;
      var status = document.createElement("span");
      status.className = "visually-hidden";
      status.setAttribute("role", "status");
      button.after(status);
      button.addEventListener("click", function () {
        copyText(commandText(button.closest(".code-block"))).then(function () {
          button.textContent = "Copied";
          status.textContent = "Command copied to the clipboard";
          setTimeout(function () { button.textContent = label; status.textContent = ""; }, 2000);
        }, function () {
          status.textContent = "Copy failed: select the text and copy it by hand";
        });
      });
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    setupThemeToggle();
    setupSearchShortcut();
    setupCopyButtons(document);
  });
  document.addEventListener("htmx:afterSwap", function (event) {
    setupCopyButtons(event.target);
    if (event.target.getAttribute("role") === "log") event.target.scrollTop = event.target.scrollHeight;
  });
  // A form that asks for it is emptied once its htmx request went through, ready for the next entry.
  document.addEventListener("htmx:afterRequest", function (event) {
    var form = event.detail.elt;
    if (event.detail.successful && form.matches && form.matches("form[data-reset-on-success]")) {
      form.reset();
      var first = form.querySelector("input:not([type=hidden])");
      if (first) first.focus();
    }
  });
  window.addEventListener("beforeprint", function () {
    document.querySelectorAll("details").forEach(function (details) { details.open = true; });
  });
  window.StudySite = { setupCopyButtons: setupCopyButtons, copyText: copyText };
})();
