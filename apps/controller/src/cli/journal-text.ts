// Makes a gateway's log text safe to print: the gateway is assumed compromised, and its text must not
// move the cursor, retitle the window, set a hyperlink or clipboard (OSC 52), or start a line of its own.

/** C0 controls but tab, DEL, and C1 controls (U+0080-U+009F, which some terminals obey as CSI or OSC). */
const CONTROLS = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f]/g;

/** Each control becomes a visible escape such as \x1b or \x0a, so ESC, CSI, OSC and newlines are shown, never obeyed. */
export function neutralise(text: string): string {
  return text.replace(CONTROLS, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}
