// The lab's editor: CodeMirror 6 with vim key bindings, as one file for the browser (global CM).
export { EditorView, keymap, lineNumbers, drawSelection, highlightActiveLine, highlightSpecialChars } from "@codemirror/view";
export { EditorState, Prec } from "@codemirror/state";
export { basicSetup, minimalSetup } from "codemirror";
export { defaultKeymap, history, historyKeymap, indentWithTab } from "@codemirror/commands";
export { vim, Vim, getCM } from "@replit/codemirror-vim";
export { yaml } from "@codemirror/lang-yaml";
