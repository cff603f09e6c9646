// The console's only style sheet and script, served from its own origin: the Content-Security-
// Policy allows no inline script or style. The script does one thing: copy buttons.
export const CONSOLE_CSS = `
:root { color-scheme: light; --ink: #1b1f24; --muted: #4a5560; --line: #c9d1d9; --accent: #0b5cad; --bad: #a4161a; --good: #1e6b34; }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.5 system-ui, sans-serif; color: var(--ink); background: #f6f8fa; }
a { color: var(--accent); }
a:focus, button:focus, input:focus, select:focus { outline: 3px solid #f0b400; outline-offset: 2px; }
.skip { position: absolute; left: -999px; }
.skip:focus { left: 8px; top: 8px; background: #fff; padding: 4px 8px; }
header { background: #0d2b45; color: #fff; padding: 8px 16px; display: flex; flex-wrap: wrap; gap: 16px; align-items: center; }
header a { color: #fff; }
header nav ul { list-style: none; display: flex; gap: 16px; margin: 0; padding: 0; }
header form { margin: 0; }
header .who { margin-left: auto; }
main { max-width: 1100px; margin: 0 auto; padding: 16px; background: #fff; min-height: 80vh; }
table { border-collapse: collapse; width: 100%; margin: 8px 0 16px; }
th, td { border-bottom: 1px solid var(--line); text-align: left; padding: 4px 8px; vertical-align: top; }
th { background: #eef1f4; }
form.inline { display: inline; }
fieldset { border: 1px solid var(--line); margin: 12px 0; padding: 8px 12px; }
label { display: block; margin: 8px 0 2px; font-weight: 600; }
input, select { font: inherit; padding: 4px 6px; border: 1px solid #6a737d; border-radius: 3px; max-width: 100%; }
input[type=checkbox] { width: auto; }
label.check { font-weight: normal; display: flex; gap: 8px; align-items: center; }
button { font: inherit; padding: 5px 12px; border: 1px solid var(--accent); background: var(--accent); color: #fff; border-radius: 3px; cursor: pointer; margin-top: 8px; }
button.danger { background: var(--bad); border-color: var(--bad); }
header button { background: transparent; border-color: #fff; margin: 0; }
.notice { border-left: 4px solid var(--good); background: #eaf5ec; padding: 8px 12px; }
.error { border-left: 4px solid var(--bad); background: #fbeaea; padding: 8px 12px; }
.secret { font-family: ui-monospace, monospace; background: #fff8dc; padding: 6px; word-break: break-all; display: inline-block; }
pre { white-space: pre-wrap; word-break: break-word; background: #f3f3f3; padding: 8px; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: 4px 16px; }
dt { font-weight: 600; color: var(--muted); }
dd { margin: 0; }
.qr svg { width: 200px; height: 200px; }
figure { margin: 8px 0 16px; }
svg.chart { width: 100%; max-width: 720px; height: auto; }
caption { text-align: left; font-weight: 600; }
`;

export const CONSOLE_JS = `
document.addEventListener('click', function (event) {
  var button = event.target.closest('button[data-copy]');
  if (!button) return;
  var source = document.getElementById(button.getAttribute('data-copy'));
  if (!source || !navigator.clipboard) return;
  navigator.clipboard.writeText(source.textContent.trim()).then(function () {
    button.textContent = button.getAttribute('data-copied') || button.textContent;
  });
});
`;
