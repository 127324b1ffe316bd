// The lab's editor (vi, vim, nano, kubectl edit): CodeMirror 6 in the terminal's place.
//
// static/js/lab.js loads this file with CodeMirror (static/vendor/codemirror-*/) when an editor
// first opens, and calls LabEditor.create(host) with the terminal's pieces: term, fit, screen,
// nonce, send, setStatus, appendTranscript and done(command, output) for when the editor closes.
// The server sends {path, text, mode, token}; the page shows CodeMirror with vim keys
// (@replit/codemirror-vim) or nano's. A file is saved at each write (:w, Ctrl+O); kubectl edit,
// like kubectl, reads its file when the editor exits, so its save goes when the editor closes.
(function () {
  "use strict";

  function create(host) {
    var editorBox = document.getElementById("lab-editor");
    var editing = null; // {request, view, written, closing, kubectl}

    function editorStatus(text) {
      var status = document.getElementById("lab-editor-status");
      if (status) status.textContent = text;
    }

    function countLines(text) {
      if (text && !/\n$/.test(text)) text += "\n";
      return { lines: (text.match(/\n/g) || []).length, bytes: new Blob([text]).size };
    }

    function open(request) {
      // Opened from the server's answer, never from the old view's own key handling: the old view
      // goes at once, so there is never a second editor on the page (a reopen after an invalid edit).
      if (editing && editing.view) editing.view.destroy();
      defineVimCommands();
      var nano = request.mode === "nano";
      var kubectl = /^\/tmp\/kubectl-edit-/.test(request.path);
      var name = request.path || (nano ? "New Buffer" : "[No Name]");
      editing = { request: request, view: null, written: request.text, closing: false, kubectl: kubectl };
      document.getElementById("lab-editor-title").textContent =
        (nano ? "GNU nano 7.2: " : "vim: ") + name;
      var keys = nano
        ? "nano keys: type to edit; Ctrl+O writes the file, Ctrl+X exits (and asks to save changes)."
        : "vim keys: i to insert, Esc for normal mode, :w writes, :wq writes and quits, :q! quits without saving.";
      document.getElementById("lab-editor-keys").textContent = keys + " Tab moves on from the editor.";
      document.getElementById("lab-editor-help").hidden = !nano;
      // vim's first message, as vim prints it on opening a file: its lines and bytes (the
      // buffer is the file without its last newline: simulators.lab.editor.open_editor).
      var opened = countLines(request.text);
      editorStatus(nano ? (request.text ? "" : "[ New File ]")
        : '"' + name + '" ' + (request.text ? opened.lines + "L, " + opened.bytes + "B" : "[New]"));
      var extensions = [
        CM.basicSetup,
        CM.EditorView.contentAttributes.of({
          "aria-label": (nano ? "nano" : "vim") + " editor: " + name,
          "aria-describedby": "lab-editor-keys"
        }),
        CM.EditorView.cspNonce.of(host.nonce)
      ];
      if (/\.ya?ml$/.test(request.path)) extensions.push(CM.yaml());
      if (nano) extensions.push(CM.Prec.highest(CM.keymap.of(nanoKeys())));
      else extensions.unshift(CM.vim({ status: true }));
      host.screen.hidden = true;
      editorBox.hidden = false;
      editing.view = new CM.EditorView({
        state: CM.EditorState.create({ doc: request.text, extensions: extensions }),
        parent: document.getElementById("lab-editor-view")
      });
      editing.view.focus();
      host.setStatus((nano ? "nano" : "vim") + " is open on " + name + ". " + keys);
    }

    function buffer() { return editing.view.state.doc.toString(); }

    // The transcript's line for a save, as the server keeps it (simulators.lab.editor).
    function savedLine() { return "# saved in " + editing.request.mode + ": " + (editing.request.path || ""); }

    // A write: a file goes to the server now; kubectl's buffer is kept for the editor's exit.
    function writeBuffer(path, thenClose) {
      var text = buffer();
      if (editing.kubectl) {
        editing.written = text;
        var counted = countLines(text);
        editorStatus(editing.request.mode === "nano"
          ? "[ Wrote " + counted.lines + " line" + (counted.lines === 1 ? "" : "s") + " ]"
          : '"' + editing.request.path + '" ' + counted.lines + "L, " + counted.bytes + "B written");
        if (thenClose) closeEditor();
        return;
      }
      editing.closing = !!thenClose;
      editing.pendingText = text;
      var frame = { type: "save", token: editing.request.token, text: text, path: path || null };
      if (!host.send(frame)) editorStatus("Not connected: the file was not written. Try again in a moment.");
    }

    // A save's answer: true if it was this editor's.
    function saved(frame) {
      if (!editing) return false;
      if (editing.kubectl) {
        // kubectl's answer to the editor's exit: done, or the buffer again with the reasons.
        editorBox.hidden = true;
        if (frame.editor) {
          if (frame.data) host.term.write(frame.data.replace(/\r?\n/g, "\r\n") + "\r\n");
          host.appendTranscript(savedLine(), frame.data || "");
          open(frame.editor);
          host.setStatus("kubectl reopened the editor: the reasons are at the top of the buffer.");
          return true;
        }
        var line = savedLine();
        finishEditor();
        host.done(line, frame.data || "");
        return true;
      }
      editorStatus(frame.data || "");
      host.appendTranscript(savedLine(), frame.data || "");
      if (frame.ok) {
        editing.written = editing.pendingText;
        // :wq, :x, ZZ: written, so the editor goes (and `editing` with it).
        if (editing.closing) { closeEditor(); return true; }
      }
      editing.closing = false;
      return true;
    }

    // Leaving: a file is already written; kubectl reads what was last written.
    function closeEditor() {
      if (editing && editing.kubectl) {
        editorStatus("Waiting for kubectl…");
        if (!host.send({ type: "save", token: editing.request.token, text: editing.written, path: null })) {
          editorStatus("Not connected: try again in a moment.");
        }
        return;
      }
      finishEditor();
      host.done(null, "");
    }

    function finishEditor() {
      // Destroyed once the key that closed it (an ex command such as :q!) is done with it.
      if (editing) { var view = editing.view; setTimeout(function () { view.destroy(); }, 0); }
      editing = null;
      editorBox.hidden = true;
      document.getElementById("lab-editor-prompt").hidden = true;
      host.screen.hidden = false;
      host.fit.fit();
      host.term.focus();
      host.setStatus("The editor closed; back in the terminal.");
    }

    function modified() { return editing && buffer() !== editing.written; }

    function defineVimCommands() {
      if (defineVimCommands.done || typeof CM === "undefined") return;
      defineVimCommands.done = true;
      var Vim = CM.Vim;
      function arg(params) { return ((params && params.args) || [])[0] || null; }
      function bang(params) { return /!/.test((params && params.argString) || ""); }
      Vim.defineEx("write", "w", function (cm, params) {
        if (!editing) return;
        if (!editing.request.path && !arg(params) && !editing.kubectl) { editorStatus("E32: No file name"); return; }
        writeBuffer(arg(params), false);
      });
      Vim.defineEx("wq", "wq", function (cm, params) {
        if (!editing) return;
        if (!editing.request.path && !arg(params) && !editing.kubectl) { editorStatus("E32: No file name"); return; }
        writeBuffer(arg(params), true);
      });
      Vim.defineEx("xit", "x", function (cm, params) {
        if (!editing) return;
        if (modified()) writeBuffer(arg(params), true); else closeEditor();
      });
      Vim.defineEx("quit", "q", function (cm, params) {
        if (!editing) return;
        if (modified() && !bang(params)) { editorStatus("E37: No write since last change (add ! to override)"); return; }
        closeEditor();
      });
      Vim.map("ZZ", ":x<CR>", "normal");
      Vim.map("ZQ", ":q!<CR>", "normal");
    }

    // nano's keys: ^O writes (asking for a name it lacks), ^X exits (asking to save changes).
    function nanoKeys() {
      return [
        { key: "Ctrl-o", preventDefault: true, run: function () { nanoWrite(false); return true; } },
        { key: "Ctrl-s", preventDefault: true, run: function () { nanoWrite(false); return true; } },
        { key: "Ctrl-x", preventDefault: true, run: function () {
          if (!modified()) { closeEditor(); return true; }
          ask("Save modified buffer?  Y Yes  N No  ^C Cancel", "", function (answer) {
            if (/^y/i.test(answer)) nanoWrite(true);
            else if (/^n/i.test(answer)) closeEditor();
            else editorStatus("[ Cancelled ]");
          });
          return true;
        } },
        { key: "Ctrl-g", preventDefault: true, run: function () {
          var help = document.getElementById("lab-editor-help");
          editorStatus("Ctrl+O writes the file, Ctrl+X exits. Esc then Tab moves on from the editor.");
          help.hidden = false;
          return true;
        } },
        // ^K cuts the cursor's line into nano's cut buffer, ^U pastes it above the cursor's line.
        { key: "Ctrl-k", preventDefault: true, run: function (view) {
          var line = view.state.doc.lineAt(view.state.selection.main.head);
          var to = Math.min(line.to + 1, view.state.doc.length);
          cutBuffer = view.state.doc.sliceString(line.from, to);
          if (!/\n$/.test(cutBuffer)) cutBuffer += "\n";
          view.dispatch({ changes: { from: line.from, to: to }, selection: { anchor: line.from } });
          return true;
        } },
        { key: "Ctrl-u", preventDefault: true, run: function (view) {
          if (!cutBuffer) return true;
          var line = view.state.doc.lineAt(view.state.selection.main.head);
          view.dispatch({ changes: { from: line.from, insert: cutBuffer }, selection: { anchor: line.from + cutBuffer.length } });
          return true;
        } }
      ];
    }
    var cutBuffer = "";

    function nanoWrite(thenClose) {
      if (editing.kubectl) { writeBuffer(null, thenClose); return; }
      ask("File Name to Write: ", editing.request.path, function (answer) {
        if (!answer) { editorStatus("[ Cancelled ]"); return; }
        writeBuffer(answer === editing.request.path ? null : answer, thenClose);
      });
    }

    // nano's question line, as a labelled text field: Enter answers, Esc or Ctrl+C cancels.
    function ask(question, value, answered) {
      var form = document.getElementById("lab-editor-prompt");
      var input = document.getElementById("lab-editor-answer");
      document.getElementById("lab-editor-question").textContent = question;
      input.value = value || "";
      form.hidden = false;
      input.focus();
      function done(answer) {
        form.hidden = true;
        form.onsubmit = null;
        input.onkeydown = null;
        if (editing) editing.view.focus();
        answered(answer);
      }
      form.onsubmit = function (event) { event.preventDefault(); done(input.value); };
      input.onkeydown = function (event) {
        if (event.key === "Escape" || (event.ctrlKey && event.key === "c")) { event.preventDefault(); done(""); }
        // Y and N answer at once, as in nano.
        if (/^Save modified/.test(question) && /^[yYnN]$/.test(event.key)) { event.preventDefault(); done(event.key); }
      };
    }

    return { open: open, saved: saved };
  }

  window.LabEditor = { create: create };
})();
