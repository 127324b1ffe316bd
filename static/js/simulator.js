// The quota simulator's small helpers; htmx does the requests. Without this file the
// page still works (the form's submit button, plain links).
// - "Copy link" copies the current setup's URL (the result carries it).
// - After an update, each field's aria-invalid follows its message.
// - Typing a project, department or pool name renames it in the selects and labels.
// - The step controls do not update the result while being set; Enter there steps.
// - A link in the list of problems moves the focus to its field.
// - After an update, the line beside the controls and the live region say what changed
//   ("team-b 11 → 8 GPUs running"), so nobody has to scroll to the result to see it.
(function () {
  "use strict";

  function copyText(text) {
    if (window.StudySite && window.StudySite.copyText) return window.StudySite.copyText(text);
    return navigator.clipboard.writeText(text);
  }

  function shareUrl() {
    var result = document.getElementById("sim-result");
    var path = result ? result.getAttribute("data-share-url") : "/simulator/";
    return new URL(path, window.location.origin).href;
  }

  function syncInvalid(root) {
    root.querySelectorAll(".sim-msg[data-for]").forEach(function (message) {
      var field = document.getElementById(message.getAttribute("data-for"));
      if (!field) return;
      var bad = message.textContent.trim() !== "";
      if (bad) field.setAttribute("aria-invalid", "true");
      else field.removeAttribute("aria-invalid");
      var box = field.closest(".sim-field");
      if (box) box.classList.toggle("sim-field-error", bad);
    });
  }

  function setup(root) {
    var copy = root.querySelector ? root.querySelector("#sim-copy") : null;
    if (copy) copy.hidden = false;
    var step = root.querySelector ? root.querySelector("[data-sim-step]") : null;
    if (step && !step.dataset.ready) {
      step.dataset.ready = "1";
      // Choosing the step's project or size is not a change to the setup.
      step.addEventListener("input", function (event) { event.stopPropagation(); });
      step.addEventListener("keydown", function (event) {
        if (event.key === "Enter" && event.target.tagName === "INPUT") {
          event.preventDefault();
          document.getElementById("sim-step-button").click();
        }
      });
    }
  }

  function renameOptions(selector, index, text) {
    document.querySelectorAll(selector).forEach(function (select) {
      var option = select.querySelector('option[value="' + index + '"]');
      if (option) option.textContent = text;
    });
  }

  document.addEventListener("input", function (event) {
    var id = event.target.id || "";
    var match;
    if ((match = /^p-(\d+)-name$/.exec(id))) {
      renameOptions("#step-project", match[1], event.target.value);
    } else if ((match = /^d-(\d+)-name$/.exec(id))) {
      renameOptions("select[id$='-dept']", match[1], event.target.value);
    } else if ((match = /^pool-(\d+)-name$/.exec(id))) {
      renameOptions("#step-pool", match[1], event.target.value);
      document.querySelectorAll('[data-pool-ref="' + match[1] + '"]').forEach(function (span) {
        span.textContent = event.target.value;
      });
    }
  });

  // A link in the list of problems takes the focus to its field (opening "Limit, ..." if shut).
  document.addEventListener("click", function (event) {
    var link = event.target.closest ? event.target.closest(".sim-problems a[href^='#']") : null;
    if (!link) return;
    var field = document.getElementById(link.getAttribute("href").slice(1));
    if (!field) return;
    event.preventDefault();
    var details = field.closest("details");
    if (details) details.open = true;
    field.focus();
  });

  document.addEventListener("click", function (event) {
    var button = event.target.closest ? event.target.closest("#sim-copy") : null;
    if (!button) return;
    var status = document.getElementById("sim-copy-status");
    copyText(shareUrl()).then(function () {
      button.textContent = "Copied";
      if (status) status.textContent = "Link to this setup copied to the clipboard";
      setTimeout(function () {
        button.textContent = "Copy link";
        if (status) status.textContent = "";
      }, 2500);
    }, function () {
      if (status) status.textContent = "Copy failed: copy the link below the result by hand";
    });
  });

  function running() {
    var quick = document.getElementById("sim-quick");
    var counts = {};
    if (!quick) return counts;
    (quick.getAttribute("data-running") || "").split(";").forEach(function (pair) {
      var parts = pair.split("=");
      if (parts.length === 2) counts[parts[0]] = parts[1];
    });
    return counts;
  }

  var before = null;
  document.addEventListener("htmx:beforeSwap", function () { before = running(); });

  function sayWhatChanged() {
    if (!before) return;
    var now = running();
    var several = Object.keys(now).some(function (key) { return key.split("/")[0] !== Object.keys(now)[0].split("/")[0]; });
    var changes = [];
    Object.keys(now).forEach(function (key) {
      if (key in before && before[key] !== now[key]) {
        var name = several ? key.replace("/", ": ") : key.split("/")[1];
        changes.push(name + " " + before[key] + " → " + now[key]);
      }
    });
    before = null;
    if (!changes.length) return;
    var text = "Changed: " + changes.join(", ") + " GPUs running.";
    var line = document.getElementById("sim-quick-change");
    if (line) line.textContent = text;
    var live = document.getElementById("sim-live");
    if (live) live.textContent = text + " " + live.textContent;
  }

  document.addEventListener("DOMContentLoaded", function () { setup(document); });
  document.addEventListener("htmx:load", function (event) { setup(event.target); });
  document.addEventListener("htmx:afterSettle", function () {
    syncInvalid(document);
    sayWhatChanged();
  });
})();
