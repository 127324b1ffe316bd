// Reading code: "Wrap lines" on every code block, one setting for the whole site,
// remembered in this browser. Loaded in <head> without defer so the remembered
// setting applies before the first paint (no jump from scrolling to wrapped lines).
(function () {
  "use strict";
  var KEY = "wrapCode";
  var root = document.documentElement;

  function stored() {
    try { return window.localStorage.getItem(KEY) === "1"; } catch (error) { return false; }
  }

  function apply(wrapped) {
    if (wrapped) root.setAttribute("data-wrap-code", "");
    else root.removeAttribute("data-wrap-code");
    document.querySelectorAll("button.wrap-toggle").forEach(function (button) {
      button.setAttribute("aria-pressed", wrapped ? "true" : "false");
    });
  }

  apply(stored());

  function setup(scope) {
    scope.querySelectorAll("button.wrap-toggle").forEach(function (button) {
      button.hidden = false;
      button.setAttribute("aria-pressed", root.hasAttribute("data-wrap-code") ? "true" : "false");
    });
  }

  document.addEventListener("click", function (event) {
    var button = event.target.closest ? event.target.closest("button.wrap-toggle") : null;
    if (!button) return;
    var wrapped = !root.hasAttribute("data-wrap-code");
    try { window.localStorage.setItem(KEY, wrapped ? "1" : "0"); } catch (error) { /* private mode */ }
    apply(wrapped);
  });

  document.addEventListener("DOMContentLoaded", function () { setup(document); });
  document.addEventListener("htmx:load", function (event) { setup(event.target); });
})();

// Reading progress on a section page: the heading the reader last passed is kept in this
// browser and offered back on return, and reaching the end of the section marks it read
// (the server says so beside an Undo button; a reader who undoes is not marked again).
(function () {
  "use strict";
  var MIN_MS = 5000; // on the page at least this long before the end counts as reached
  var match = /^\/guide\/([\w-]+)\/$/.exec(window.location.pathname);
  if (!match) return;
  var key = "guide-position:" + match[1];
  var opened = Date.now();
  var offered = false;

  function remember(id) {
    try { window.localStorage.setItem(key, id); } catch (error) { /* private mode */ }
  }
  function recalled() {
    try { return window.localStorage.getItem(key); } catch (error) { return null; }
  }
  function headingText(heading) {
    var copy = heading.cloneNode(true);
    copy.querySelectorAll(".anchor").forEach(function (a) { a.remove(); });
    return copy.textContent.trim();
  }

  function offerReturn(headings) {
    var id = recalled();
    if (!id || window.location.hash || !headings.length || headings[0].id === id) return;
    var target = document.getElementById(id);
    if (!target) return;
    var note = document.createElement("p");
    note.className = "resume-note";
    var link = document.createElement("a");
    link.href = "#" + id;
    link.textContent = "Continue where you left off: " + headingText(target);
    note.appendChild(link);
    var prose = document.querySelector(".guide-article .prose");
    prose.parentNode.insertBefore(note, prose);
  }

  function trackPosition(headings) {
    // The part being read is under the last heading above the top third of the window.
    var pending = false;
    function note() {
      pending = false;
      var current = null;
      for (var i = 0; i < headings.length; i += 1) {
        if (headings[i].getBoundingClientRect().top > window.innerHeight / 3) break;
        current = headings[i];
      }
      if (current) remember(current.id);
    }
    window.addEventListener("scroll", function () {
      if (pending) return;
      pending = true;
      window.setTimeout(note, 250);
    }, { passive: true });
  }

  function announce(text) {
    var live = document.getElementById("reading-announce");
    if (!live) {
      live = document.createElement("p");
      live.id = "reading-announce";
      live.className = "visually-hidden";
      live.setAttribute("aria-live", "polite");
      document.querySelector(".guide-article").appendChild(live);
    }
    live.textContent = text;
  }

  function markAtEnd(form) {
    if (offered || !("IntersectionObserver" in window)) return;
    var button = form.querySelector("[data-end-of-section]");
    if (!button) return;
    var timer = null;
    function mark() {
      if (offered || !document.body.contains(form)) return;
      offered = true;
      observer.disconnect();
      var auto = document.createElement("input");
      auto.type = "hidden";
      auto.name = "auto";
      auto.value = "1";
      form.appendChild(auto);
      form.requestSubmit(button);
      announce("You reached the end of this section: it is marked as read. Undo with the button at the end.");
    }
    var observer = new IntersectionObserver(function (entries) {
      var visible = entries.some(function (entry) { return entry.isIntersecting; });
      if (timer) { window.clearTimeout(timer); timer = null; }
      if (visible) timer = window.setTimeout(mark, Math.max(0, opened + MIN_MS - Date.now()));
    });
    observer.observe(form);
  }

  document.addEventListener("DOMContentLoaded", function () {
    var headings = Array.prototype.slice.call(
      document.querySelectorAll(".guide-article .prose h2[id], .guide-article .prose h3[id]")
    );
    offerReturn(headings);
    trackPosition(headings);
  });
  document.addEventListener("htmx:load", function (event) {
    var form = event.target.id === "read-state" ? event.target : null;
    if (form && form.tagName === "FORM") markAtEnd(form);
  });
})();
