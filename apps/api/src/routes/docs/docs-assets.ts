import { createHash } from 'node:crypto';

/** The docs page's only stylesheet: inline, constant, allowed by its hash in the CSP. */
export const docsStyle = `
*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%;scroll-behavior:smooth}
body{margin:0;font:16px/1.65 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;color:#1f2328;background:#fff}
a{color:#1c7ed6;text-decoration:none}a:hover{text-decoration:underline}
code,pre{font-family:ui-monospace,SFMono-Regular,"SF Mono",Menlo,Consolas,"Liberation Mono",monospace;font-size:13.5px}
:not(pre)>code{background:#f1f3f5;border:1px solid #e9ecef;border-radius:4px;padding:1px 5px;font-size:.86em;white-space:nowrap}
.topbar{background:#228be6;color:#fff;height:55px;position:sticky;top:0;z-index:10;box-shadow:0 1px 0 rgba(0,0,0,.08)}
.topbar-inner{max-width:1200px;height:100%;margin:0 auto;padding:0 24px;display:flex;align-items:center;gap:14px}
.brand{color:#fff;font-weight:700;font-size:18px;letter-spacing:-.01em;display:flex;align-items:center;gap:9px}
.brand:hover{text-decoration:none}
.brand svg{display:block}
.section-name{font-size:15px;padding-left:14px;border-left:1px solid rgba(255,255,255,.4);opacity:.92}
.topbar nav{margin-left:auto;display:flex;gap:22px;font-size:14px}
.topbar nav a{color:#fff;opacity:.9}.topbar nav a:hover{opacity:1}
.layout{max-width:1200px;margin:0 auto;padding:40px 24px 96px;display:grid;grid-template-columns:minmax(0,900px);justify-content:center}
.toc{border:1px solid #e9ecef;border-radius:8px;padding:16px 20px;margin-bottom:36px;background:#f8f9fa}
.toc-title{font-size:12px;font-weight:600;letter-spacing:.06em;text-transform:uppercase;color:#868e96;margin:0 0 8px}
.toc ol{list-style:none;margin:0;padding:0;columns:2;column-gap:32px}
.toc li{break-inside:avoid;margin:0}
.toc a{display:block;padding:3px 0;color:#495057;font-size:14.5px}
.toc a:hover{color:#1c7ed6;text-decoration:none}
@media (min-width:1200px){
.layout{grid-template-columns:200px minmax(0,900px);column-gap:56px}
.toc{position:sticky;top:95px;align-self:start;border:0;background:none;padding:0;margin:0}
.toc ol{columns:1;border-left:1px solid #e9ecef}
.toc a{padding:4px 0 4px 14px;margin-left:-1px;border-left:1px solid transparent}
.toc a:hover{border-left-color:#228be6}
}
main{min-width:0}
.eyebrow{color:#228be6;font-weight:600;font-size:14px;margin:0 0 6px}
h1{font-size:36px;line-height:1.2;letter-spacing:-.02em;margin:0 0 12px}
.lead{font-size:18px;color:#495057;margin:0 0 28px}
h2{font-size:24px;line-height:1.3;letter-spacing:-.01em;margin:56px 0 12px;padding-top:24px;border-top:1px solid #e9ecef;scroll-margin-top:70px}
h3{font-size:17px;margin:30px 0 8px;scroll-margin-top:70px}
h2 a.anchor,h3 a.anchor{color:#adb5bd;margin-left:8px;font-weight:400;opacity:0}
h2:hover a.anchor,h3:hover a.anchor{opacity:1}
p,ul,ol{margin:0 0 14px}
li{margin:4px 0}
.base-url{display:flex;align-items:center;gap:14px;flex-wrap:wrap;border:1px solid #d0ebff;background:#e7f5ff;border-radius:8px;padding:14px 18px;margin:0 0 18px}
.base-url .label{font-size:12px;font-weight:600;letter-spacing:.06em;text-transform:uppercase;color:#1971c2}
.base-url code{background:none;border:0;padding:0;font-size:16px;color:#1f2328}
.endpoints{border:1px solid #e9ecef;border-radius:8px;overflow:hidden;margin:0 0 18px}
.endpoint{display:grid;grid-template-columns:64px minmax(0,260px) 1fr;gap:14px;align-items:baseline;padding:11px 16px;border-top:1px solid #e9ecef}
.endpoint:first-child{border-top:0}
.endpoint code{background:none;border:0;padding:0;font-size:14px;white-space:normal}
.endpoint span:last-child{color:#495057;font-size:14.5px}
.method{font:600 11.5px/1.9 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;border-radius:4px;text-align:center;letter-spacing:.03em}
.method.post{background:#e6fcf5;color:#087f5b}.method.get{background:#e7f5ff;color:#1971c2}
.method.put{background:#fff4e6;color:#d9480f}
.method.delete{background:#fff5f5;color:#c92a2a}
figure.code{margin:14px 0 20px;border:1px solid #e3e8ee;border-radius:8px;background:#f6f8fa;overflow:hidden}
.code-head{display:flex;align-items:center;justify-content:space-between;padding:6px 8px 6px 14px;border-bottom:1px solid #e3e8ee;font-size:12px;font-weight:600;color:#6a737d;background:#f1f4f7}
.copy{font:inherit;font-weight:500;color:#495057;background:#fff;border:1px solid #d0d7de;border-radius:5px;padding:2px 10px;cursor:pointer}
.copy:hover{background:#f3f5f7}.copy:focus-visible{outline:2px solid #228be6;outline-offset:1px}
pre{margin:0;padding:14px 16px;overflow-x:auto;line-height:1.6;tab-size:2}
.t-k{color:#cf222e}.t-s{color:#0a3069}.t-c{color:#6e7781;font-style:italic}.t-n{color:#0550ae}.t-a{color:#8250df}
.t-cmd::before{content:"$ ";color:#8c959f;user-select:none}
.callout{border:1px solid;border-left-width:4px;border-radius:6px;padding:12px 16px;margin:16px 0 20px}
.callout p:last-child,.callout ul:last-child{margin-bottom:0}
.callout.warn{background:#fff9db;border-color:#ffe066;border-left-color:#f59f00}
.callout.info{background:#f1f8ff;border-color:#d0ebff;border-left-color:#228be6}
.callout strong:first-child{display:block;margin-bottom:2px}
.table-wrap{overflow-x:auto;margin:12px 0 20px}
table{width:100%;border-collapse:collapse;font-size:14.5px}
th,td{text-align:left;padding:9px 12px;border-bottom:1px solid #e9ecef;vertical-align:top}
thead th{font-size:12px;font-weight:600;letter-spacing:.04em;text-transform:uppercase;color:#868e96;border-bottom:1px solid #dee2e6;background:#f8f9fa}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
td code{white-space:nowrap}
.status{display:inline-block;min-width:40px;text-align:center;font:600 12.5px/1.7 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;border-radius:4px;padding:0 6px}
.s4{background:#fff4e6;color:#d9480f}.s5{background:#fff5f5;color:#c92a2a}
.badge{display:inline-block;margin-left:8px;background:#e7f5ff;color:#1971c2;border-radius:10px;padding:0 8px;font-size:12px;font-weight:600;vertical-align:1px}
.steps{list-style:none;padding:0;counter-reset:step}
.steps li{position:relative;padding-left:40px;margin:0 0 12px;counter-increment:step}
.steps li::before{content:counter(step);position:absolute;left:0;top:1px;width:26px;height:26px;border-radius:50%;background:#e7f5ff;color:#1971c2;font-weight:700;font-size:13px;text-align:center;line-height:26px}
.muted{color:#6a737d;font-size:14.5px}
footer{margin-top:64px;padding-top:20px;border-top:1px solid #e9ecef;color:#868e96;font-size:14px}
@media (max-width:640px){h1{font-size:28px}.endpoint{grid-template-columns:56px 1fr}.endpoint span:last-child{grid-column:2}.toc ol{columns:1}.topbar nav{display:none}th,td{padding:8px 6px}td:last-child{min-width:220px}}
`;

/** Shows the copy buttons and wires them up; event listeners only, so no inline handlers in the CSP. */
export const docsScript = `
document.querySelectorAll('figure.code').forEach(function (figure) {
  var button = figure.querySelector('.copy');
  var code = figure.querySelector('code');
  if (!button || !code) return;
  button.hidden = false;
  var reset;
  function show(label) {
    button.textContent = label;
    clearTimeout(reset);
    reset = setTimeout(function () { button.textContent = 'Copy'; }, 2000);
  }
  button.addEventListener('click', function () {
    var text = code.textContent;
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(function () { show('Copied'); }, function () { select(); });
    } else select();
  });
  function select() {
    var range = document.createRange();
    range.selectNodeContents(code);
    var selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
    show(document.execCommand && document.execCommand('copy') ? 'Copied' : 'Press Ctrl+C');
  }
});
`;

const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

/** Nothing but the page's own inline style and script, matched by hash; no other source at all. */
export const docsContentSecurityPolicy = [
  "default-src 'none'",
  `style-src ${sha256(docsStyle)}`,
  `script-src ${sha256(docsScript)}`,
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');
