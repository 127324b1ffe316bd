// The lab terminal: xterm.js for display, line editing here so typing echoes at
// once, and a websocket to the server's simulated cluster for everything else.
//
// xterm.js (half a megabyte of script) loads only when the terminal is about to be used:
// the learner presses "Start the terminal" (or types on it). Until then
// the page is plain HTML with the command form, which works with or without this script.
// A learner who has started it once gets it at once on later visits.
(function () {
  "use strict";

  var root = document.getElementById("lab");
  if (!root) return;

  // xterm.js injects <style> elements; under our CSP they need the page's nonce.
  var nonce = (document.currentScript && document.currentScript.nonce) || root.dataset.nonce || "";
  var startButton = document.getElementById("terminal-start");
  var STARTED_KEY = "lab-terminal";
  var loading = null;   // the promise of xterm.js's files
  var started = false;
  // Keys typed before the cluster's first answer (the replay), on the start button or in the
  // terminal, as the terminal's data (what xterm.js sends for them): handled in order once the
  // replay has come, as if typed then.
  var earlyKeys = [];
  var EARLY_KEYS_KEPT = 4096;
  // On the start button, once typing has begun: the line-editing keys, as xterm.js sends them.
  var BUTTON_KEYS = {
    Backspace: "\x7f", Enter: "\r", Delete: "\x1b[3~", ArrowLeft: "\x1b[D", ArrowRight: "\x1b[C",
    ArrowUp: "\x1b[A", ArrowDown: "\x1b[B", Home: "\x1b[H", End: "\x1b[F"
  };
  var BUTTON_CTRL_KEYS = { a: "\x01", e: "\x05", u: "\x15", c: "\x03", l: "\x0c" };

  // What a key typed on the start button is for the terminal, or null: the button keeps it.
  // A printable key starts the terminal (Space only once typing has begun: before, it presses
  // the button); Tab always moves focus on (no keyboard trap).
  function buttonKey(event) {
    if (event.metaKey || event.altKey) return null;
    var key = event.key;
    var typing = earlyKeys.length > 0;
    if (event.ctrlKey) return (typing && BUTTON_CTRL_KEYS[key.toLowerCase()]) || null;
    if (key.length === 1) return key !== " " || typing ? key : null;
    return (typing && BUTTON_KEYS[key]) || null;
  }
  root.classList.add("terminal-startable");

  function loadFile(tag, attributes) {
    return new Promise(function (resolve, reject) {
      var element = document.createElement(tag);
      Object.keys(attributes).forEach(function (name) { element[name] = attributes[name]; });
      element.onload = resolve;
      element.onerror = function () { reject(new Error(attributes.src || attributes.href)); };
      document.head.appendChild(element);
    });
  }

  function loadTerminalFiles() {
    if (!loading) {
      var styles = (root.dataset.styles || "").split(" ").filter(Boolean);
      var scripts = (root.dataset.scripts || "").split(" ").filter(Boolean);
      loading = Promise.all(
        styles.map(function (href) { return loadFile("link", { rel: "stylesheet", href: href }); })
          // Inserted scripts that are not async run in the order they were added.
          .concat(scripts.map(function (src) { return loadFile("script", { src: src, async: false }); }))
      ).then(function () {
        if (typeof Terminal === "undefined") throw new Error("xterm.js did not define Terminal");
      }).catch(function (error) {
        loading = null; // the next try fetches again
        throw error;
      });
    }
    return loading;
  }

  function start(focus) {
    if (started) return;
    started = true;
    if (startButton) startButton.setAttribute("aria-disabled", "true");
    setStatusText("Starting the terminal…");
    loadTerminalFiles().then(function () {
      try { localStorage.setItem(STARTED_KEY, "1"); } catch (e) { /* storage off: ask again next time */ }
      boot(focus);
    }, function () {
      started = false;
      if (startButton) startButton.removeAttribute("aria-disabled");
      setStatusText("The terminal could not load; the command form below still works.");
    });
  }

  function setStatusText(text) {
    var status = document.getElementById("lab-status");
    if (status) status.textContent = text;
  }

  if (startButton) {
    startButton.addEventListener("click", function () { start(true); });
    // Pointing at or focusing the button fetches the files, so the click finds them ready.
    ["pointerenter", "focus", "touchstart"].forEach(function (type) {
      startButton.addEventListener(type, function () { loadTerminalFiles().catch(function () {}); }, { passive: true });
    });
    // Typing on the focused button starts the terminal and keeps the keys for it.
    startButton.addEventListener("keydown", function (event) {
      var data = buttonKey(event);
      if (data === null) return;
      event.preventDefault();
      if (earlyKeys.length < EARLY_KEYS_KEPT) earlyKeys.push(data);
      start(true);
    });
  }

  var remembered = false;
  try { remembered = localStorage.getItem(STARTED_KEY) === "1"; } catch (e) { /* storage off */ }
  if (remembered) start(false);

  function boot(focusTerminal) {
    if (nonce) {
      var createElement = document.createElement.bind(document);
      document.createElement = function (tag, options) {
        var element = createElement(tag, options);
        if (String(tag).toLowerCase() === "style") element.nonce = nonce;
        return element;
      };
    }

    var PROMPT = "admin@kadmin:~$ ";
    var CONTINUATION = "> "; // bash's PS2
    var promptText = PROMPT; // bash's "> " while a command (a here-document ...) is unfinished
    var socketUrl = (location.protocol === "https:" ? "wss://" : "ws://") + location.host + root.dataset.socket;
    var screen = document.getElementById("terminal");
    var fallback = document.getElementById("lab-fallback");
    var transcript = document.getElementById("transcript-log");
    var statusLine = document.getElementById("lab-status");
    var checklist = document.getElementById("checklist");

    // On a phone the transcript starts collapsed (the terminal is the thing to use) and
    // the terminal's type is smaller, so that its columns fit the screen.
    var phone = window.matchMedia("(max-width: 40rem)").matches;
    var transcriptBox = document.querySelector("[data-collapse-on-phone]");
    if (phone && transcriptBox) transcriptBox.open = false;

    var term = new Terminal({
      cursorBlink: true,
      convertEol: false,
      fontFamily: getComputedStyle(document.body).getPropertyValue("--mono") || "monospace",
      fontSize: phone ? 12 : 14,
      scrollback: 5000,
      screenReaderMode: false,
      theme: themeColours()
    });
    var fit = new FitAddon.FitAddon();
    term.loadAddon(fit);
    if (typeof WebLinksAddon !== "undefined") term.loadAddon(new WebLinksAddon.WebLinksAddon());
    var search = typeof SearchAddon !== "undefined" ? new SearchAddon.SearchAddon() : null;
    if (search) term.loadAddon(search);
    screen.hidden = false;
    term.open(screen);
    var keysNote = document.getElementById("terminal-keys");
    if (keysNote) keysNote.hidden = false;
    if (term.textarea) term.textarea.setAttribute("aria-describedby", "terminal-keys");
    fit.fit();
    root.classList.add("terminal-ready");
    if (fallback) fallback.hidden = true;
    if (startButton) startButton.hidden = true;

    var line = "";        // what the learner is typing
    var cursor = 0;       // position in line
    var history = JSON.parse(root.dataset.history || "[]");
    var historyIndex = history.length;
    var pendingTab = false; // a second Tab lists the choices
    var lastCompletions = [];
    var socket = null;
    var busy = false;
    var queue = [];
    // The server closes a session sending more frames a second than this (4429), however
    // it waits for each answer: lines waiting their turn (a pasted script) go no faster, as
    // client-go's own limiter paces kubectl's requests.
    var LINE_GAP_MS = 1000 / (0.9 * (Number(root.dataset.framesPerSecond) || 20));
    var lastLineAt = 0;
    var retry = 0;
    var replayed = false; // the first replay has come: keys go straight to the line

    function themeColours() {
      var style = getComputedStyle(document.documentElement);
      return {
        background: style.getPropertyValue("--term-bg").trim() || "#0d1117",
        foreground: style.getPropertyValue("--term-fg").trim() || "#e6edf3",
        cursor: style.getPropertyValue("--term-cursor").trim() || "#4ade80",
        selectionBackground: "#3b5b8c"
      };
    }

    function setStatus(text) {
      if (statusLine) statusLine.textContent = text;
    }

    function redrawLine() {
      // Return to the start of the row, clear it, print prompt + line, put the cursor back.
      term.write("\r\x1b[2K" + promptText + line);
      var back = line.length - cursor;
      if (back > 0) term.write("\x1b[" + back + "D");
    }

    function prompt() {
      line = "";
      cursor = 0;
      term.write(promptText);
    }

    // After an answer: the prompt, with whatever was typed while the command ran.
    function promptKeepingTypedAhead() {
      cursor = line.length;
      term.write(promptText + line);
    }

    function appendTranscript(command, output) {
      if (!transcript || (command === null && !output)) return;
      var entry = document.createElement("div");
      entry.className = "transcript-entry";
      if (command !== null) {
        var cmd = document.createElement("p");
        cmd.className = "transcript-command";
        cmd.textContent = pendingPrompt + command;
        entry.appendChild(cmd);
      }
      if (output) {
        var pre = document.createElement("pre");
        pre.textContent = output;
        entry.appendChild(pre);
      }
      transcript.appendChild(entry);
      while (transcript.children.length > 200) transcript.removeChild(transcript.firstChild);
    }

    function send(frame) {
      if (socket && socket.readyState === WebSocket.OPEN) {
        socket.send(JSON.stringify(frame));
        return true;
      }
      return false;
    }

    function submit(text) {
      term.write("\r\n");
      // What is typed from now on is the next line, even before this one's answer.
      line = "";
      cursor = 0;
      if (text.trim()) {
        history.push(text);
        if (history.length > 500) history.shift();
      }
      historyIndex = history.length;
      if (busy) {
        queue.push(text);
        // A new command ends a stream (as Ctrl+C would), then runs.
        if (streaming) send({ type: "interrupt" });
        return;
      }
      runLine(text);
    }

    function runLine(text) {
      busy = true;
      pendingCommand = text;
      pendingPrompt = promptText;
      var wait = lastLineAt + LINE_GAP_MS - Date.now();
      if (wait > 0) setTimeout(function () { sendLine(text); }, wait);
      else sendLine(text);
    }

    function sendLine(text) {
      lastLineAt = Date.now();
      if (!send({ type: "line", data: text })) {
        busy = false;
        term.write("\x1b[31mNot connected: reconnecting, try again in a moment.\x1b[0m\r\n");
        prompt();
      }
    }
    var pendingCommand = null;
    var pendingPrompt = PROMPT;

    // The "not logged in" notice follows the CLI: a successful login hides it, a logout
    // brings it back (the server renders it the same way on the next page load).
    function followLogin(output) {
      var note = document.querySelector("[data-login-note]");
      if (!note) return;
      if (/Logged in successfully/.test(output)) note.hidden = true;
      else if (/Logged out successfully/.test(output)) note.hidden = false;
    }

    function showOutput(data, clear, nextPrompt) {
      followLogin(data || "");
      promptText = nextPrompt || PROMPT;
      // Keys typed while the command ran were echoed on this row: the output takes the row,
      // and they come back after the prompt.
      if (line) term.write("\r\x1b[2K");
      if (clear || data === "\x1b[2J\x1b[H" || data === "\x1bc") {
        // `clear` (or its escape): the screen and the scrollback, as xterm's own clear does.
        term.clear();
        term.write("\x1b[2J\x1b[H");
      } else if (data) {
        term.write(data.replace(/\r?\n/g, "\r\n"));
        // `clear` ends with "erase scrollback": the prompt goes on the cleared screen's top line.
        if (!/(\n|\x1b\[3J)$/.test(data)) term.write("\r\n");
      }
      appendTranscript(pendingCommand, data.replace(/\r\n/g, "\n"));
      pendingCommand = null;
      busy = false;
      if (queue.length) {
        var next = queue.shift();
        term.write(promptText + next + "\r\n");
        runLine(next);
      } else {
        promptKeepingTypedAhead();
      }
    }

    function commonPrefix(items) {
      if (!items.length) return "";
      var prefix = items[0];
      items.forEach(function (item) {
        while (item.indexOf(prefix) !== 0) prefix = prefix.slice(0, -1);
      });
      return prefix;
    }

    function applyCompletions(items) {
      var before = line.slice(0, cursor);
      var word = before.slice(before.search(/\S*$/));
      var matching = items.filter(function (item) { return item.indexOf(word) === 0; });
      if (!matching.length) { term.write("\x07"); return; }
      var prefix = commonPrefix(matching);
      var addition = prefix.slice(word.length);
      if (matching.length === 1 && !/[=\/]$/.test(prefix)) addition += " ";
      if (addition) {
        line = line.slice(0, cursor) + addition + line.slice(cursor);
        cursor += addition.length;
        redrawLine();
        // As in bash: still ambiguous after the common part, so the next Tab lists.
        pendingTab = matching.length > 1;
      } else if (pendingTab) {
        term.write("\r\n" + matching.join("  ") + "\r\n");
        redrawLine();
        pendingTab = false;
      } else {
        pendingTab = true;
        term.write("\x07");
      }
      lastCompletions = matching;
    }

    function insert(text) {
      text = text.replace(/[\x00-\x08\x0b-\x1f\x7f]/g, "");
      line = line.slice(0, cursor) + text + line.slice(cursor);
      cursor += text.length;
      if (cursor === line.length && text.indexOf("\x1b") < 0) {
        term.write(text);
      } else {
        redrawLine();
      }
    }

    function complete() {
      if (root.dataset.exam === "1" || !send({ type: "complete", line: line.slice(0, cursor) })) term.write("\x07");
    }

    function paste(text) {
      var parts = text.replace(/\r\n?/g, "\n").split("\n");
      parts.forEach(function (part, index) {
        insert(part);
        if (index < parts.length - 1) {
          var ready = line;
          submit(ready);
          if (busy) { line = ""; cursor = 0; }
        }
      });
    }

    term.onData(function (data) {
      // Until the cluster has answered (the replay), keys wait, each as typed, and are then
      // handled in order as if typed just then: Tab, arrows and Ctrl keys included.
      if (!replayed) {
        if (earlyKeys.length < EARLY_KEYS_KEPT) earlyKeys.push(data);
        return;
      }
      handleKey(data);
    });

    function handleKey(data) {
      if (data !== "\t") pendingTab = false;
      switch (data) {
        case "\r": submit(line); return;
        case "\x7f": case "\b":
          if (cursor > 0) {
            line = line.slice(0, cursor - 1) + line.slice(cursor);
            cursor -= 1;
            redrawLine();
          }
          return;
        case "\x1b[3~":
          if (cursor < line.length) { line = line.slice(0, cursor) + line.slice(cursor + 1); redrawLine(); }
          return;
        case "\x1b[D": if (cursor > 0) { cursor -= 1; term.write(data); } return;
        case "\x1b[C": if (cursor < line.length) { cursor += 1; term.write(data); } return;
        case "\x1b[H": case "\x01": cursor = 0; redrawLine(); return;
        case "\x1b[F": case "\x05": cursor = line.length; redrawLine(); return;
        case "\x1b[A":
          if (historyIndex > 0) { historyIndex -= 1; line = history[historyIndex]; cursor = line.length; redrawLine(); }
          return;
        case "\x1b[B":
          if (historyIndex < history.length) {
            historyIndex += 1;
            line = historyIndex < history.length ? history[historyIndex] : "";
            cursor = line.length;
            redrawLine();
          }
          return;
        case "\t": complete(); return;
        case "\x03":
          if (term.hasSelection()) { copySelection(); return; }
          if (streaming) {
            // The stream ends on the server; its end brings the prompt back.
            term.write("^C\r\n");
            streamOpen = false;
            send({ type: "interrupt" });
            return;
          }
          term.write("^C\r\n");
          if (promptText === CONTINUATION && !busy && send({ type: "line", data: "\x03" })) {
            // The server drops the unfinished command; its answer brings the usual prompt back.
            busy = true;
            pendingCommand = null;
            line = "";
            cursor = 0;
            return;
          }
          prompt();
          return;
        case "\x0c":
          term.clear();
          redrawLine();
          return;
        case "\x15": line = line.slice(cursor); cursor = 0; redrawLine(); return;
      }
      if (data.length > 1 && data.charAt(0) === "\x1b") return; // other keys: ignore
      if (data.length > 1) { paste(data); return; }
      insert(data);
    }

    function copySelection() {
      var text = term.getSelection();
      if (text && window.StudySite) window.StudySite.copyText(text);
    }

    // No keyboard trap (WCAG 2.1.2): Tab belongs to completion, so Esc then Tab (or
    // Shift+Tab) lets the browser move focus on, and F6 jumps to the tools below at once.
    var escaped = false;
    function leaveKeys(event) {
      if (event.type !== "keydown") return null;
      if (event.key === "F6") {
        event.preventDefault();
        var next = document.getElementById("terminal-find");
        if (next) next.focus();
        setStatus("Left the terminal.");
        return false;
      }
      if (event.key === "Tab" && escaped) {
        escaped = false;
        setStatus("Left the terminal.");
        return false; // not handled by xterm: the browser's own Tab moves focus
      }
      if (event.key === "Escape") {
        escaped = true;
        setStatus("Escape: press Tab to leave the terminal, or keep typing to stay.");
      } else if (["Shift", "Control", "Alt", "Meta"].indexOf(event.key) < 0) {
        escaped = false;
      }
      return null;
    }

    term.attachCustomKeyEventHandler(function (event) {
      var leaving = leaveKeys(event);
      if (leaving !== null) return leaving;
      // Ctrl+Shift+C / Ctrl+Shift+V as in desktop terminals; let the browser paste.
      if (event.type === "keydown" && event.ctrlKey && event.shiftKey && event.code === "KeyC") {
        copySelection();
        return false;
      }
      if (event.type === "keydown" && event.ctrlKey && event.shiftKey && event.code === "KeyV") {
        return false;
      }
      return true;
    });

    function renderChecklist(items) {
      if (!checklist) return;
      items.forEach(function (item) {
        var row = checklist.querySelector('[data-item="' + item.id + '"]');
        if (!row) return;
        var was = row.classList.contains("done");
        row.classList.toggle("done", !!item.done);
        var state = row.querySelector(".check-state");
        if (state) state.textContent = item.done ? "Done" : "Not yet";
        if (item.done && !was) setStatus("Checklist: “" + item.text + "” done.");
      });
      var done = items.filter(function (item) { return item.done; }).length;
      var summary = document.getElementById("checklist-summary");
      if (summary) summary.textContent = done + " of " + items.length + " done";
      var solvedPanel = document.querySelector("[data-solved-panel]");
      var solved = items.length > 0 && done === items.length;
      if (solvedPanel) {
        var wasHidden = solvedPanel.hidden;
        solvedPanel.hidden = !solved;
        if (solved && wasHidden) solvedPanel.classList.add("just-solved");
      }
      if (solved) setStatus("Ticket solved: every checklist item is done.");
    }

    // ------------------------------------------------------------------ streams
    // kubectl get -w, logs -f, rollout status and watch keep printing as the world steps,
    // until Ctrl+C, the next command, or their own end (simulators.lab.streams).
    var streaming = false;
    var streamEntry = null; // the transcript's <pre> for the open stream
    var streamOpen = false; // the stream's last output ended no line (a jsonpath template)

    function startStream(frame) {
      streaming = true;
      var data = frame.data || "";
      streamOpen = !!(data && frame.open);
      if (data) term.write(data.replace(/\r?\n/g, "\r\n") + (streamOpen || /\n$/.test(data) ? "" : "\r\n"));
      appendTranscript(pendingCommand, data);
      pendingCommand = null;
      streamEntry = transcript ? transcript.lastElementChild : null;
      setStatus("Streaming: Ctrl+C stops it.");
    }

    function streamed(frame) {
      if (!streaming) return;
      var data = frame.data || "";
      if (frame.clear) {
        // watch: a new screen in the old one's place.
        term.write("\x1b[2J\x1b[H" + data.replace(/\r?\n/g, "\r\n"));
      } else if (data) {
        term.write(data.replace(/\r?\n/g, "\r\n") + (frame.open ? "" : "\r\n"));
      }
      var joint = streamOpen ? "" : "\n";
      if (data) streamOpen = !!frame.open;
      if (!streamEntry || !data) return;
      var pre = streamEntry.querySelector("pre");
      if (!pre) { pre = document.createElement("pre"); streamEntry.appendChild(pre); }
      pre.textContent = frame.clear ? data : (pre.textContent ? pre.textContent + joint : "") + data;
    }

    function endStream(frame) {
      if (!streaming) return;
      streaming = false;
      streamEntry = null;
      // The line a template left open ends before the note and the prompt (Ctrl+C ended it).
      if (streamOpen) term.write("\r\n");
      streamOpen = false;
      if (frame.data) term.write(frame.data.replace(/\r?\n/g, "\r\n") + "\r\n");
      setStatus("The stream ended.");
      busy = false;
      if (queue.length) {
        var next = queue.shift();
        term.write(promptText + next + "\r\n");
        runLine(next);
      } else {
        prompt();
      }
    }

    // ------------------------------------------------------------------ the editor
    // vi, vim, nano and kubectl edit: static/js/lab-editor.js, loaded with CodeMirror when an
    // editor first opens (the files listed in #lab's data-editor).
    var editor = null;
    var editorLoading = null;

    function loadEditor() {
      if (!editorLoading) {
        var files = (root.dataset.editor || "").split(" ").filter(Boolean);
        editorLoading = Promise.all(files.map(function (src) {
          return loadFile("script", { src: src, async: false });
        })).then(function () {
          if (typeof CM === "undefined" || !window.LabEditor) throw new Error("the editor did not load");
          editor = window.LabEditor.create({
            term: term, fit: fit, screen: screen, nonce: nonce, send: send,
            setStatus: setStatus, appendTranscript: appendTranscript,
            // The editor closed: the terminal's prompt again, after kubectl's answer if any.
            done: function (command, output) {
              if (command === null) { busy = false; prompt(); return; }
              pendingCommand = command;
              showOutput(output || "", false);
            }
          });
        }).catch(function (error) { editorLoading = null; throw error; });
      }
      return editorLoading;
    }

    function openEditor(request) {
      busy = true;
      loadEditor().then(function () { editor.open(request); }, function () {
        term.write("\x1b[31mThe editor could not load; the command form below has a text box instead.\x1b[0m\r\n");
        busy = false;
        prompt();
      });
    }

    function editorSaved(frame) {
      if (editor && editor.saved(frame)) return;
      showOutput(frame.data || "", false);
    }

    function connect() {
      socket = new WebSocket(socketUrl);
      socket.addEventListener("open", function () {
        retry = 0;
        setStatus("Connected to the lab cluster.");
        root.classList.add("connected");
      });
      socket.addEventListener("message", function (event) {
        var frame;
        try { frame = JSON.parse(event.data); } catch (e) { return; }
        if (frame.type === "output" && frame.replay) {
          term.reset();
          if (frame.data) term.write(frame.data.replace(/\r?\n/g, "\r\n"));
          busy = false;
          promptText = frame.prompt || PROMPT;
          // What was typed while the terminal loaded goes in once the cluster has answered.
          var typed = line;
          replayed = true;
          prompt();
          if (typed) paste(typed);
          var keys = earlyKeys;
          earlyKeys = [];
          keys.forEach(handleKey);
        }
        else if (frame.type === "output" && frame.saved) editorSaved(frame);
        else if (frame.type === "output" && frame.stream) startStream(frame);
        else if (frame.type === "stream") streamed(frame);
        else if (frame.type === "stream-end") endStream(frame);
        else if (frame.type === "output" && frame.editor) {
          // The command opened an editor: its output (an error before a reopen) first.
          if (frame.data) term.write(frame.data.replace(/\r?\n/g, "\r\n") + "\r\n");
          appendTranscript(pendingCommand, frame.data || "");
          pendingCommand = null;
          openEditor(frame.editor);
        }
        else if (frame.type === "output") showOutput(frame.data || "", !!frame.clear, frame.prompt);
        else if (frame.type === "completions") applyCompletions(frame.items || []);
        else if (frame.type === "error") {
          term.write("\x1b[31m" + (frame.data || "error") + "\x1b[0m\r\n");
          appendTranscript(pendingCommand, frame.data || "error");
          pendingCommand = null;
          busy = false;
          prompt();
        }
        // An output frame carries the checklist as it stands after that output.
        if ((frame.type === "output" || frame.type === "stream") && frame.checklist) renderChecklist(frame.checklist);
      });
      socket.addEventListener("close", function (event) {
        root.classList.remove("connected");
        busy = false;
        streaming = false;
        if (event.code === 4429) {
          setStatus("Too many commands at once: the connection was closed. Reload to continue.");
          term.write("\r\n\x1b[31mToo many commands too fast: connection closed. Reload the page to continue.\x1b[0m\r\n");
          return;
        }
        if (event.code >= 4400 && event.code < 4500) {
          setStatus("The lab refused the connection (" + event.code + "). Reload the page.");
          return;
        }
        retry = Math.min(retry + 1, 6);
        setStatus("Disconnected: reconnecting…");
        setTimeout(connect, 250 * Math.pow(2, retry));
      });
    }

    window.addEventListener("resize", function () { fit.fit(); });
    if (transcriptBox) transcriptBox.addEventListener("toggle", function () { fit.fit(); });

    var findInput = document.getElementById("terminal-find");
    if (findInput && search) {
      findInput.closest("form").addEventListener("submit", function (event) {
        event.preventDefault();
        if (!search.findNext(findInput.value)) setStatus("“" + findInput.value + "” is not in the terminal.");
      });
    }

    document.querySelectorAll("[data-focus-terminal]").forEach(function (button) {
      button.addEventListener("click", function () { term.focus(); });
    });

    connect();
    if (focusTerminal) term.focus();
    window.LabTerminal = { term: term, typeLine: function (text) { paste(text + "\n"); } };
  }
})();
